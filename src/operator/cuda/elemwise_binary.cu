/*!
 * \file elemwise_binary.cu
 * \brief CUDA kernels of the same-shape binary ops (elemwise_sub ... _logical_xor) and their
 *        `_backward_` ops: one launch per row of MXNET_BINARY_MATH_OPS, in the compute types of
 *        the CPU kernels (elemwise_binary.cc) with the same functors.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {
namespace elemwise_binary {

/*! \brief out = OP::Fwd(a, b) in compute_t (integers in their own type, as the CPU). */
template <typename OP>
void Forward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
             const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const DType* a = in[0].dptr<DType>();
    const DType* b = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) {
      Store(y + i, r, OP::Fwd(static_cast<C>(a[i]), static_cast<C>(b[i])));
    });
  });
}

/*! \brief (ograd, a, b) -> (ograd * d/da, ograd * d/db) in real_compute_t. */
template <typename OP>
void Backward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
              const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    const DType* a = in[1].dptr<DType>();
    const DType* b = in[2].dptr<DType>();
    const int64_t n = in[0].Size();
    if (req[0] != kNullOp) {
      DType* da = out[0].dptr<DType>();
      const OpReqType r = req[0];
      ForEach(Stream(ctx), n, [=] __device__(int64_t i) {
        Store(da + i, r, C(static_cast<C>(g[i]) * OP::LGrad(static_cast<C>(a[i]), static_cast<C>(b[i]))));
      });
    }
    if (req[1] != kNullOp) {
      DType* db = out[1].dptr<DType>();
      const OpReqType r = req[1];
      ForEach(Stream(ctx), n, [=] __device__(int64_t i) {
        Store(db + i, r, C(static_cast<C>(g[i]) * OP::RGrad(static_cast<C>(a[i]), static_cast<C>(b[i]))));
      });
    }
  });
}

}  // namespace elemwise_binary
}  // namespace cuda

#define MXNET_CUDA_ELEMWISE_BINARY(op_name, row, backward_name)                                   \
  MXNET_REGISTER_KERNEL(op_name, kGPU, cuda).set_compute(cuda::elemwise_binary::Forward<binary::row>); \
  MXNET_REGISTER_KERNEL(backward_name, kGPU, cuda).set_compute(cuda::elemwise_binary::Backward<binary::row>);
MXNET_CUDA_ELEMWISE_BINARY(elemwise_sub, sub, _backward_elemwise_sub)
MXNET_CUDA_ELEMWISE_BINARY(elemwise_mul, mul, _backward_elemwise_mul)
MXNET_CUDA_ELEMWISE_BINARY(elemwise_div, div, _backward_elemwise_div)
MXNET_CUDA_ELEMWISE_BINARY(_mod, mod, _backward_mod)
MXNET_CUDA_ELEMWISE_BINARY(_power, power, _backward_power)
MXNET_CUDA_ELEMWISE_BINARY(_maximum, maximum, _backward_maximum)
MXNET_CUDA_ELEMWISE_BINARY(_minimum, minimum, _backward_minimum)
MXNET_CUDA_ELEMWISE_BINARY(_hypot, hypot, _backward_hypot)
#undef MXNET_CUDA_ELEMWISE_BINARY

// Comparisons and logical ops: 1 or 0, no gradient op. (elemwise_add is in elemwise_misc.cu.)
#define MXNET_CUDA_ELEMWISE_COMPARISON(op_name, row) \
  MXNET_REGISTER_KERNEL(op_name, kGPU, cuda).set_compute(cuda::elemwise_binary::Forward<binary::row>);
MXNET_CUDA_ELEMWISE_COMPARISON(_equal, equal)
MXNET_CUDA_ELEMWISE_COMPARISON(_not_equal, not_equal)
MXNET_CUDA_ELEMWISE_COMPARISON(_greater, greater)
MXNET_CUDA_ELEMWISE_COMPARISON(_greater_equal, greater_equal)
MXNET_CUDA_ELEMWISE_COMPARISON(_lesser, lesser)
MXNET_CUDA_ELEMWISE_COMPARISON(_lesser_equal, lesser_equal)
MXNET_CUDA_ELEMWISE_COMPARISON(_logical_and, logical_and)
MXNET_CUDA_ELEMWISE_COMPARISON(_logical_or, logical_or)
MXNET_CUDA_ELEMWISE_COMPARISON(_logical_xor, logical_xor)
#undef MXNET_CUDA_ELEMWISE_COMPARISON

}  // namespace op
}  // namespace mxnet
