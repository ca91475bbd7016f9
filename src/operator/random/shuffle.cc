/*!
 * \file shuffle.cc
 * \brief _shuffle: a random permutation of the first axis (Fisher-Yates; step i draws from
 *        element sub-stream i, so the permutation depends only on seed and call order).
 */
#include <cstring>
#include <utility>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/parallel.h"
#include "operator/random/shuffle.h"

namespace mxnet {
namespace op {
namespace {

void ShuffleCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].Size() == 0) return;
  const int64_t n = in[0].shape_[0];
  const std::vector<int64_t> perm = random::ShufflePermutation(n, ctx.requested[0].random);
  const size_t row_bytes = in[0].Bytes() / static_cast<size_t>(n);
  // In place, rows would be overwritten before they are read: gather from a copy.
  std::vector<char> copy;
  const char* src = static_cast<const char*>(in[0].dptr_);
  if (in[0].dptr_ == out[0].dptr_) {
    copy.assign(src, src + in[0].Bytes());
    src = copy.data();
  }
  if (req[0] != kAddTo) {
    char* dst = static_cast<char*>(out[0].dptr_);
    ParallelFor(n, [&](int64_t i) { std::memcpy(dst + i * row_bytes, src + perm[i] * row_bytes, row_bytes); });
    return;
  }
  const int64_t row = in[0].Size() / n;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = reinterpret_cast<const DType*>(src);
    DType* y = out[0].dptr<DType>();
    ParallelFor(n, [&](int64_t i) {
      for (int64_t c = 0; c < row; ++c) AssignReq(&y[i * row + c], kAddTo, x[perm[i] * row + c]);
    });
  });
}

bool ShuffleShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if ((*in)[0].IsKnown())
    MX_CHECK_KIND((*in)[0].ndim() >= 1, "ValueError") << attrs.op->name << ": data must have at least one axis";
  return ElemwiseShape(attrs, in, out);
}

}  // namespace

MXNET_REGISTER_OP(_shuffle)
    .add_alias("shuffle")
    .describe("Randomly shuffles the elements along the first axis; the order within each row is kept.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Data to be shuffled.")
    .set_infer_shape(ShuffleShape)
    .set_infer_type(ElemwiseType)
    .set_inplace_option([](const NodeAttrs&) {
      return InplacePairs{{0, 0}};
    })
    // Temp space: the CUDA kernel's device copy of the permutation (and of the data, in place).
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, ShuffleCompute);

}  // namespace op
}  // namespace mxnet
