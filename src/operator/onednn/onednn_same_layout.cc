/*!
 * \file onednn_same_layout.cc
 * \brief When position-wise ops may run on blocked buffers (see onednn_same_layout.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_same_layout.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief No padding and no gaps: the format stores exactly the array's elements. */
bool Dense(const dnnl::memory::desc& d, const TBlob& like) {
  const dnnl_memory_desc_t& c = d.data;
  if (c.format_kind != dnnl_blocked || c.ndims != like.ndim()) return false;
  for (int i = 0; i < c.ndims; ++i)
    if (c.dims[i] != c.padded_dims[i] || c.dims[i] != like.shape_[i] || c.padded_offsets[i] != 0) return false;
  return c.offset0 == 0 && d.get_size() == like.Bytes();
}

}  // namespace

std::vector<std::shared_ptr<const BlockedData>> SameDenseBlockedInputs(const std::vector<TBlob>& in, size_t n,
                                                                       OpReqType req, const TBlob& out) {
  std::vector<std::shared_ptr<const BlockedData>> src;
  if (!Enabled() || n == 0 || n > in.size() || (req != kWriteTo && req != kWriteInplace)) return src;
  if (!CanLeaveBlocked(0, out)) return src;
  for (size_t i = 0; i < n; ++i) {
    if (in[i].shape_ != out.shape_ || in[i].type_flag_ != out.type_flag_) return {};
    auto b = BlockedInput(i, in[i]);
    if (!b || (i == 0 ? !Dense(b->desc(), out) : b->desc() != src[0]->desc())) return {};
    src.push_back(std::move(b));
  }
  return src;
}

bool ShareBlockedInput(const TBlob& in, OpReqType req, size_t o, const TBlob& out) {
  if (!Enabled() || (req != kWriteTo && req != kWriteInplace)) return false;
  if (in.shape_ != out.shape_ || in.type_flag_ != out.type_flag_ || !CanLeaveBlocked(o, out)) return false;
  auto b = BlockedInput(0, in);
  if (!b) return false;
  SetBlockedOutput(o, std::move(b));
  return true;
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
