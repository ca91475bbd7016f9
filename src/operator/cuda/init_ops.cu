/*!
 * \file init_ops.cu
 * \brief CUDA kernels of the array-creation ops (init_ops.cc: _zeros, _ones, _full, _empty,
 *        _arange, _linspace, _eye). Element i takes the value the CPU kernel computes (the
 *        formulas of init_param.h), converted to the output dtype once.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/init_param.h"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief y[i] = DType(f(i)) under req; f returns double, as on the CPU. */
template <typename F>
void FillWith(const OpContext& ctx, const TBlob& out, OpReqType req, F f) {
  if (req == kNullOp) return;
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    DType* y = out.dptr<DType>();
    ForEach(Stream(ctx), out.Size(), [=] __device__(int64_t i) { StoreReq(y + i, req, static_cast<DType>(f(i))); });
  });
}

struct ConstantValue {
  double v;
  MXNET_XINLINE double operator()(int64_t) const { return v; }
};

void FillConstant(const OpContext& ctx, const TBlob& out, OpReqType req, double v) {
  if (v == 0.0 && req != kAddTo && req != kNullOp) {
    // All-zero bits are zero for every dtype.
    Check(cudaMemsetAsync(out.dptr_, 0, out.Bytes(), Stream(ctx)), "zero fill");
    return;
  }
  FillWith(ctx, out, req, ConstantValue{v});
}

template <int kValue>
void ConstantCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>&,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillConstant(ctx, out[0], req[0], kValue);
}

void FullCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillConstant(ctx, out[0], req[0], attrs.get<FullParam>().value);
}

// _empty leaves memory as allocated, as on the CPU.
void EmptyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>&,
                  const std::vector<TBlob>&) {}

void RangeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillWith(ctx, out[0], req[0], RangeValue(attrs.get<RangeParam>()));
}

void LinspaceCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillWith(ctx, out[0], req[0], LinspaceValue(attrs.get<LinspaceParam>()));
}

void EyeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillWith(ctx, out[0], req[0], EyeValue{out[0].shape_[1], attrs.get<EyeParam>().k});
}

}  // namespace cuda

MXNET_REGISTER_KERNEL(_zeros, kGPU, cuda).set_compute(cuda::ConstantCompute<0>);
MXNET_REGISTER_KERNEL(_ones, kGPU, cuda).set_compute(cuda::ConstantCompute<1>);
MXNET_REGISTER_KERNEL(_full, kGPU, cuda).set_compute(cuda::FullCompute);
MXNET_REGISTER_KERNEL(_empty, kGPU, cuda).set_compute(cuda::EmptyCompute);
MXNET_REGISTER_KERNEL(_arange, kGPU, cuda).set_compute(cuda::RangeCompute);
MXNET_REGISTER_KERNEL(_linspace, kGPU, cuda).set_compute(cuda::LinspaceCompute);
MXNET_REGISTER_KERNEL(_eye, kGPU, cuda).set_compute(cuda::EyeCompute);
// zeros_like / ones_like are elemwise_basic.cc's ops: their CUDA kernels are in elemwise_misc.cu.

}  // namespace op
}  // namespace mxnet
