/*!
 * \file concat_split.cu
 * \brief CUDA kernels of joining and splitting along an axis: Concat, _backward_Concat, stack,
 *        SliceChannel (concat_stack.cc), _split_v2 and _backward_split_v2 (split_v2.cc). As on
 *        the CPU (join_split.h) every array is viewed as (outer, mid, inner) around the axis;
 *        each piece moves to or from its columns of the joined rows in one launch.
 */
#include <limits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/concat_param.h"
#include "operator/tensor/split_v2.h"
#include "operator/tensor/stack_split_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief One piece: `outer` rows of `len` elements, at element `at` of each joined row of `row` elements. */
struct Piece {
  void* ptr;
  int64_t len, at;
  OpReqType req;
};

template <typename I, typename T>
void MovePiece(cudaStream_t s, bool join, T* piece, T* joined, I len, I row, I at, int64_t outer, OpReqType req) {
  ForEach(s, outer * len, [=] __device__(int64_t i) {
    const I k = static_cast<I>(i), o = k / len;
    T* p = piece + k;
    T* w = joined + (o * row + at + (k - o * len));
    if (join) {
      Store(w, req, *p);
    } else {
      Store(p, req, *w);
    }
  });
}

/*! \brief Moves every piece between its (outer x len) array and the joined (outer x row) array. */
template <typename T>
void MovePieces(cudaStream_t s, bool join, const std::vector<Piece>& pieces, T* joined, int64_t outer, int64_t row) {
  const bool small = outer * row <= std::numeric_limits<int32_t>::max();
  for (const Piece& pc : pieces) {
    if (pc.req == kNullOp || pc.len == 0 || outer == 0) continue;
    T* piece = static_cast<T*>(pc.ptr);
    if (outer == 1 && pc.req != kAddTo) {  // one contiguous block
      T* dst = join ? joined + pc.at : piece;
      const T* src = join ? piece : joined + pc.at;
      Check(cudaMemcpyAsync(dst, src, pc.len * sizeof(T), cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
    } else if (small) {
      MovePiece<int32_t>(s, join, piece, joined, static_cast<int32_t>(pc.len), static_cast<int32_t>(row),
                         static_cast<int32_t>(pc.at), outer, pc.req);
    } else {
      MovePiece<int64_t>(s, join, piece, joined, pc.len, row, pc.at, outer, pc.req);
    }
  }
}

/*! \brief Pieces of mids[i] * inner elements per row, packed one after another in the joined row. */
std::vector<Piece> PackedPieces(const std::vector<TBlob>& blobs, const std::vector<int64_t>& mids, int64_t inner,
                                const std::vector<OpReqType>& req, int64_t* row) {
  std::vector<Piece> pieces;
  *row = 0;
  for (size_t i = 0; i < blobs.size(); ++i) {
    pieces.push_back({blobs[i].dptr_, mids[i] * inner, *row, req.size() == 1 ? req[0] : req[i]});
    *row += mids[i] * inner;
  }
  return pieces;
}

/*! \brief Joins `in` along `axis` of `out` (stack: new_axis, every mid 1), as JoinCompute. */
void JoinCompute(cudaStream_t s, const std::vector<TBlob>& in, const TBlob& out, int axis, bool new_axis,
                 OpReqType req) {
  if (req == kNullOp) return;
  const int64_t outer = out.shape_.ProdShape(0, axis);
  const int64_t inner = out.shape_.ProdShape(axis + 1, out.ndim());
  std::vector<int64_t> mids;
  for (const auto& b : in) mids.push_back(new_axis ? 1 : b.shape_[axis]);
  int64_t row;
  const std::vector<Piece> pieces = PackedPieces(in, mids, inner, {req}, &row);
  MXNET_TYPE_SWITCH(out.type_flag_, DType, { MovePieces(s, true, pieces, out.dptr<DType>(), outer, row); });
}

/*! \brief Splits `in` along `axis` into `out` of mids[i] each, as SplitCompute. */
void SplitCompute(cudaStream_t s, const TBlob& in, const std::vector<TBlob>& out, int axis,
                  const std::vector<int64_t>& mids, const std::vector<OpReqType>& req) {
  const int64_t outer = in.shape_.ProdShape(0, axis);
  const int64_t inner = in.shape_.ProdShape(axis + 1, in.ndim());
  int64_t row;
  const std::vector<Piece> pieces = PackedPieces(out, mids, inner, req, &row);
  MXNET_TYPE_SWITCH(in.type_flag_, DType, { MovePieces(s, false, pieces, static_cast<DType*>(in.dptr_), outer, row); });
}

void ConcatForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  JoinCompute(Stream(ctx), in, out[0], ConcatAxis(attrs, out[0].shape_), false, req[0]);
}

/*! \brief Inputs (ograd, data_0..data_{n-1}); gradient pieces shaped like the data. */
void ConcatBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int axis = CheckAxis(attrs, attrs.get<ConcatParam>().dim, in[0].shape_, "dim");
  std::vector<int64_t> mids;
  for (const auto& b : out) mids.push_back(b.shape_[axis]);
  SplitCompute(Stream(ctx), in[0], out, axis, mids, req);
}

void StackForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  JoinCompute(Stream(ctx), in, out[0], StackAxis(attrs, in[0].shape_), true, req[0]);
}

void SplitForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<SliceChannelParam>();
  const int axis = CheckAxis(attrs, p.axis, in[0].shape_);
  SplitCompute(Stream(ctx), in[0], out, axis, std::vector<int64_t>(out.size(), in[0].shape_[axis] / p.num_outputs),
               req);
}

/*!
 * \brief _split_v2's move between the whole array (outer x length x inner) and the pieces at
 *        SplitV2Bounds; to_whole (the gradient) also zeroes each row before the first piece under kWriteTo.
 */
void SplitV2Move(const NodeAttrs& attrs, cudaStream_t s, bool to_whole, const TBlob& whole,
                 const std::vector<TBlob>& pieces, const std::vector<OpReqType>& req) {
  const int axis = CheckAxis(attrs, attrs.get<SplitV2Param>().axis, whole.shape_);
  const AxisView v = ViewAround(whole.shape_, axis);
  const std::vector<dim_t> b = SplitV2Bounds(attrs, v.mid);
  std::vector<Piece> ps;
  for (size_t i = 0; i < pieces.size(); ++i)
    ps.push_back({pieces[i].dptr_, (b[i + 1] - b[i]) * v.inner, b[i] * v.inner, to_whole ? req[0] : req[i]});
  const int64_t row = b.back() * v.inner, lead = b[0] * v.inner;
  MXNET_TYPE_SWITCH(whole.type_flag_, T, {
    T* w = whole.dptr<T>();
    if (to_whole && req[0] == kWriteTo && lead > 0 && v.outer > 0) {
      ForEach(s, v.outer * lead, [=] __device__(int64_t i) { w[i / lead * row + i % lead] = static_cast<T>(0.0f); });
    }
    MovePieces(s, to_whole, ps, w, v.outer, row);
  });
}

void SplitV2Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SplitV2Move(attrs, Stream(ctx), false, in[0], out, req);
}

void SplitV2Backward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SplitV2Move(attrs, Stream(ctx), true, out[0], in, req);
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(Concat, kGPU, cuda).set_compute(cuda::ConcatForward);
MXNET_REGISTER_KERNEL(_backward_Concat, kGPU, cuda).set_compute(cuda::ConcatBackward);
MXNET_REGISTER_KERNEL(stack, kGPU, cuda).set_compute(cuda::StackForward);
MXNET_REGISTER_KERNEL(SliceChannel, kGPU, cuda).set_compute(cuda::SplitForward);
MXNET_REGISTER_KERNEL(_split_v2, kGPU, cuda).set_compute(cuda::SplitV2Forward);
MXNET_REGISTER_KERNEL(_backward_split_v2, kGPU, cuda).set_compute(cuda::SplitV2Backward);

}  // namespace op
}  // namespace mxnet
