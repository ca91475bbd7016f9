/*!
 * \file onednn_same_layout.cc
 * \brief When position-wise ops may run on blocked buffers (see onednn_same_layout.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_same_layout.h"

#include <memory>
#include <utility>

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

bool SameDenseLayout(const KernelProblem& p) {
  // The common call has plain inputs: answered by the first test.
  if (p.inputs.empty() || p.input_layouts[0] == nullptr || p.outputs.size() != 1) return false;
  if (p.req[0] != kWriteTo && p.req[0] != kWriteInplace) return false;
  const TBlob& out = p.outputs[0];
  // Only this module installs layouts on CPU arrays, so the casts are to our own type.
  const auto* first = dynamic_cast<const BlockedData*>(p.input_layouts[0]);
  if (first == nullptr || !Dense(first->desc(), out)) return false;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (p.inputs[i].shape_ != out.shape_ || p.inputs[i].type_flag_ != out.type_flag_) return false;
    const auto* b = dynamic_cast<const BlockedData*>(p.input_layouts[i]);
    if (b == nullptr || (i > 0 && b->desc() != first->desc())) return false;
  }
  return CanLeaveBlocked(0, out);
}

void RunOnSameLayout(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  std::vector<std::shared_ptr<const BlockedData>> src(in.size());
  std::vector<TBlob> ins = in;
  for (size_t i = 0; i < in.size(); ++i) {
    src[i] = BlockedInput(i, in[i]);
    MX_CHECK(src[i] != nullptr) << attrs.op->name << ": same_layout kernel run on an input that is not blocked";
    ins[i].dptr_ = src[i]->ptr();
  }
  auto dst = std::make_shared<BlockedData>(src[0]->desc(), PlainDesc(out[0]));
  std::vector<TBlob> outs = out;
  outs[0].dptr_ = dst->ptr();
  // The fresh buffer is written whole, whatever the caller's request (kWriteTo or kWriteInplace).
  (*attrs.op->GetCompute(Context::kCPU))(attrs, ctx, ins, {kWriteTo}, outs);
  SetBlockedOutput(0, std::move(dst));
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
