/*!
 * \file elemwise_basic.cc
 * \brief The ops the runtime itself relies on: elemwise_add (gradient accumulation),
 *        _copy/identity (copies between arrays), zeros_like/ones_like (zero gradients and
 *        default head gradients).
 */
#include <cstring>

#include "mxnet/op.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

void AddCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    const DType* b = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ParallelFor(out[0].Size(), [=](int64_t i) { AssignReq(&y[i], r, a[i] + b[i]); });
  });
}

void CopyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].dptr_ == out[0].dptr_) return;
  if (req[0] != kAddTo) {
    std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
    return;
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(out[0].Size(), [=](int64_t i) { AssignReq(&y[i], kAddTo, x[i]); });
  });
}

template <int kValue>
void FillCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (kValue == 0 && req[0] != kAddTo) {
    std::memset(out[0].dptr_, 0, out[0].Bytes());
    return;
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ParallelFor(out[0].Size(), [=](int64_t i) { AssignReq(&y[i], r, static_cast<DType>(kValue)); });
  });
}

InplacePairs FirstInPlace(const NodeAttrs&) { return {{0, 0}}; }

}  // namespace

MXNET_REGISTER_OP(elemwise_add)
    .add_alias("_add")
    .add_alias("_plus")
    .add_alias("_Plus")
    .describe("Adds arguments element-wise. Both inputs must have the same shape and dtype.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("lhs", "NDArray-or-Symbol", "first input")
    .add_argument("rhs", "NDArray-or-Symbol", "second input")
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}, {1, 0}}; })
    .set_compute(Context::kCPU, AddCompute)
    .set_gradient([](const NodePtr&, const std::vector<NodeEntry>& ograds) {
      return std::vector<NodeEntry>{ograds[0], ograds[0]};
    });

MXNET_REGISTER_OP(_copy)
    .add_alias("identity")
    .describe("Returns a copy of the input.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input array.")
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_inplace_option(FirstInPlace)
    .set_inplace_identity([](const NodeAttrs&) { return std::vector<bool>{true}; })
    .set_compute(Context::kCPU, CopyCompute)
    .set_gradient([](const NodePtr&, const std::vector<NodeEntry>& ograds) { return ograds; });

MXNET_REGISTER_OP(zeros_like)
    .describe("Returns an array of zeros with the same shape, dtype and context as the input.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, FillCompute<0>)
    .set_gradient(ZeroGrads);

MXNET_REGISTER_OP(ones_like)
    .describe("Returns an array of ones with the same shape, dtype and context as the input.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, FillCompute<1>)
    .set_gradient(ZeroGrads);

}  // namespace op
}  // namespace mxnet
