/*!
 * \file shape_ops.cu
 * \brief CUDA kernels of the ops that only relabel contiguous data (reshape.cc: Reshape,
 *        reshape_like, Flatten, expand_dims, squeeze: one device copy, none in place) and of
 *        shape_array / size_array (shape_array.cc), whose int64 output stays on the input's GPU
 *        as in MXNet 1.x.
 */
#include <algorithm>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

void CopyData(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
              const std::vector<TBlob>& out) {
  layout::CopyForReq(Stream(ctx), in[0], out[0], req[0]);
}

/*! \brief Up to kChunk int64 values, passed to the kernel by value. */
constexpr int kChunk = 32;
struct Values {
  int64_t v[kChunk];
};

/*! \brief y[i] (req) = values[i]: a host array written in kernel-argument-sized chunks. */
void WriteValues(cudaStream_t s, const std::vector<int64_t>& values, int64_t* y, OpReqType req) {
  if (req == kNullOp) return;
  for (size_t b = 0; b < values.size(); b += kChunk) {
    const int n = static_cast<int>(std::min<size_t>(kChunk, values.size() - b));
    Values c{};
    std::copy(values.begin() + b, values.begin() + b + n, c.v);
    int64_t* dst = y + b;
    ForEach(s, n, [=] __device__(int64_t i) { Store(dst + i, req, c.v[i]); });
  }
}

void ShapeArray(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                const std::vector<TBlob>& out) {
  const TShape& s = in[0].shape_;
  WriteValues(Stream(ctx), std::vector<int64_t>(s.begin(), s.end()), out[0].dptr<int64_t>(), req[0]);
}

void SizeArray(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
               const std::vector<TBlob>& out) {
  WriteValues(Stream(ctx), {static_cast<int64_t>(in[0].shape_.Size())}, out[0].dptr<int64_t>(), req[0]);
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(Reshape, kGPU, cuda).set_compute(cuda::CopyData);
MXNET_REGISTER_KERNEL(reshape_like, kGPU, cuda).set_compute(cuda::CopyData);
MXNET_REGISTER_KERNEL(Flatten, kGPU, cuda).set_compute(cuda::CopyData);
MXNET_REGISTER_KERNEL(expand_dims, kGPU, cuda).set_compute(cuda::CopyData);
MXNET_REGISTER_KERNEL(squeeze, kGPU, cuda).set_compute(cuda::CopyData);
MXNET_REGISTER_KERNEL(shape_array, kGPU, cuda).set_compute(cuda::ShapeArray);
MXNET_REGISTER_KERNEL(size_array, kGPU, cuda).set_compute(cuda::SizeArray);

}  // namespace op
}  // namespace mxnet
