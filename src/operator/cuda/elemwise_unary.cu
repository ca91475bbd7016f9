/*!
 * \file elemwise_unary.cu
 * \brief CUDA kernels of the element-wise unary ops and their `_backward_` ops: one launch per
 *        row of MXNET_UNARY_MATH_OPS, computing in the same types as the CPU kernels
 *        (elemwise_unary.cc) with the same functors.
 */
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/unary_functors.h"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {

template <typename OP>
void UnaryForward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = std::conditional_t<kIntegerClosed<OP>, compute_t<DType>, real_compute_t<DType>>;
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) { StoreReq(y + i, r, OP::Fwd(static_cast<C>(x[i]))); });
  });
}

/*! \brief inputs (ograd, x) -> ograd * f'(x). */
template <typename OP>
void UnaryBackward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) {
      StoreReq(dx + i, r, C(static_cast<C>(g[i]) * OP::Grad(static_cast<C>(x[i]))));
    });
  });
}

}  // namespace cuda

#define MXNET_CUDA_UNARY(name, fwd, grad) \
  MXNET_REGISTER_KERNEL(name, kGPU, cuda).set_compute(cuda::UnaryForward<unary::name>);
MXNET_UNARY_MATH_OPS(MXNET_CUDA_UNARY)
#undef MXNET_CUDA_UNARY

// The rows with a gradient (elemwise_unary.cc registers no `_backward_` op for sign, the
// rounding ops and logical_not: their gradient is zero).
#define MXNET_CUDA_UNARY_BACKWARD(name) \
  MXNET_REGISTER_KERNEL(_backward_##name, kGPU, cuda).set_compute(cuda::UnaryBackward<unary::name>);
MXNET_CUDA_UNARY_BACKWARD(abs)
MXNET_CUDA_UNARY_BACKWARD(negative)
MXNET_CUDA_UNARY_BACKWARD(reciprocal)
MXNET_CUDA_UNARY_BACKWARD(square)
MXNET_CUDA_UNARY_BACKWARD(sqrt)
MXNET_CUDA_UNARY_BACKWARD(rsqrt)
MXNET_CUDA_UNARY_BACKWARD(cbrt)
MXNET_CUDA_UNARY_BACKWARD(rcbrt)
MXNET_CUDA_UNARY_BACKWARD(exp)
MXNET_CUDA_UNARY_BACKWARD(expm1)
MXNET_CUDA_UNARY_BACKWARD(log)
MXNET_CUDA_UNARY_BACKWARD(log1p)
MXNET_CUDA_UNARY_BACKWARD(log2)
MXNET_CUDA_UNARY_BACKWARD(log10)
MXNET_CUDA_UNARY_BACKWARD(sin)
MXNET_CUDA_UNARY_BACKWARD(cos)
MXNET_CUDA_UNARY_BACKWARD(tan)
MXNET_CUDA_UNARY_BACKWARD(arcsin)
MXNET_CUDA_UNARY_BACKWARD(arccos)
MXNET_CUDA_UNARY_BACKWARD(arctan)
MXNET_CUDA_UNARY_BACKWARD(sinh)
MXNET_CUDA_UNARY_BACKWARD(cosh)
MXNET_CUDA_UNARY_BACKWARD(tanh)
MXNET_CUDA_UNARY_BACKWARD(arcsinh)
MXNET_CUDA_UNARY_BACKWARD(arccosh)
MXNET_CUDA_UNARY_BACKWARD(arctanh)
MXNET_CUDA_UNARY_BACKWARD(degrees)
MXNET_CUDA_UNARY_BACKWARD(radians)
MXNET_CUDA_UNARY_BACKWARD(sigmoid)
MXNET_CUDA_UNARY_BACKWARD(relu)
MXNET_CUDA_UNARY_BACKWARD(softsign)
MXNET_CUDA_UNARY_BACKWARD(erf)
MXNET_CUDA_UNARY_BACKWARD(erfinv)
MXNET_CUDA_UNARY_BACKWARD(gamma)
MXNET_CUDA_UNARY_BACKWARD(gammaln)
#undef MXNET_CUDA_UNARY_BACKWARD

}  // namespace op
}  // namespace mxnet
