/*!
 * \file slice.cu
 * \brief CUDA kernels of slice.cc: slice (crop), slice_axis, slice_like and their `_backward_`
 *        ops, _slice_assign and _slice_assign_scalar. As on the CPU every call is a per-axis
 *        range (slice.h) walked as a device gather (forward), scatter into zeros (backward,
 *        assignment) or fill (scalar assignment).
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/slice.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief The walk over an array of shape s that visits the slice r in row-major order. */
layout::Walk SliceWalk(const Ranges& r, const TShape& s) {
  std::vector<int64_t> stride;
  int64_t offset;
  RangeWalk(r, s, &stride, &offset);
  return layout::MakeWalk(r.count, stride, offset);
}

/*! \brief out = data[r]. */
void GatherRanges(cudaStream_t s, const Ranges& r, const TBlob& data, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  const layout::Walk w = SliceWalk(r, data.shape_);
  MXNET_TYPE_SWITCH(data.type_flag_, DType,
                    { layout::StridedGather(s, w, data.dptr<DType>(), out.dptr<DType>(), req); });
}

/*! \brief big[r] (+)= small, other elements of big zeroed first when zero_rest. */
void ScatterRanges(cudaStream_t s, const Ranges& r, const TBlob& small, const TBlob& big, OpReqType req,
                   bool zero_rest) {
  if (req == kNullOp) return;
  if (zero_rest) layout::ZeroForReq(s, big, req);
  const layout::Walk w = SliceWalk(r, big.shape_);
  MXNET_TYPE_SWITCH(big.type_flag_, DType,
                    { layout::StridedScatter(s, w, small.dptr<DType>(), big.dptr<DType>(), req == kAddTo); });
}

/*! \brief Copies a into out (unless in place), the first step of both slice assignments. */
void CopyUnlessInplace(cudaStream_t s, const TBlob& a, const TBlob& out, OpReqType req) {
  if (req == kWriteInplace) return;
  layout::CopyForReq(s, a, out, kWriteTo);
}

using RangeFn = Ranges (*)(const NodeAttrs&, const TShape&);

template <RangeFn F>
void RangeForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  GatherRanges(Stream(ctx), F(attrs, in[0].shape_), in[0], out[0], req[0]);
}

/*! \brief Inputs (ograd, data): ograd scattered into zeros. */
template <RangeFn F>
void RangeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  ScatterRanges(Stream(ctx), F(attrs, in[1].shape_), in[0], out[0], req[0], true);
}

void SliceLikeForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  GatherRanges(Stream(ctx), SliceLikeRanges(attrs, in[0].shape_, in[1].shape_), in[0], out[0], req[0]);
}

/*! \brief The slice of slice_like starts at 0, so its extent is the output gradient's shape. */
void SliceLikeBackward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ScatterRanges(Stream(ctx), FullRanges(in[0].shape_), in[0], out[0], req[0], true);
}

void SliceAssign(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MX_CHECK_KIND(req[0] != kAddTo, "ValueError") << attrs.op->name << ": kAddTo is not supported";
  const cudaStream_t s = Stream(ctx);
  CopyUnlessInplace(s, in[0], out[0], req[0]);
  ScatterRanges(s, SliceOpRanges(attrs, in[0].shape_), in[1], out[0], kWriteTo, false);
}

void SliceAssignScalar(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MX_CHECK_KIND(req[0] != kAddTo, "ValueError") << attrs.op->name << ": kAddTo is not supported";
  const cudaStream_t s = Stream(ctx);
  CopyUnlessInplace(s, in[0], out[0], req[0]);
  const layout::Walk w = SliceWalk(AssignScalarRanges(attrs, in[0].shape_), out[0].shape_);
  const double v = attrs.get<SliceAssignScalarParam>().scalar;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType,
                    { layout::StridedFill(s, w, CastValue<double, DType>(v), out[0].dptr<DType>()); });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(slice, kGPU, cuda).set_compute(cuda::RangeForward<SliceOpRanges>);
MXNET_REGISTER_KERNEL(_backward_slice, kGPU, cuda).set_compute(cuda::RangeBackward<SliceOpRanges>);
MXNET_REGISTER_KERNEL(slice_axis, kGPU, cuda).set_compute(cuda::RangeForward<SliceAxisRanges>);
MXNET_REGISTER_KERNEL(_backward_slice_axis, kGPU, cuda).set_compute(cuda::RangeBackward<SliceAxisRanges>);
MXNET_REGISTER_KERNEL(slice_like, kGPU, cuda).set_compute(cuda::SliceLikeForward);
MXNET_REGISTER_KERNEL(_backward_slice_like, kGPU, cuda).set_compute(cuda::SliceLikeBackward);
MXNET_REGISTER_KERNEL(_slice_assign, kGPU, cuda).set_compute(cuda::SliceAssign);
MXNET_REGISTER_KERNEL(_slice_assign_scalar, kGPU, cuda).set_compute(cuda::SliceAssignScalar);

}  // namespace op
}  // namespace mxnet
