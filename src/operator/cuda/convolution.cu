/*!
 * \file convolution.cu
 * \brief CUDA kernels of Convolution and _backward_Convolution (nn/convolution.cc): 1-D/2-D/3-D,
 *        stride, dilation, padding, groups, bias, channel-first and channel-last layouts, in
 *        float32/float64/float16/bfloat16 (half types through cuBLAS with float32 accumulation),
 *        by im2col + cuBLAS GEMMs in batches bounded by the `workspace` parameter
 *        (conv_gemm.cuh). The plain GPU entry (rank 100); a cuDNN entry may rank before it.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/conv_gemm.cuh"
#include "operator/nn/conv_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief inputs (data, weight [, bias]); output (out). */
void ConvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<ConvolutionParam>();
  const int dtype = in[0].type_flag_;
  conv::CheckConvDType(dtype, "Convolution");
  const ConvGeom g = ConvGeomOf(attrs, in[0].shape_);
  conv::ConvJob j;
  j.a_in = &in[0];
  j.w = &in[1];
  j.b_bias = p.no_bias ? nullptr : &in[2];
  j.b_out = &out[0];
  j.b_req = req[0];
  j.what = "Convolution";
  MXNET_REAL_TYPE_SWITCH(dtype, D, { conv::RunConvJob<D>(ctx, g, ChannelLast(p.layout), p.workspace, j); });
}

/*! \brief inputs (ograd, data, weight); outputs (ddata, dweight [, dbias]). */
void ConvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<ConvolutionParam>();
  const int dtype = in[1].type_flag_;
  conv::CheckConvDType(dtype, "_backward_Convolution");
  const ConvGeom g = ConvGeomOf(attrs, in[1].shape_);
  conv::ConvJob j;
  j.b_in = &in[0];
  j.a_in = &in[1];
  j.w = &in[2];
  j.a_out = &out[0];
  j.a_req = req[0];
  j.w_out = &out[1];
  j.w_req = req[1];
  if (!p.no_bias) {
    j.bias_out = &out[2];
    j.bias_req = req[2];
  }
  j.what = "_backward_Convolution";
  MXNET_REAL_TYPE_SWITCH(dtype, D, { conv::RunConvJob<D>(ctx, g, ChannelLast(p.layout), p.workspace, j); });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(Convolution, kGPU, cuda).set_rank(100).set_compute(cuda::ConvForward);
MXNET_REGISTER_KERNEL(_backward_Convolution, kGPU, cuda).set_rank(100).set_compute(cuda::ConvBackward);

}  // namespace op
}  // namespace mxnet
