/*!
 * \file onednn_batch_norm.cc
 * \brief oneDNN batch normalization over axis 1 with separate scale and shift (float32).
 *        Training forward writes the batch mean/variance; with use_stats the given mean and
 *        variance are read (inference, use_global_stats). Forward and backward run on a blocked
 *        input's format and leave their output in it. With relu, oneDNN's fuse_norm_relu applies
 *        a ReLU to the output; in training the forward leaves the ReLU mask in a workspace the
 *        backward reads, tagged with the primitive it was written for.
 */
#if MXNET_USE_ONEDNN

#include <cstring>
#include <memory>
#include <unordered_map>

#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_norm_backward.h"
#include "operator/onednn/onednn_operand.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

using flags = dnnl::normalization_flags;

flags Flags(bool use_stats, bool relu) {
  flags f = flags::use_scale | flags::use_shift;
  if (relu) f = f | flags::fuse_norm_relu;
  return use_stats ? f | flags::use_global_stats : f;
}

struct FwdEntry {
  dnnl::batch_normalization_forward prim;
  dnnl::memory src, dst, scale, shift, mean, var, workspace;
  size_t workspace_bytes;
};
struct BwdEntry {
  dnnl::batch_normalization_backward prim;
  NormBackwardOperands operands;
  dnnl::memory workspace;
};

/*! \brief The forward's cache key: what the workspace tag identifies too. */
Key ForwardKey(const TBlob& x, float eps, bool use_stats, bool relu, const dnnl::memory::desc& d) {
  int32_t eps_bits;
  std::memcpy(&eps_bits, &eps, 4);
  Key key = Key().Add(x).Add(eps_bits).Add(use_stats).Add(relu);
  AddDescKey(&key, d);
  return key;
}

/*! \brief The tag a training forward writes after the mask: the key's hash, never 0. */
uint64_t WorkspaceTag(const Key& key) { return static_cast<uint64_t>(KeyHash()(key)) | 1u; }

dnnl::memory::desc ChannelDesc(const TBlob& x) {
  return dnnl::memory::desc({x.shape_[1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
}

}  // namespace

void BatchNormForward(const TBlob& x, const float* gamma, const float* beta, float* mean, float* var, const TBlob& y,
                      float eps, bool use_stats, bool relu, uint8_t* workspace) {
  // A blocked x (a conv's output) is normalised in its format and y left in it (onednn_layout.h).
  std::shared_ptr<const BlockedData> bx = BlockedInput(0, x);
  if (bx && !CanLeaveBlocked(0, y)) bx.reset();
  if (!bx) PlainInput(0);
  const auto d = bx ? bx->desc() : PlainDesc(x);
  thread_local PrimitiveCache<FwdEntry> cache;
  const Key key = ForwardKey(x, eps, use_stats, relu, d);
  FwdEntry& e = cache.Get(key, [&] {
    const auto c = ChannelDesc(x);
    const auto prop = use_stats ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
    dnnl::batch_normalization_forward::primitive_desc pd(
        dnnl::batch_normalization_forward::desc(prop, d, eps, Flags(use_stats, relu)), CpuEngine());
    const auto ws = pd.workspace_desc();
    return FwdEntry{dnnl::batch_normalization_forward(pd),
                    UnboundMemory(d),
                    UnboundMemory(d),
                    UnboundMemory(c),
                    UnboundMemory(c),
                    UnboundMemory(c),
                    UnboundMemory(c),
                    UnboundMemory(ws),
                    ws.get_size()};
  });
  const bool masks = relu && !use_stats;  // a training ReLU keeps its mask for the backward
  if (masks) {
    MX_CHECK_KIND(workspace != nullptr, "RuntimeError") << "BatchNormWithReLU: training forward without a workspace";
    // The workspace holds x.Size() bytes: oneDNN's masks take a bit (blocked, channel-last)
    // or a byte (plain) per element.
    MX_CHECK_KIND(e.workspace_bytes <= static_cast<size_t>(x.Size()), "RuntimeError")
        << "BatchNormWithReLU: oneDNN asks for a " << e.workspace_bytes << "-byte ReLU mask, more than the " << x.Size()
        << " bytes kept for it";
    const uint64_t tag = WorkspaceTag(key);
    std::memcpy(workspace + x.Size(), &tag, sizeof(tag));
    e.workspace.set_data_handle(workspace);
  }
  std::shared_ptr<BlockedData> by;
  if (bx) by = std::make_shared<BlockedData>(d, PlainDesc(y));
  e.src.set_data_handle(bx ? bx->ptr() : x.dptr_);
  e.dst.set_data_handle(by ? by->ptr() : y.dptr_);
  e.scale.set_data_handle(const_cast<float*>(gamma));
  e.shift.set_data_handle(const_cast<float*>(beta));
  e.mean.set_data_handle(mean);
  e.var.set_data_handle(var);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, e.src},     {DNNL_ARG_DST, e.dst},
                                             {DNNL_ARG_SCALE, e.scale}, {DNNL_ARG_SHIFT, e.shift},
                                             {DNNL_ARG_MEAN, e.mean},   {DNNL_ARG_VARIANCE, e.var}};
  if (masks) args.emplace(DNNL_ARG_WORKSPACE, e.workspace);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, args);
  s.wait();
  if (by) SetBlockedOutput(0, std::move(by));
}

bool BatchNormBackward(const TBlob& dy, const TBlob& x, const float* gamma, const float* mean, const float* var,
                       const TBlob& dx, float* dgamma, float* dbeta, float eps, bool use_stats,
                       const uint8_t* relu_workspace) {
  // Kernel inputs (dy, x, gamma, mean, var). A blocked x (the conv output the forward read)
  // sets the format: dy is read in it, dx left in it for the conv backward before.
  const auto bx = BlockedInput(1, x);
  const auto d = bx ? bx->desc() : PlainDesc(x);
  const bool relu = relu_workspace != nullptr;
  if (relu && use_stats) return false;  // only a training forward keeps the mask
  const Key key = ForwardKey(x, eps, use_stats, relu, d);
  if (relu) {
    // The mask is usable only when this format's training forward wrote it.
    uint64_t tag;
    std::memcpy(&tag, relu_workspace + x.Size(), sizeof(tag));
    if (tag != WorkspaceTag(key)) return false;
  }
  thread_local PrimitiveCache<BwdEntry> cache;
  BwdEntry& e = cache.Get(key, [&] {
    const auto c = ChannelDesc(x);
    dnnl::batch_normalization_forward::primitive_desc hint(
        dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_training, d, eps, Flags(use_stats, relu)),
        CpuEngine());
    dnnl::batch_normalization_backward::primitive_desc pd(
        dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward, d, d, eps, Flags(use_stats, relu)),
        CpuEngine(), hint);
    return BwdEntry{dnnl::batch_normalization_backward(pd),
                    NormBackwardOperands{UnboundMemory(d), UnboundMemory(d), UnboundMemory(c), UnboundMemory(c),
                                         UnboundMemory(c), UnboundMemory(d), UnboundMemory(c), UnboundMemory(c)},
                    UnboundMemory(pd.workspace_desc())};
  });
  InputOperand gy(0, dy, PlainDesc(dy), d);
  InputOperand in(1, x, PlainDesc(x), d);
  OutputOperand gx(0, dx, PlainDesc(dx), d);
  TBlob dy_at = dy, x_at = x, dx_at = dx;  // the same tensors, at the memory in format d
  dy_at.dptr_ = gy.mem().get_data_handle();
  x_at.dptr_ = in.mem().get_data_handle();
  dx_at.dptr_ = gx.mem().get_data_handle();
  if (relu) e.workspace.set_data_handle(const_cast<uint8_t*>(relu_workspace));
  ExecuteNormBackward(e.prim, &e.operands, dy_at, x_at, gamma, mean, var, dx_at, dgamma, dbeta,
                      relu ? &e.workspace : nullptr);
  gx.Finish();
  return true;
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
