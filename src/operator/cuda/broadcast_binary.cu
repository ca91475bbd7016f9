/*!
 * \file broadcast_binary.cu
 * \brief CUDA kernels of broadcast_add ... broadcast_logical_xor and of the arithmetic rows'
 *        `_backward_broadcast_*` ops, in the compute types of broadcast_binary.cc: the forward in
 *        compute_t, the gradients in real_compute_t, each summed over its input's broadcast axes
 *        in that type (float for half types) by broadcast_reduce.cuh without a stored temporary.
 */
#include <algorithm>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/broadcast_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {
namespace broadcast_binary {

template <typename OP>
void Forward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
             const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const TShape& as = in[0].shape_;
    const TShape& bs = in[1].shape_;
    const TShape& os = out[0].shape_;
    const DType* a = in[0].dptr<DType>();
    const DType* b = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    if (as == os && bs == os) {
      ForEach(Stream(ctx), os.Size(), [=] __device__(int64_t i) {
        Store(y + i, r, OP::Fwd(static_cast<C>(a[i]), static_cast<C>(b[i])));
      });
      return;
    }
    // Each element reads only its own position of an input that has the output's shape, so
    // the output may alias such an input.
    const bcast::Walk<2> w = bcast::ToWalk<2>(MakeBroadcastPlan({as, bs}, os));
    ForEach(Stream(ctx), os.Size(), [=] __device__(int64_t i) {
      int64_t off[2] = {0, 0};
      w.AddOffsets(i, off);
      Store(y + i, r, OP::Fwd(static_cast<C>(a[off[0]]), static_cast<C>(b[off[1]])));
    });
  });
}

/*! \brief (ograd, a, b) -> (grad a, grad b), each summed to its input's shape. */
template <typename OP>
void Backward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
              const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const TShape& os = in[0].shape_;
    const DType* g = in[0].dptr<DType>();
    const DType* a = in[1].dptr<DType>();
    const DType* b = in[2].dptr<DType>();
    cudaStream_t stream = Stream(ctx);
    if (in[1].shape_ == os && in[2].shape_ == os) {  // nothing to sum
      const int64_t n = os.Size();
      if (req[0] != kNullOp) {
        DType* da = out[0].dptr<DType>();
        const OpReqType r = req[0];
        ForEach(stream, n, [=] __device__(int64_t i) {
          Store(da + i, r, C(static_cast<C>(g[i]) * OP::LGrad(static_cast<C>(a[i]), static_cast<C>(b[i]))));
        });
      }
      if (req[1] != kNullOp) {
        DType* db = out[1].dptr<DType>();
        const OpReqType r = req[1];
        ForEach(stream, n, [=] __device__(int64_t i) {
          Store(db + i, r, C(static_cast<C>(g[i]) * OP::RGrad(static_cast<C>(a[i]), static_cast<C>(b[i]))));
        });
      }
      return;
    }
    const std::vector<TShape> shapes{os, in[1].shape_, in[2].shape_};
    bcast::ReduceWalk<3> plan[2];
    size_t bytes = 0;
    for (int side = 0; side < 2; ++side) {
      if (req[side] == kNullOp) continue;
      plan[side] = bcast::MakeReduceWalk<3>(os, shapes, bcast::SummedDims(os, out[side].shape_));
      bytes = std::max(bytes, bcast::SumScratchBytes<C>(plan[side]));
    }
    // One scratch block for both sums: the stream runs them one after the other.
    C* partial = bytes ? static_cast<C*>(ctx.requested[0].GetSpace(bytes)) : nullptr;
    if (req[0] != kNullOp) {
      bcast::Sum<C>(
          stream, plan[0],
          [=] __device__(const int64_t* off) {
            return C(static_cast<C>(g[off[0]]) * OP::LGrad(static_cast<C>(a[off[1]]), static_cast<C>(b[off[2]])));
          },
          out[0].dptr<DType>(), req[0], partial);
    }
    if (req[1] != kNullOp) {
      bcast::Sum<C>(
          stream, plan[1],
          [=] __device__(const int64_t* off) {
            return C(static_cast<C>(g[off[0]]) * OP::RGrad(static_cast<C>(a[off[1]]), static_cast<C>(b[off[2]])));
          },
          out[1].dptr<DType>(), req[1], partial);
    }
  });
}

}  // namespace broadcast_binary
}  // namespace cuda

#define MXNET_CUDA_BROADCAST_BINARY(row)                                                                   \
  MXNET_REGISTER_KERNEL(broadcast_##row, kGPU, cuda).set_compute(cuda::broadcast_binary::Forward<binary::row>); \
  MXNET_REGISTER_KERNEL(_backward_broadcast_##row, kGPU, cuda)                                             \
      .set_compute(cuda::broadcast_binary::Backward<binary::row>);
MXNET_CUDA_BROADCAST_BINARY(add)
MXNET_CUDA_BROADCAST_BINARY(sub)
MXNET_CUDA_BROADCAST_BINARY(mul)
MXNET_CUDA_BROADCAST_BINARY(div)
MXNET_CUDA_BROADCAST_BINARY(mod)
MXNET_CUDA_BROADCAST_BINARY(power)
MXNET_CUDA_BROADCAST_BINARY(maximum)
MXNET_CUDA_BROADCAST_BINARY(minimum)
MXNET_CUDA_BROADCAST_BINARY(hypot)
#undef MXNET_CUDA_BROADCAST_BINARY

// Comparisons and logical ops: 1 or 0, no gradient op.
#define MXNET_CUDA_BROADCAST_COMPARISON(row) \
  MXNET_REGISTER_KERNEL(broadcast_##row, kGPU, cuda).set_compute(cuda::broadcast_binary::Forward<binary::row>);
MXNET_CUDA_BROADCAST_COMPARISON(equal)
MXNET_CUDA_BROADCAST_COMPARISON(not_equal)
MXNET_CUDA_BROADCAST_COMPARISON(greater)
MXNET_CUDA_BROADCAST_COMPARISON(greater_equal)
MXNET_CUDA_BROADCAST_COMPARISON(lesser)
MXNET_CUDA_BROADCAST_COMPARISON(lesser_equal)
MXNET_CUDA_BROADCAST_COMPARISON(logical_and)
MXNET_CUDA_BROADCAST_COMPARISON(logical_or)
MXNET_CUDA_BROADCAST_COMPARISON(logical_xor)
#undef MXNET_CUDA_BROADCAST_COMPARISON

}  // namespace op
}  // namespace mxnet
