/*!
 * \file binary_scalar.cu
 * \brief CUDA kernels of the array-scalar ops (_plus_scalar, _rminus_scalar, _power_scalar,
 *        _equal_scalar, ...) and their `_backward_` ops, reading the scalar and converting it
 *        as binary_scalar.cc does: math::ScalarAs in compute_t for the forward (an integer
 *        array takes the scalar truncated and saturated), a plain cast to real_compute_t for
 *        the gradient.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/binary_scalar_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace binary_scalar {

/*! \brief f(x, scalar), or f(scalar, x) when kReverse. */
template <typename OP, bool kReverse>
void Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const double s = attrs.get<ScalarOpParam>().scalar;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const C cs = math::ScalarAs<C>(s);
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) {
      const C v = static_cast<C>(x[i]);
      Store(y + i, r, kReverse ? OP::Fwd(cs, v) : OP::Fwd(v, cs));
    });
  });
}

/*! \brief (ograd, x) -> ograd * d/dx of the forward. */
template <typename OP, bool kReverse>
void Backward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const double s = attrs.get<ScalarOpParam>().scalar;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const C cs = static_cast<C>(s);
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) {
      const C gv = static_cast<C>(g[i]), xv = static_cast<C>(x[i]);
      Store(dx + i, r, C(gv * (kReverse ? OP::RGrad(cs, xv) : OP::LGrad(xv, cs))));
    });
  });
}

}  // namespace binary_scalar
}  // namespace cuda

#define MXNET_CUDA_SCALAR(op_name, row, reverse)                                                          \
  MXNET_REGISTER_KERNEL(op_name, kGPU, cuda).set_compute(cuda::binary_scalar::Forward<binary::row, reverse>); \
  MXNET_REGISTER_KERNEL(_backward##op_name, kGPU, cuda)                                                  \
      .set_compute(cuda::binary_scalar::Backward<binary::row, reverse>);
MXNET_CUDA_SCALAR(_plus_scalar, add, false)
MXNET_CUDA_SCALAR(_minus_scalar, sub, false)
MXNET_CUDA_SCALAR(_rminus_scalar, sub, true)
MXNET_CUDA_SCALAR(_mul_scalar, mul, false)
MXNET_CUDA_SCALAR(_div_scalar, div, false)
MXNET_CUDA_SCALAR(_rdiv_scalar, div, true)
MXNET_CUDA_SCALAR(_mod_scalar, mod, false)
MXNET_CUDA_SCALAR(_rmod_scalar, mod, true)
MXNET_CUDA_SCALAR(_power_scalar, power, false)
MXNET_CUDA_SCALAR(_rpower_scalar, power, true)
MXNET_CUDA_SCALAR(_maximum_scalar, maximum, false)
MXNET_CUDA_SCALAR(_minimum_scalar, minimum, false)
MXNET_CUDA_SCALAR(_hypot_scalar, hypot, false)
#undef MXNET_CUDA_SCALAR

// Comparisons and logical ops with a scalar: 1 or 0, no gradient op.
#define MXNET_CUDA_SCALAR_COMPARISON(op_name, row) \
  MXNET_REGISTER_KERNEL(op_name, kGPU, cuda).set_compute(cuda::binary_scalar::Forward<binary::row, false>);
MXNET_CUDA_SCALAR_COMPARISON(_equal_scalar, equal)
MXNET_CUDA_SCALAR_COMPARISON(_not_equal_scalar, not_equal)
MXNET_CUDA_SCALAR_COMPARISON(_greater_scalar, greater)
MXNET_CUDA_SCALAR_COMPARISON(_greater_equal_scalar, greater_equal)
MXNET_CUDA_SCALAR_COMPARISON(_lesser_scalar, lesser)
MXNET_CUDA_SCALAR_COMPARISON(_lesser_equal_scalar, lesser_equal)
MXNET_CUDA_SCALAR_COMPARISON(_logical_and_scalar, logical_and)
MXNET_CUDA_SCALAR_COMPARISON(_logical_or_scalar, logical_or)
MXNET_CUDA_SCALAR_COMPARISON(_logical_xor_scalar, logical_xor)
#undef MXNET_CUDA_SCALAR_COMPARISON

}  // namespace op
}  // namespace mxnet
