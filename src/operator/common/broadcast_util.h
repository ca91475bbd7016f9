/*!
 * \file broadcast_util.h
 * \brief NumPy broadcasting: the output shape rule and a strided plan that walks the
 *        output once, with adjacent dims of the same broadcast pattern merged so the
 *        inner loop is as long as possible.
 */
#ifndef MXNET_OPERATOR_COMMON_BROADCAST_UTIL_H_
#define MXNET_OPERATOR_COMMON_BROADCAST_UTIL_H_

#include <cstdint>
#include <vector>

#include "mxnet/tensor.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

/*! \brief Right-aligned broadcast of two shapes; false when some dim pair is incompatible. */
inline bool BroadcastShapes(const TShape& a, const TShape& b, TShape* out) {
  const int n = a.ndim() > b.ndim() ? a.ndim() : b.ndim();
  std::vector<dim_t> dims(n);
  for (int i = 0; i < n; ++i) {
    const int ia = a.ndim() - n + i, ib = b.ndim() - n + i;
    const dim_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) {
      dims[i] = da;
    } else if (da == 1) {
      dims[i] = db;
    } else {
      return false;
    }
  }
  *out = TShape(dims);
  return true;
}

/*! \brief Output dims with, per input, the element stride of each dim (0 where broadcast). */
struct BroadcastPlan {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> strides;  // one per input
  int64_t size{1};
};

/*! \brief Plans a walk over `out` reading each input (whose shape broadcasts to `out`). */
inline BroadcastPlan MakeBroadcastPlan(const std::vector<TShape>& ins, const TShape& out) {
  const int n = out.ndim();
  const size_t k = ins.size();
  std::vector<std::vector<int64_t>> st(k, std::vector<int64_t>(n, 0));
  for (size_t j = 0; j < k; ++j) {
    int64_t s = 1;
    for (int i = n - 1; i >= 0; --i) {
      const int ii = ins[j].ndim() - n + i;
      const dim_t d = ii >= 0 ? ins[j][ii] : 1;
      st[j][i] = (d == 1 && out[i] != 1) ? 0 : s;
      s *= d;
    }
  }
  BroadcastPlan p;
  // Merge dim i into the previous one when every input is contiguous across the pair.
  for (int i = 0; i < n; ++i) {
    if (out[i] == 1) continue;  // size-1 dims contribute nothing
    bool merge = !p.shape.empty();
    for (size_t j = 0; j < k && merge; ++j) merge = p.strides[j].back() == st[j][i] * out[i];
    if (merge) {
      p.shape.back() *= out[i];
      for (size_t j = 0; j < k; ++j) p.strides[j].back() = st[j][i];
    } else {
      if (p.strides.empty()) p.strides.resize(k);
      p.shape.push_back(out[i]);
      for (size_t j = 0; j < k; ++j) p.strides[j].push_back(st[j][i]);
    }
  }
  if (p.shape.empty()) {
    p.shape.push_back(1);
    p.strides.assign(k, std::vector<int64_t>{1});
  }
  p.size = out.Size();
  return p;
}

/*!
 * \brief Calls body(row_offsets, inner_len, inner_strides, out_offset) once per row of the
 *        innermost planned dim; rows are independent, so they run in parallel.
 */
template <typename Body>
inline void ForEachBroadcastRow(const BroadcastPlan& p, Body body) {
  const int nd = static_cast<int>(p.shape.size());
  const size_t k = p.strides.size();
  const int64_t inner = p.shape[nd - 1];
  const int64_t rows = inner == 0 ? 0 : p.size / inner;
  auto run = [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> off(k), inner_st(k);
    for (size_t j = 0; j < k; ++j) inner_st[j] = p.strides[j][nd - 1];
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rem = r;
      for (size_t j = 0; j < k; ++j) off[j] = 0;
      for (int d = nd - 2; d >= 0; --d) {
        const int64_t idx = rem % p.shape[d];
        rem /= p.shape[d];
        for (size_t j = 0; j < k; ++j) off[j] += idx * p.strides[j][d];
      }
      body(off.data(), inner, inner_st.data(), r * inner);
    }
  };
  if (UseParallel(p.size) && rows > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) run(r, r + 1);
  } else {
    run(0, rows);
  }
}

/*! \brief out = f(a, b) with broadcasting; out has the broadcast shape. */
template <typename T, typename C = compute_t<T>, typename F>
inline void BroadcastBinary(const TShape& as, const T* a, const TShape& bs, const T* b, const TShape& os,
                            T* out, OpReqType req, F f) {
  if (req == kNullOp) return;
  if (as == os && bs == os) return MapBinary<T, C>(a, b, out, os.Size(), req, f);
  const BroadcastPlan p = MakeBroadcastPlan({as, bs}, os);
  ForEachBroadcastRow(p, [&](const int64_t* off, int64_t len, const int64_t* st, int64_t o) {
    const T* pa = a + off[0];
    const T* pb = b + off[1];
    T* po = out + o;
    const int64_t sa = st[0], sb = st[1];
    if (req == kAddTo) {
      for (int64_t i = 0; i < len; ++i)
        Store(po + i, req, f(static_cast<C>(pa[i * sa]), static_cast<C>(pb[i * sb])));
    } else if (sa == 1 && sb == 0) {
      const C vb = static_cast<C>(pb[0]);
      MXNET_SIMD
      for (int64_t i = 0; i < len; ++i) po[i] = static_cast<T>(f(static_cast<C>(pa[i]), vb));
    } else if (sa == 0 && sb == 1) {
      const C va = static_cast<C>(pa[0]);
      MXNET_SIMD
      for (int64_t i = 0; i < len; ++i) po[i] = static_cast<T>(f(va, static_cast<C>(pb[i])));
    } else {
      for (int64_t i = 0; i < len; ++i)
        po[i] = static_cast<T>(f(static_cast<C>(pa[i * sa]), static_cast<C>(pb[i * sb])));
    }
  });
}

/*! \brief Strided copy of `in` broadcast to `os` (broadcast_to and friends). */
template <typename T>
inline void BroadcastCopy(const TShape& is, const T* in, const TShape& os, T* out, OpReqType req) {
  if (req == kNullOp) return;
  if (is.Size() == os.Size()) {
    ParallelChunks(os.Size(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) Store(out + i, req, in[i]);
    });
    return;
  }
  const BroadcastPlan p = MakeBroadcastPlan({is}, os);
  ForEachBroadcastRow(p, [&](const int64_t* off, int64_t len, const int64_t* st, int64_t o) {
    const T* pi = in + off[0];
    for (int64_t i = 0; i < len; ++i) Store(out + o + i, req, pi[i * st[0]]);
  });
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_BROADCAST_UTIL_H_
