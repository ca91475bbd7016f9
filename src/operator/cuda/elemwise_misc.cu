/*!
 * \file elemwise_misc.cu
 * \brief CUDA kernels of the element-wise helpers of elemwise_basic.cc (elemwise_add, _copy,
 *        zeros_like, ones_like), elemwise_misc.cc (Cast, clip, BlockGrad, add_n, broadcast_to /
 *        broadcast_axis / broadcast_like and `_backward_broadcast`) and where.cc, each computing
 *        and storing as its CPU kernel does.
 */
#include <algorithm>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/broadcast_util.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/clip_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace elemwise_misc {

/*! \brief op_context.h's AssignReq (kWriteTo/kWriteInplace/kAddTo) on the device. */
template <typename DType, typename V>
__device__ __forceinline__ void AssignReqDev(DType* out, OpReqType req, V v) {
  if (req == kAddTo) {
    *out = static_cast<DType>(*out + static_cast<DType>(v));
  } else {
    *out = static_cast<DType>(v);
  }
}

void AddCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    const DType* b = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) { AssignReqDev(y + i, r, a[i] + b[i]); });
  });
}

/*! \brief _copy and BlockGrad: a device-to-device copy, or an addition under kAddTo. */
void CopyCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].dptr_ == out[0].dptr_) return;
  if (req[0] != kAddTo) {
    if (out[0].Bytes() == 0) return;
    Check(cudaMemcpyAsync(out[0].dptr_, in[0].dptr_, out[0].Bytes(), cudaMemcpyDeviceToDevice, Stream(ctx)),
          "cudaMemcpyAsync (copy)");
    return;
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) { AssignReqDev(y + i, kAddTo, x[i]); });
  });
}

template <int kValue>
void FillCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (kValue == 0 && req[0] != kAddTo) {
    if (out[0].Bytes() == 0) return;
    Check(cudaMemsetAsync(out[0].dptr_, 0, out[0].Bytes(), Stream(ctx)), "cudaMemsetAsync (zeros_like)");
    return;
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), out[0].Size(), [=] __device__(int64_t i) { AssignReqDev(y + i, r, static_cast<DType>(kValue)); });
  });
}

/*! \brief Cast and _backward_Cast: in[0] converted to out[0]'s dtype (CastValue). */
void CastCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, SType, {
    MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
      const SType* x = in[0].dptr<SType>();
      DType* y = out[0].dptr<DType>();
      const OpReqType r = req[0];
      ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) { Store(y + i, r, CastValue<SType, DType>(x[i])); });
    });
  });
}

/*! \brief min(max(x, a_min), a_max) in compute_t, bounds through math::ScalarAs (clip's CPU kernel). */
void ClipCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<ClipParam>();
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const C lo = math::ScalarAs<C>(p.a_min), hi = math::ScalarAs<C>(p.a_max);
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) {
      const C v = static_cast<C>(x[i]);
      const C lower = v < lo ? lo : v;
      Store(y + i, r, lower > hi ? hi : lower);
    });
  });
}

/*! \brief (ograd, x): ograd where x lies in [a_min, a_max], else 0, in real_compute_t. */
void ClipBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<ClipParam>();
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const C lo = static_cast<C>(p.a_min), hi = static_cast<C>(p.a_max);
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(Stream(ctx), in[0].Size(), [=] __device__(int64_t i) {
      const C xv = static_cast<C>(x[i]);
      Store(dx + i, r, (xv >= lo && xv <= hi) ? static_cast<C>(g[i]) : C(0));
    });
  });
}

/*! \brief Inputs one add_n launch reads (passed by value as a kernel parameter). */
constexpr int kAddNChunk = 16;
template <typename DType>
struct AddNInputs {
  const DType* p[kAddNChunk];
};

/*!
 * \brief Sums the inputs in order per element in compute_t (as the CPU, so `out` may alias an
 *        input). More than kAddNChunk inputs go kAddNChunk at a time through a compute_t
 *        accumulator in temp space, keeping the CPU's order and precision.
 */
void AddNCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = compute_t<DType>;
    const int64_t n = out[0].Size();
    const int total = static_cast<int>(in.size());
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    C* acc_buf = nullptr;
    if (total > kAddNChunk && n > 0) acc_buf = static_cast<C*>(ctx.requested[0].GetSpace(sizeof(C) * n));
    for (int first = 0; first < total; first += kAddNChunk) {
      AddNInputs<DType> src{};
      const int count = std::min(kAddNChunk, total - first);
      for (int j = 0; j < count; ++j) src.p[j] = in[first + j].dptr<DType>();
      const bool start = first == 0, last = first + count == total;
      C* acc = acc_buf;
      ForEach(Stream(ctx), n, [=] __device__(int64_t i) {
        C s = start ? static_cast<C>(src.p[0][i]) : acc[i];
        for (int j = start ? 1 : 0; j < count; ++j) s = C(s + static_cast<C>(src.p[j][i]));
        if (last) {
          Store(y + i, r, s);
        } else {
          acc[i] = s;
        }
      });
    }
  });
}

/*! \brief broadcast_to / broadcast_axis / broadcast_like: in[0] repeated along its size-1 dims. */
void BroadcastToCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const TShape& is = in[0].shape_;
    const TShape& os = out[0].shape_;
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const OpReqType r = req[0];
    if (is.Size() == os.Size()) {
      ForEach(Stream(ctx), os.Size(), [=] __device__(int64_t i) { Store(y + i, r, x[i]); });
      return;
    }
    const bcast::Walk<1> w = bcast::ToWalk<1>(MakeBroadcastPlan({is}, os));
    ForEach(Stream(ctx), os.Size(), [=] __device__(int64_t i) {
      int64_t off[1] = {0};
      w.AddOffsets(i, off);
      Store(y + i, r, x[off[0]]);
    });
  });
}

/*! \brief _backward_broadcast: (ograd, data) -> ograd summed over data's broadcast axes, in real_compute_t. */
void BroadcastBackward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& os = in[0].shape_;
  const bcast::ReduceWalk<1> plan = bcast::MakeReduceWalk<1>(os, {os}, bcast::SummedDims(os, out[0].shape_));
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using A = real_compute_t<DType>;
    const size_t bytes = bcast::SumScratchBytes<A>(plan);
    A* partial = bytes ? static_cast<A*>(ctx.requested[0].GetSpace(bytes)) : nullptr;
    const DType* g = in[0].dptr<DType>();
    bcast::Sum<A>(
        Stream(ctx), plan,
        [=] __device__(const int64_t* off) { return static_cast<A>(static_cast<compute_t<DType>>(g[off[0]])); },
        out[0].dptr<DType>(), req[0], partial);
  });
}

/*!
 * \brief where(condition, x, y): condition of x's shape, or 1-D selecting rows of x; the
 *        condition is tested as compute_t of its own dtype != 0.
 */
void WhereForward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int64_t n = in[1].Size(), nc = in[0].Size();
  const int64_t row = nc == 0 ? 1 : n / nc;  // 1 for the same-shape form
  MXNET_TYPE_SWITCH(in[0].type_flag_, CType, {
    MXNET_TYPE_SWITCH(in[1].type_flag_, DType, {
      const CType* c = in[0].dptr<CType>();
      const DType* x = in[1].dptr<DType>();
      const DType* y = in[2].dptr<DType>();
      DType* o = out[0].dptr<DType>();
      const OpReqType r = req[0];
      ForEach(Stream(ctx), n, [=] __device__(int64_t i) {
        int64_t rem;
        const int64_t ci = row == 1 ? i : bcast::DivMod(i, row, &rem);
        const bool pick_x = static_cast<compute_t<CType>>(c[ci]) != compute_t<CType>(0);
        Store(o + i, r, pick_x ? x[i] : y[i]);
      });
    });
  });
}

}  // namespace elemwise_misc
}  // namespace cuda

// elemwise_basic.cc
MXNET_REGISTER_KERNEL(elemwise_add, kGPU, cuda).set_compute(cuda::elemwise_misc::AddCompute);
MXNET_REGISTER_KERNEL(_copy, kGPU, cuda).set_compute(cuda::elemwise_misc::CopyCompute);
MXNET_REGISTER_KERNEL(zeros_like, kGPU, cuda).set_compute(cuda::elemwise_misc::FillCompute<0>);
MXNET_REGISTER_KERNEL(ones_like, kGPU, cuda).set_compute(cuda::elemwise_misc::FillCompute<1>);
// elemwise_misc.cc
MXNET_REGISTER_KERNEL(Cast, kGPU, cuda).set_compute(cuda::elemwise_misc::CastCompute);
MXNET_REGISTER_KERNEL(_backward_Cast, kGPU, cuda).set_compute(cuda::elemwise_misc::CastCompute);
MXNET_REGISTER_KERNEL(clip, kGPU, cuda).set_compute(cuda::elemwise_misc::ClipCompute);
MXNET_REGISTER_KERNEL(_backward_clip, kGPU, cuda).set_compute(cuda::elemwise_misc::ClipBackward);
MXNET_REGISTER_KERNEL(BlockGrad, kGPU, cuda).set_compute(cuda::elemwise_misc::CopyCompute);
MXNET_REGISTER_KERNEL(add_n, kGPU, cuda).set_compute(cuda::elemwise_misc::AddNCompute);
MXNET_REGISTER_KERNEL(broadcast_to, kGPU, cuda).set_compute(cuda::elemwise_misc::BroadcastToCompute);
MXNET_REGISTER_KERNEL(broadcast_axis, kGPU, cuda).set_compute(cuda::elemwise_misc::BroadcastToCompute);
MXNET_REGISTER_KERNEL(broadcast_like, kGPU, cuda).set_compute(cuda::elemwise_misc::BroadcastToCompute);
MXNET_REGISTER_KERNEL(_backward_broadcast, kGPU, cuda).set_compute(cuda::elemwise_misc::BroadcastBackward);
// where.cc
MXNET_REGISTER_KERNEL(where, kGPU, cuda).set_compute(cuda::elemwise_misc::WhereForward);

}  // namespace op
}  // namespace mxnet
