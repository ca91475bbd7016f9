/*!
 * \file random_shuffle.cu
 * \brief CUDA kernel of _shuffle (shuffle.cc). Fisher-Yates is sequential, so the permutation is
 *        computed on the host from the op's stream by the CPU kernel's own function (the same
 *        permutation on every device; n Philox draws, no data leaves the GPU); the rows are then
 *        gathered on the device, from a copy of the input when the call is in place.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/random/shuffle.h"

namespace mxnet {
namespace op {
namespace cuda {

void ShuffleCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].Size() == 0) return;
  cudaStream_t stream = Stream(ctx);
  const int64_t n = in[0].shape_[0];
  const int64_t row = in[0].Size() / n;
  const bool inplace = in[0].dptr_ == out[0].dptr_;
  const size_t perm_bytes = sizeof(int64_t) * n;
  char* space = static_cast<char*>(ctx.requested[1].GetSpace(perm_bytes + (inplace ? in[0].Bytes() : 0)));
  int64_t* perm = reinterpret_cast<int64_t*>(space);
  {
    const std::vector<int64_t> host = random::ShufflePermutation(n, ctx.requested[0].random);
    // From pageable memory the copy has staged `host` when it returns, so it may go out of scope.
    Check(cudaMemcpyAsync(perm, host.data(), perm_bytes, cudaMemcpyHostToDevice, stream), "shuffle permutation");
  }
  const void* src = in[0].dptr_;
  if (inplace) {
    Check(cudaMemcpyAsync(space + perm_bytes, src, in[0].Bytes(), cudaMemcpyDeviceToDevice, stream), "shuffle copy");
    src = space + perm_bytes;
  }
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = static_cast<const DType*>(src);
    DType* y = out[0].dptr<DType>();
    ForEach(stream, n * row, [=] __device__(int64_t i) {
      const int64_t dst_row = i / row;
      StoreReq(y + i, r, x[perm[dst_row] * row + (i - dst_row * row)]);
    });
  });
}

}  // namespace cuda

MXNET_REGISTER_KERNEL(_shuffle, kGPU, cuda).set_compute(cuda::ShuffleCompute);

}  // namespace op
}  // namespace mxnet
