/*!
 * \file reshape.cc
 * \brief Ops that only relabel the shape of contiguous data: Reshape (MXNet's special
 *        codes 0/-1/-2/-3/-4 and reverse), reshape_like, Flatten, expand_dims, squeeze.
 *        Each gradient is reshape_like(ograd, input).
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/op_family.h"
#include "operator/common/param_text.h"

namespace mxnet {
namespace op {

struct ReshapeParam : public dmlc::Parameter<ReshapeParam> {
  TShape shape;
  bool reverse;
  DMLC_DECLARE_PARAMETER(ReshapeParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape(0)).describe(
        "The target shape. Special codes: 0 copies the input dim, -1 infers it, -2 copies all remaining "
        "dims, -3 merges two consecutive dims, -4 splits one dim into the two following values.");
    DMLC_DECLARE_FIELD(reverse).set_default(false).describe(
        "If true, the special codes are matched from right to left.");
  }
};
DMLC_REGISTER_PARAMETER(ReshapeParam);

struct ExpandDimsParam : public dmlc::Parameter<ExpandDimsParam> {
  int axis;
  DMLC_DECLARE_PARAMETER(ExpandDimsParam) {
    DMLC_DECLARE_FIELD(axis).describe("Position where the new axis is inserted; -ndim-1 <= axis <= ndim.");
  }
};
DMLC_REGISTER_PARAMETER(ExpandDimsParam);

struct SqueezeParam : public dmlc::Parameter<SqueezeParam> {
  dmlc::optional<TShape> axis;
  DMLC_DECLARE_PARAMETER(SqueezeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<TShape>()).describe(
        "Size-1 axes to remove; None removes all of them.");
  }
};
DMLC_REGISTER_PARAMETER(SqueezeParam);

struct ReshapeLikeParam : public dmlc::Parameter<ReshapeLikeParam> {
  dmlc::optional<int> lhs_begin, lhs_end, rhs_begin, rhs_end;
  DMLC_DECLARE_PARAMETER(ReshapeLikeParam) {
    DMLC_DECLARE_FIELD(lhs_begin).set_default(dmlc::optional<int>()).describe(
        "First dim of lhs to replace (None: 0; negative counts from the end).");
    DMLC_DECLARE_FIELD(lhs_end).set_default(dmlc::optional<int>()).describe(
        "Dim of lhs after the replaced ones (None: lhs's rank).");
    DMLC_DECLARE_FIELD(rhs_begin).set_default(dmlc::optional<int>()).describe(
        "First dim of rhs to copy (None: 0).");
    DMLC_DECLARE_FIELD(rhs_end).set_default(dmlc::optional<int>()).describe(
        "Dim of rhs after the copied ones (None: rhs's rank).");
  }
};
DMLC_REGISTER_PARAMETER(ReshapeLikeParam);

namespace {

[[noreturn]] void ReshapeError(const NodeAttrs& attrs, const TShape& in, const std::string& why) {
  MX_THROW("ValueError") << attrs.op->name << ": cannot reshape array of shape " << in << " into shape "
                         << ParamTuple(attrs.get<ReshapeParam>().shape)
                         << (attrs.get<ReshapeParam>().reverse ? " (reverse)" : "") << ": " << why;
}

/*! \brief MXNet's Reshape rule (operators.md). */
TShape InferReshape(const NodeAttrs& attrs, const TShape& ishape) {
  const auto& p = attrs.get<ReshapeParam>();
  std::vector<dim_t> src(ishape.begin(), ishape.end()), codes(p.shape.begin(), p.shape.end());
  if (p.reverse) {
    std::reverse(src.begin(), src.end());
    // Reverse the codes but keep each -4 group together, its two sizes swapped (they split a
    // reversed dim).
    std::vector<dim_t> r;
    for (size_t j = 0; j < codes.size(); ++j) {
      if (codes[j] == -4 && j + 2 < codes.size()) {
        r.insert(r.begin(), {codes[j], codes[j + 2], codes[j + 1]});
        j += 2;
      } else {
        r.insert(r.begin(), codes[j]);
      }
    }
    codes = r;
  }
  std::vector<dim_t> out;
  int infer = -1;
  size_t i = 0;
  const size_t n = src.size();
  for (size_t j = 0; j < codes.size(); ++j) {
    const dim_t c = codes[j];
    if (c > 0) {
      out.push_back(c);
      ++i;
    } else if (c == 0) {
      if (i >= n) ReshapeError(attrs, ishape, "0 refers past the last input dimension");
      out.push_back(src[i++]);
    } else if (c == -1) {
      if (infer >= 0) ReshapeError(attrs, ishape, "more than one -1");
      infer = static_cast<int>(out.size());
      out.push_back(1);
      ++i;
    } else if (c == -2) {
      while (i < n) out.push_back(src[i++]);
    } else if (c == -3) {
      if (i + 1 >= n) ReshapeError(attrs, ishape, "-3 needs two input dimensions");
      out.push_back(src[i] * src[i + 1]);
      i += 2;
    } else if (c == -4) {
      if (j + 2 >= codes.size()) ReshapeError(attrs, ishape, "-4 must be followed by two values");
      if (i >= n) ReshapeError(attrs, ishape, "-4 refers past the last input dimension");
      dim_t d0 = codes[j + 1], d1 = codes[j + 2];
      j += 2;
      if (d0 == -1 && d1 == -1) ReshapeError(attrs, ishape, "-4 split with both values -1");
      if (d0 == -1) d0 = d1 ? src[i] / d1 : 0;
      if (d1 == -1) d1 = d0 ? src[i] / d0 : 0;
      if (d0 * d1 != src[i]) ReshapeError(attrs, ishape, "-4 split does not match the input dimension");
      out.push_back(d0);
      out.push_back(d1);
      ++i;
    } else {
      ReshapeError(attrs, ishape, "invalid code " + std::to_string(c));
    }
  }
  if (infer >= 0) {
    int64_t known = 1;
    for (size_t k = 0; k < out.size(); ++k)
      if (static_cast<int>(k) != infer) known *= out[k];
    if (known == 0 || ishape.Size() % known != 0) ReshapeError(attrs, ishape, "-1 cannot be inferred");
    out[infer] = ishape.Size() / known;
  }
  if (p.reverse) std::reverse(out.begin(), out.end());
  TShape o(out);
  if (o.Size() != ishape.Size()) ReshapeError(attrs, ishape, "the sizes differ");
  return o;
}

bool ReshapeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  MX_CHECK_KIND(attrs.get<ReshapeParam>().shape.ndim() > 0, "ValueError")
      << attrs.op->name << ": target shape must be given";
  AssignShape(attrs, &(*out)[0], InferReshape(attrs, (*in)[0]), "output", 0);
  return true;
}

void CopyData(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].dptr_ == out[0].dptr_) return;
  if (req[0] != kAddTo) {
    std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
    return;
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    MapUnary(in[0].dptr<DType>(), out[0].dptr<DType>(), out[0].Size(), kAddTo, [](compute_t<DType> x) { return x; });
  });
}

std::vector<NodeEntry> ReshapeLikeInputGrad(const NodePtr& n, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> g{MakeNode("reshape_like", n->attrs.name + "_backward", {og[0], n->inputs[0]})};
  for (size_t i = 1; i < n->inputs.size(); ++i) g.push_back(MakeZeroGrad(n, static_cast<uint32_t>(i)));
  return g;
}

Op& ShapeOnlyFamily(Op& op) {
  return op.set_num_outputs(1)
      .set_infer_type(ElemwiseType)
      .set_inplace_option([](const NodeAttrs&) {
        return InplacePairs{{0, 0}};
      })
      .set_inplace_identity([](const NodeAttrs&) { return std::vector<bool>{true}; })
      .set_compute(Context::kCPU, CopyData)
      .set_gradient(ReshapeLikeInputGrad);
}

/*! \brief A begin/end dim of a rank-n shape: None gives `fallback`, negatives count from the end. */
int LikeDim(const NodeAttrs& attrs, const dmlc::optional<int>& v, int fallback, int n, const char* name) {
  if (!v.has_value()) return fallback;
  const int d = v.value() < 0 ? v.value() + n : v.value();
  MX_CHECK_KIND(d >= 0 && d <= n, "ValueError")
      << attrs.op->name << ": " << name << "=" << v.value() << " is out of range for a shape of rank " << n;
  return d;
}

/*! \brief lhs[:lhs_begin] + rhs[rhs_begin:rhs_end] + lhs[lhs_end:], of lhs's size. */
bool ReshapeLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &lhs = (*in)[0], &rhs = (*in)[1];
  if (!lhs.IsKnown() || !rhs.IsKnown()) return false;
  const auto& p = attrs.get<ReshapeLikeParam>();
  const int lb = LikeDim(attrs, p.lhs_begin, 0, lhs.ndim(), "lhs_begin");
  const int le = LikeDim(attrs, p.lhs_end, lhs.ndim(), lhs.ndim(), "lhs_end");
  const int rb = LikeDim(attrs, p.rhs_begin, 0, rhs.ndim(), "rhs_begin");
  const int re = LikeDim(attrs, p.rhs_end, rhs.ndim(), rhs.ndim(), "rhs_end");
  MX_CHECK_KIND(lb <= le && rb <= re, "ValueError")
      << attrs.op->name << ": the ranges [lhs_begin, lhs_end) and [rhs_begin, rhs_end) must not be reversed";
  std::vector<dim_t> dims;
  for (int i = 0; i < lb; ++i) dims.push_back(lhs[i]);
  for (int i = rb; i < re; ++i) dims.push_back(rhs[i]);
  for (int i = le; i < lhs.ndim(); ++i) dims.push_back(lhs[i]);
  const TShape o(dims);
  MX_CHECK_KIND(o.Size() == lhs.Size(), "ValueError")
      << attrs.op->name << ": cannot reshape lhs of shape " << lhs << " to " << o << " (like rhs of shape " << rhs
      << "): the sizes differ";
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP_FAMILY(Reshape, ShapeOnlyFamily)
        .add_alias("reshape")
        .describe(
            "Reshapes the input array; see `shape` for MXNet's special codes. Examples: (2,3,4) with "
            "(4,0,2) -> (4,3,2); (2,3,4) with (-3,4) -> (6,4); (10,5,4) with (-1,0) -> (40,5), reverse -> (50,4).")
        .set_num_inputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input data to reshape.")
        .add_arguments(ReshapeParam::__FIELDS__())
        .set_attr_parser(ParamParser<ReshapeParam>)
        .set_infer_shape(ReshapeShape);

    MXNET_REGISTER_OP_FAMILY(reshape_like, ShapeOnlyFamily)
        .describe("Reshapes lhs to the shape of rhs (same number of elements); with lhs_begin/lhs_end and "
                  "rhs_begin/rhs_end, lhs's dims [lhs_begin, lhs_end) become rhs's dims [rhs_begin, rhs_end).")
        .set_num_inputs(2)
        .add_argument("lhs", "NDArray-or-Symbol", "First input.")
        .add_argument("rhs", "NDArray-or-Symbol", "Second input.")
        .add_arguments(ReshapeLikeParam::__FIELDS__())
        .set_attr_parser(ParamParser<ReshapeLikeParam>)
        .set_infer_shape(ReshapeLikeShape)
        .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
          AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
          return (*out)[0] != -1;
        });

    MXNET_REGISTER_OP_FAMILY(Flatten, ShapeOnlyFamily)
        .add_alias("flatten")
        .describe("Flattens the input array into a 2-D array (d0, d1*...*dk).")
        .set_num_inputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input array.")
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          const TShape& s = (*in)[0];
          if (!s.IsKnown()) return false;
          MX_CHECK_KIND(s.ndim() >= 1, "ValueError") << attrs.op->name << ": input must have at least 1 dim, got " << s;
          AssignShape(attrs, &(*out)[0], TShape{s[0], s.ProdShape(1, s.ndim())}, "output", 0);
          return true;
        });

    MXNET_REGISTER_OP_FAMILY(expand_dims, ShapeOnlyFamily)
        .describe("Inserts a new axis of size 1 at `axis`.")
        .set_num_inputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Source input")
        .add_arguments(ExpandDimsParam::__FIELDS__())
        .set_attr_parser(ParamParser<ExpandDimsParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          const TShape& s = (*in)[0];
          if (!s.IsKnown()) return false;
          const int n = s.ndim(), a = attrs.get<ExpandDimsParam>().axis;
          MX_CHECK_KIND(a >= -n - 1 && a <= n, "ValueError")
              << attrs.op->name << ": axis " << a << " out of range for input of shape " << s;
          std::vector<dim_t> d(s.begin(), s.end());
          d.insert(d.begin() + (a < 0 ? a + n + 1 : a), 1);
          AssignShape(attrs, &(*out)[0], TShape(d), "output", 0);
          return true;
        });

    MXNET_REGISTER_OP_FAMILY(squeeze, ShapeOnlyFamily)
        .describe("Removes size-1 axes (all of them, or those in `axis`).")
        .set_num_inputs(1)
        .add_argument("data", "NDArray-or-Symbol", "data to squeeze")
        .add_arguments(SqueezeParam::__FIELDS__())
        .set_attr_parser(ParamParser<SqueezeParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          const TShape& s = (*in)[0];
          if (!s.IsKnown()) return false;
          const auto& p = attrs.get<SqueezeParam>();
          const int n = s.ndim();
          std::vector<bool> drop(n, false);
          if (p.axis.has_value()) {
            for (dim_t a : p.axis.value()) {
              MX_CHECK_KIND(a >= -n && a < n, "ValueError")
                  << attrs.op->name << ": axis " << a << " out of range for input of shape " << s;
              const int ax = static_cast<int>(a < 0 ? a + n : a);
              MX_CHECK_KIND(s[ax] == 1, "ValueError")
                  << attrs.op->name << ": cannot select an axis to squeeze out which has size " << s[ax]
                  << " not equal to one (shape " << s << ")";
              drop[ax] = true;
            }
          } else {
            for (int i = 0; i < n; ++i) drop[i] = s[i] == 1;
          }
          std::vector<dim_t> d;
          for (int i = 0; i < n; ++i)
            if (!drop[i]) d.push_back(s[i]);
          if (d.empty()) d.push_back(1);  // legacy mode has no 0-d arrays
          AssignShape(attrs, &(*out)[0], TShape(d), "output", 0);
          return true;
        });
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
