/*!
 * \file deconvolution.cu
 * \brief CUDA kernels of Deconvolution and _backward_Deconvolution (nn/deconvolution.cc): the
 *        convolution that Deconvolution transposes (nn/conv_param.h's MakeDeconvSetup, with
 *        adj and target_shape already resolved into its geometry) run by conv_gemm.cuh with
 *        forward and backward-data swapped: the forward is that convolution's backward-data
 *        pass (GEMM + col2im gather, bias added per output channel), the data gradient its
 *        forward, the weight gradient its weight gradient with data and ograd exchanged.
 *        The plain GPU entry (rank 100); a cuDNN entry may rank before it.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/conv_gemm.cuh"
#include "operator/nn/conv_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief inputs (data, weight [, bias]); output (out): data has g.F channels, out g.C. */
void DeconvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<DeconvolutionParam>();
  const int dtype = in[0].type_flag_;
  conv::CheckConvDType(dtype, "Deconvolution");
  const DeconvSetup st = MakeDeconvSetup(attrs, in[0].shape_);
  conv::ConvJob j;
  j.b_in = &in[0];
  j.w = &in[1];
  j.a_bias = p.no_bias ? nullptr : &in[2];
  j.a_out = &out[0];
  j.a_req = req[0];
  j.what = "Deconvolution";
  MXNET_REAL_TYPE_SWITCH(dtype, D, { conv::RunConvJob<D>(ctx, st.g, st.cl, p.workspace, j); });
}

/*! \brief inputs (ograd, data, weight); outputs (ddata, dweight [, dbias]). */
void DeconvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DeconvolutionParam>();
  const int dtype = in[1].type_flag_;
  conv::CheckConvDType(dtype, "_backward_Deconvolution");
  const DeconvSetup st = MakeDeconvSetup(attrs, in[1].shape_);
  conv::ConvJob j;
  j.a_in = &in[0];
  j.b_in = &in[1];
  j.w = &in[2];
  j.b_out = &out[0];
  j.b_req = req[0];
  j.w_out = &out[1];
  j.w_req = req[1];
  if (!p.no_bias) {
    j.bias_out = &out[2];
    j.bias_req = req[2];
    j.bias_of_a = true;
  }
  j.what = "_backward_Deconvolution";
  MXNET_REAL_TYPE_SWITCH(dtype, D, { conv::RunConvJob<D>(ctx, st.g, st.cl, p.workspace, j); });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(Deconvolution, kGPU, cuda).set_rank(100).set_compute(cuda::DeconvForward);
MXNET_REGISTER_KERNEL(_backward_Deconvolution, kGPU, cuda).set_rank(100).set_compute(cuda::DeconvBackward);

}  // namespace op
}  // namespace mxnet
