/*!
 * \file transpose.cu
 * \brief CUDA kernels of the ops that permute or mirror elements (shape/transpose.cc):
 *        transpose, SwapAxis, reverse, depth_to_space, space_to_depth. Each is the CPU's strided
 *        walk (the Move of shape/transpose.h) run as a device gather; their gradients are these
 *        same ops, so there are no `_backward_` ops.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/shape/transpose.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

template <Move (*MakeMove)(const NodeAttrs&, const TShape&)>
void MoveCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const Move m = MakeMove(attrs, in[0].shape_);
  const layout::Walk w = layout::MakeWalk(m.shape, m.stride, m.offset);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType,
                    { layout::StridedGather(Stream(ctx), w, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]); });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(transpose, kGPU, cuda).set_compute(cuda::MoveCompute<TransposeMove>);
MXNET_REGISTER_KERNEL(SwapAxis, kGPU, cuda).set_compute(cuda::MoveCompute<SwapMove>);
MXNET_REGISTER_KERNEL(reverse, kGPU, cuda).set_compute(cuda::MoveCompute<FlipMove>);
MXNET_REGISTER_KERNEL(depth_to_space, kGPU, cuda).set_compute(cuda::MoveCompute<DepthToSpaceMove>);
MXNET_REGISTER_KERNEL(space_to_depth, kGPU, cuda).set_compute(cuda::MoveCompute<SpaceToDepthMove>);

}  // namespace op
}  // namespace mxnet
