/*!
 * \file gather_scatter.cu
 * \brief CUDA kernels of gather_scatter.cc: gather_nd, scatter_nd, _backward_gather_nd (the
 *        gradient of gather_nd: a scatter-add, duplicates adding up atomically) and one_hot.
 *        The index columns are turned into row offsets on the device first; an out-of-range
 *        index throws the CPU's IndexError (the first one in the CPU's order) before any output
 *        is written. scatter_nd's "last write wins" for duplicate indices is kept by letting
 *        only the highest index column of each target row write it.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/index_util.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/tensor/gather_scatter.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief Per index column k, the offset (in units of inner) it addresses in data; device memory. */
struct NdAddress {
  const int64_t* rows;
  int64_t K, inner;
  int64_t* extra;  // `extra` further int64s of scratch for the caller
};

/*! \brief The CPU's Address on the device; the scratch also holds `extra` int64s for the caller. */
NdAddress Address(const NodeAttrs& attrs, const OpContext& ctx, const TShape& data, const TBlob& indices,
                  int64_t extra) {
  const cudaStream_t s = Stream(ctx);
  const int64_t M = indices.shape_[0], K = indices.Size() / M;
  const std::vector<int64_t> dims(data.begin(), data.begin() + M);
  const size_t flag_b = layout::Words(sizeof(layout::AtomicWord));
  const size_t dims_b = layout::Words(M * sizeof(int64_t));
  const size_t rows_b = layout::Words(K * sizeof(int64_t)), extra_b = layout::Words(extra * sizeof(int64_t));
  char* space = static_cast<char*>(ctx.requested[0].GetSpace(flag_b + dims_b + rows_b + extra_b));
  auto* first_bad = reinterpret_cast<layout::AtomicWord*>(space);
  auto* d_dims = reinterpret_cast<int64_t*>(space + flag_b);
  auto* rows = reinterpret_cast<int64_t*>(space + flag_b + dims_b);
  NdAddress a{rows, K, data.ProdShape(static_cast<int>(M), data.ndim()),
              reinterpret_cast<int64_t*>(space + flag_b + dims_b + rows_b)};
  if (K == 0) return a;
  // From pageable memory the copy returns once the source is staged, so `dims` may go afterwards.
  Check(cudaMemcpyAsync(d_dims, dims.data(), M * sizeof(int64_t), cudaMemcpyHostToDevice, s), "cudaMemcpyAsync");
  Check(cudaMemsetAsync(first_bad, 0xff, sizeof(*first_bad), s), "cudaMemsetAsync");
  MXNET_TYPE_SWITCH(indices.type_flag_, IType, {
    const IType* p = static_cast<const IType*>(indices.dptr_);
    ForEach(s, K, [=] __device__(int64_t k) {
      int64_t row = 0;
      for (int64_t m = 0; m < M; ++m) {
        const int64_t n = d_dims[m];
        int64_t v = IndexValue(p[m * K + k]);
        if (!IndexInBounds(v, n)) {
          layout::MarkBadIndex(first_bad, m * K + k);
          v = 0;
        }
        row = row * n + MapIndex(v, n, kIndexRaise);
      }
      rows[k] = row;
    });
  });
  layout::ThrowFirstBadIndex(
      s, first_bad, indices, [&](int64_t pos) { return dims[pos / K]; }, attrs.op->name.c_str());
  return a;
}

void GatherND(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const NdAddress a = Address(attrs, ctx, in[0].shape_, in[1], 0);
  const OpReqType r = req[0];
  const int64_t inner = a.inner;
  const int64_t* rows = a.rows;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* d = in[0].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    ForEach(Stream(ctx), a.K * inner, [=] __device__(int64_t e) {
      const int64_t k = e / inner;
      Store(o + e, r, d[rows[k] * inner + (e - k * inner)]);
    });
  });
}

/*! \brief out[indices] = data (add: +=), the rest of out zeroed for writes; as the CPU's ScatterInto. */
void ScatterInto(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in, OpReqType req,
                 const TBlob& out, bool add) {
  if (req == kNullOp) return;
  const cudaStream_t s = Stream(ctx);
  layout::ZeroForReq(s, out, req);
  const bool accumulate = add || req == kAddTo;
  const int64_t inner0 = out.shape_.ProdShape(static_cast<int>(in[1].shape_[0]), out.ndim());
  const int64_t targets = accumulate || inner0 == 0 ? 0 : out.Size() / inner0;
  const NdAddress a = Address(attrs, ctx, out.shape_, in[1], targets);
  const int64_t inner = a.inner, K = a.K;
  const int64_t* rows = a.rows;
  if (K == 0 || inner == 0) return;
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    const DType* d = in[0].dptr<DType>();
    DType* o = out.dptr<DType>();
    if (accumulate) {
      ForEach(s, K * inner, [=] __device__(int64_t e) {
        const int64_t k = e / inner;
        layout::AtomicAdd(o + rows[k] * inner + (e - k * inner), d[e]);
      });
    } else {
      // The CPU writes the columns in order, so of duplicates the highest k wins.
      using Word = long long;  // NOLINT(runtime/int): atomicMax's signed 64-bit type
      auto* winner = reinterpret_cast<Word*>(a.extra);
      Check(cudaMemsetAsync(winner, 0xff, targets * sizeof(int64_t), s), "cudaMemsetAsync");
      ForEach(s, K, [=] __device__(int64_t k) { atomicMax(winner + rows[k], static_cast<Word>(k)); });
      ForEach(s, K * inner, [=] __device__(int64_t e) {
        const int64_t k = e / inner;
        if (winner[rows[k]] == k) o[rows[k] * inner + (e - k * inner)] = d[e];
      });
    }
  });
}

void ScatterND(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ScatterInto(attrs, ctx, in, req[0], out[0], false);
}

void GatherNDBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ScatterInto(attrs, ctx, in, req[0], out[0], true);
}

void OneHot(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].Size() == 0) return;
  const auto& p = attrs.get<OneHotParam>();
  const cudaStream_t s = Stream(ctx);
  auto* idx = static_cast<int64_t*>(ctx.requested[0].GetSpace(in[0].Size() * sizeof(int64_t)));
  layout::ResolveIndices(s, in[0], 0, layout::kIndexAsIs, attrs.op->name.c_str(), idx, nullptr);
  const int64_t depth = p.depth;
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType on = CastValue<double, DType>(p.on_value), off = CastValue<double, DType>(p.off_value);
    DType* o = out[0].dptr<DType>();
    // Out-of-range (and negative) indices give an all-off row, as MXNet.
    ForEach(s, in[0].Size() * depth, [=] __device__(int64_t e) {
      const int64_t row = e / depth;
      Store(o + e, r, e - row * depth == idx[row] ? on : off);
    });
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(gather_nd, kGPU, cuda).set_compute(cuda::GatherND);
MXNET_REGISTER_KERNEL(scatter_nd, kGPU, cuda).set_compute(cuda::ScatterND);
MXNET_REGISTER_KERNEL(_backward_gather_nd, kGPU, cuda).set_compute(cuda::GatherNDBackward);
MXNET_REGISTER_KERNEL(one_hot, kGPU, cuda).set_compute(cuda::OneHot);

}  // namespace op
}  // namespace mxnet
