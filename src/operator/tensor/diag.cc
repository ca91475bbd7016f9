/*!
 * \file diag.cc
 * \brief diag and _backward_diag. A 1-D input becomes a square matrix with the input on
 *        diagonal k; an N-D input (N >= 2) gives its k-th diagonal over (axis1, axis2) as a
 *        new last axis. The diagonal is a strided walk, so the gradient is the same walk
 *        run the other way.
 */
#include <algorithm>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/backward_with_data.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/diag.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(DiagParam);

namespace {

TShape DiagShape(const NodeAttrs& attrs, const TShape& s) {
  MX_CHECK_KIND(s.ndim() >= 1, "ValueError") << attrs.op->name << ": input must have at least 1 dim, got " << s;
  if (s.ndim() == 1) {
    const int64_t k = attrs.get<DiagParam>().k, m = s[0] + (k < 0 ? -k : k);
    return TShape{m, m};
  }
  return TShape(PlanDiag(attrs, s).shape);
}

void DiagForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    if (in[0].ndim() == 1) {
      const DiagWalk w = PlanMatrix(attrs, in[0].shape_[0]);
      ZeroForReq(out[0], req[0]);
      StridedScatter(w.shape, w.stride, w.offset, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0] == kAddTo);
    } else {
      const DiagWalk w = PlanDiag(attrs, in[0].shape_);
      StridedGather(w.shape, w.stride, w.offset, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
    }
  });
}

/*! \brief Inputs (ograd, data): the forward walk reversed. */
void DiagBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    if (in[1].ndim() == 1) {
      const DiagWalk w = PlanMatrix(attrs, in[1].shape_[0]);
      StridedGather(w.shape, w.stride, w.offset, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]);
    } else {
      const DiagWalk w = PlanDiag(attrs, in[1].shape_);
      ZeroForReq(out[0], req[0]);
      StridedScatter(w.shape, w.stride, w.offset, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0] == kAddTo);
    }
  });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(diag)
        .describe(
            "Extracts a diagonal or constructs a diagonal array: a 1-D input gives a 2-D array with the input "
            "on diagonal k; an N-D input gives its diagonal k over (axis1, axis2), appended as the last axis.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
        .add_arguments(DiagParam::__FIELDS__())
        .set_attr_parser(ParamParser<DiagParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          AssignShape(attrs, &(*out)[0], DiagShape(attrs, (*in)[0]), "output", 0);
          return true;
        })
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, DiagForward)
        .set_gradient(GradWithData("_backward_diag"));
    MXNET_REGISTER_OP_FAMILY(_backward_diag, BackwardWithData, "Gradient of diag.", DiagBackward)
        .add_arguments(DiagParam::__FIELDS__())
        .set_attr_parser(ParamParser<DiagParam>);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
