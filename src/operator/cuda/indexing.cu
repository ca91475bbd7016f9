/*!
 * \file indexing.cu
 * \brief CUDA kernels of take_pick.cc: take (clip, wrap and raise modes), pick, and their
 *        gradients _backward_take (a scatter-add: repeated indices add up atomically) and
 *        _backward_pick (one distinct element per output gradient). Indices of any dtype are
 *        resolved on the device into scratch memory first; an out-of-range index in raise mode
 *        throws the CPU's IndexError before anything is written.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/index_util.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/take_pick.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief The indices resolved against an axis of length n, in scratch memory of ctx's first resource. */
const int64_t* DeviceIndices(const NodeAttrs& attrs, const OpContext& ctx, const TBlob& indices, int64_t n, int mode) {
  const size_t flag = layout::Words(sizeof(layout::AtomicWord));
  char* space = static_cast<char*>(ctx.requested[0].GetSpace(flag + layout::Words(indices.Size() * sizeof(int64_t))));
  auto* first_bad = reinterpret_cast<layout::AtomicWord*>(space);
  auto* idx = reinterpret_cast<int64_t*>(space + flag);
  layout::ResolveIndices(Stream(ctx), indices, n, mode, attrs.op->name.c_str(), idx, first_bad);
  return idx;
}

void TakeForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<TakeParam>();
  const AxisView v = ViewAround(in[0].shape_, CheckAxis(attrs, p.axis, in[0].shape_));
  const int64_t J = in[1].Size();
  if (J == 0) return;
  const int64_t* idx = DeviceIndices(attrs, ctx, in[1], v.mid, p.mode);
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEach(Stream(ctx), v.outer * J * v.inner, [=] __device__(int64_t e) {
      const int64_t row = e / v.inner, i = e - row * v.inner, oi = row / J, j = row - oi * J;
      Store(o + e, r, a[(oi * v.mid + idx[j]) * v.inner + i]);
    });
  });
}

/*! \brief Inputs (ograd, indices, data): each output-gradient slice added to the row it came from. */
void TakeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<TakeParam>();
  const AxisView v = ViewAround(in[2].shape_, CheckAxis(attrs, p.axis, in[2].shape_));
  const int64_t J = in[1].Size();
  const int64_t* idx = J > 0 ? DeviceIndices(attrs, ctx, in[1], v.mid, p.mode) : nullptr;
  layout::ZeroForReq(Stream(ctx), out[0], req[0]);
  if (J == 0) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    ForEach(Stream(ctx), v.outer * J * v.inner, [=] __device__(int64_t e) {
      const int64_t row = e / v.inner, i = e - row * v.inner, oi = row / J, j = row - oi * J;
      layout::AtomicAdd(d + (oi * v.mid + idx[j]) * v.inner + i, g[e]);
    });
  });
}

void PickForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<PickParam>();
  const AxisView v = ViewAround(in[0].shape_, PickAxis(attrs, in[0].shape_));
  if (in[1].Size() == 0) return;
  const int64_t* idx = DeviceIndices(attrs, ctx, in[1], v.mid, p.mode);
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEach(Stream(ctx), v.outer * v.inner, [=] __device__(int64_t e) {
      const int64_t oi = e / v.inner, i = e - oi * v.inner;
      Store(o + e, r, a[(oi * v.mid + idx[e]) * v.inner + i]);
    });
  });
}

/*! \brief Inputs (ograd, index, data): each output gradient goes to the one element it picked (all distinct). */
void PickBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<PickParam>();
  const AxisView v = ViewAround(in[2].shape_, PickAxis(attrs, in[2].shape_));
  const int64_t* idx = in[1].Size() > 0 ? DeviceIndices(attrs, ctx, in[1], v.mid, p.mode) : nullptr;
  layout::ZeroForReq(Stream(ctx), out[0], req[0]);
  if (in[1].Size() == 0) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    ForEach(Stream(ctx), v.outer * v.inner, [=] __device__(int64_t e) {
      const int64_t oi = e / v.inner, i = e - oi * v.inner;
      Store(d + (oi * v.mid + idx[e]) * v.inner + i, kAddTo, g[e]);
    });
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(take, kGPU, cuda).set_compute(cuda::TakeForward);
MXNET_REGISTER_KERNEL(_backward_take, kGPU, cuda).set_compute(cuda::TakeBackward);
MXNET_REGISTER_KERNEL(pick, kGPU, cuda).set_compute(cuda::PickForward);
MXNET_REGISTER_KERNEL(_backward_pick, kGPU, cuda).set_compute(cuda::PickBackward);

}  // namespace op
}  // namespace mxnet
