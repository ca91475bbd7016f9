/*!
 * \file reshape_codes.cc
 * \brief MXNet's Reshape special codes, shared by NDArray views and the Reshape op.
 */
#include <algorithm>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace {
TShape InferForward(const std::vector<dim_t>& target, const std::vector<dim_t>& in, const TShape& orig_target,
                    const TShape& orig_in) {
  std::vector<dim_t> out;
  int infer_at = -1;
  size_t src = 0;
  auto fail = [&]() -> Error {
    return Error("Reshape: cannot reshape array of shape " + orig_in.ToString() + " into shape " +
                     orig_target.ToString(),
                 "ValueError");
  };
  for (size_t i = 0; i < target.size(); ++i) {
    const dim_t code = target[i];
    if (code > 0) {
      out.push_back(code);
      ++src;
    } else if (code == 0) {
      if (src >= in.size()) throw fail();
      out.push_back(in[src++]);
    } else if (code == -1) {
      if (infer_at >= 0) throw Error("Reshape: at most one dimension can be -1, got " + orig_target.ToString(), "ValueError");
      infer_at = static_cast<int>(out.size());
      out.push_back(1);
      ++src;
    } else if (code == -2) {
      while (src < in.size()) out.push_back(in[src++]);
    } else if (code == -3) {
      if (src + 1 >= in.size()) throw fail();
      out.push_back(in[src] * in[src + 1]);
      src += 2;
    } else if (code == -4) {
      if (i + 2 >= target.size() || src >= in.size()) throw fail();
      dim_t a = target[i + 1], b = target[i + 2];
      const dim_t d = in[src++];
      if (a == -1 && b > 0) a = d / b;
      if (b == -1 && a > 0) b = d / a;
      if (a <= 0 || b <= 0 || a * b != d) throw fail();
      out.push_back(a);
      out.push_back(b);
      i += 2;
    } else {
      throw fail();
    }
  }
  int64_t total = 1;
  for (dim_t d : in) total *= d;
  if (infer_at >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); ++i)
      if (static_cast<int>(i) != infer_at) known *= out[i];
    if (known == 0 || total % known != 0) throw fail();
    out[infer_at] = total / known;
  }
  int64_t got = 1;
  for (dim_t d : out) got *= d;
  if (got != total) throw fail();
  return TShape(out);
}
}  // namespace

TShape InferReshape(const TShape& target, const TShape& in, bool reverse) {
  std::vector<dim_t> t(target.begin(), target.end()), s(in.begin(), in.end());
  if (!reverse) return InferForward(t, s, target, in);
  // Right-to-left: reverse both, apply, reverse back; -4's pair keeps its own order.
  std::vector<dim_t> rt;
  for (int i = static_cast<int>(t.size()) - 1; i >= 0; --i) {
    if (i >= 2 && t[i - 2] == -4) {
      rt.push_back(-4);
      rt.push_back(t[i]);
      rt.push_back(t[i - 1]);
      i -= 2;
    } else {
      rt.push_back(t[i]);
    }
  }
  std::reverse(s.begin(), s.end());
  TShape r = InferForward(rt, s, target, in);
  std::vector<dim_t> out(r.begin(), r.end());
  std::reverse(out.begin(), out.end());
  return TShape(out);
}

}  // namespace mxnet
