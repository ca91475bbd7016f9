/*!
 * \file pad.cc
 * \brief Pad (pad) in constant, edge and reflect modes with _backward_Pad. Every output
 *        coordinate maps to one input coordinate (or, in constant mode, to none), so the
 *        forward is a gather and the backward adds each output gradient to the input element
 *        it was read from. MXNet limits Pad to 4-D/5-D inputs padded on the spatial axes;
 *        this kernel takes any rank and any axes, which is a superset.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/backward_with_data.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"
#include "operator/common/param_text.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/pad.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(PadParam);

namespace {

void CheckPad(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<PadParam>();
  MX_CHECK_KIND(p.pad_width.ndim() == 2 * s.ndim(), "ValueError")
      << attrs.op->name << ": pad_width " << p.pad_width << " must have 2 entries per axis of input shape " << s;
  for (int i = 0; i < s.ndim(); ++i) {
    const dim_t b = p.pad_width[2 * i], a = p.pad_width[2 * i + 1];
    MX_CHECK_KIND(b >= 0 && a >= 0, "ValueError")
        << attrs.op->name << ": pad_width " << ParamTuple(p.pad_width) << " must be non-negative";
    if (p.mode == kPadReflect && (b > 0 || a > 0)) {
      MX_CHECK_KIND(b < s[i] && a < s[i], "ValueError")
          << attrs.op->name << ": reflect padding " << p.pad_width << " must be smaller than the padded axes of "
          << "input shape " << s;
    }
    if (p.mode == kPadEdge && (b > 0 || a > 0)) {
      MX_CHECK_KIND(s[i] > 0, "ValueError") << attrs.op->name << ": cannot edge-pad the empty axis " << i;
    }
  }
}

/*! \brief Calls fn(out_index, in_index or -1) for every output element (parallel over outputs). */
template <typename F>
void ForEachPadded(const NodeAttrs& attrs, const TShape& is, const TShape& os, F fn) {
  const auto& p = attrs.get<PadParam>();
  const int n = is.ndim();
  const PadGeometry g(p, is, os);
  ParallelFor(os.Size(), [&](int64_t e) {
    fn(e, PaddedSource(e, n, g.os.data(), g.is.data(), g.ist.data(), g.before.data(), p.mode));
  });
}

TShape PaddedShape(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<PadParam>();
  TShape o = s;
  for (int i = 0; i < s.ndim(); ++i) o[i] += p.pad_width[2 * i] + p.pad_width[2 * i + 1];
  return o;
}

void PadForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const double cv = attrs.get<PadParam>().constant_value;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const DType value = CastValue<double, DType>(cv);
    ForEachPadded(attrs, in[0].shape_, out[0].shape_,
                  [&](int64_t e, int64_t src) { Store(y + e, req[0], src < 0 ? value : x[src]); });
  });
}

/*! \brief Inputs (ograd, data). Several outputs can read one input (edge/reflect), so the adds run serially. */
void PadBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape &is = in[1].shape_, &os = in[0].shape_;
  std::vector<int64_t> src(static_cast<size_t>(os.Size()));
  ForEachPadded(attrs, is, os, [&](int64_t e, int64_t s) { src[e] = s; });
  ZeroForReq(out[0], req[0]);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    for (int64_t e = 0; e < os.Size(); ++e)
      if (src[e] >= 0) Store(d + src[e], kAddTo, g[e]);
  });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(Pad)
        .add_alias("pad")
        .describe(
            "Pads an input array with a constant or edge values of the array (constant, edge, reflect "
            "modes); pad_width gives (before, after) widths for every axis.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "An n-dimensional input array.")
        .add_arguments(PadParam::__FIELDS__())
        .set_attr_parser(ParamParser<PadParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          CheckPad(attrs, (*in)[0]);
          AssignShape(attrs, &(*out)[0], PaddedShape(attrs, (*in)[0]), "output", 0);
          return true;
        })
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, PadForward)
        .set_gradient(GradWithData("_backward_Pad"));
    MXNET_REGISTER_OP_FAMILY(_backward_Pad, BackwardWithData,
                             "Gradient of Pad: each output gradient is added to the input element it was read from.",
                             PadBackward)
        .add_arguments(PadParam::__FIELDS__())
        .set_attr_parser(ParamParser<PadParam>);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
