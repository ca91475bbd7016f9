/*!
 * \file onednn_batch_norm.cc
 * \brief oneDNN batch normalization over axis 1 with separate scale and shift (float32).
 *        Training forward writes the batch mean/variance; with use_stats the given mean and
 *        variance are read (inference, use_global_stats). Forward and backward run on a blocked
 *        input's format and leave their output in it.
 */
#if MXNET_USE_ONEDNN

#include <cstring>
#include <memory>
#include <unordered_map>

#include "operator/nn/onednn/onednn_layout.h"
#include "operator/nn/onednn/onednn_norm_backward.h"
#include "operator/nn/onednn/onednn_operand.h"
#include "operator/nn/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

using flags = dnnl::normalization_flags;

flags Flags(bool use_stats) {
  flags f = flags::use_scale | flags::use_shift;
  return use_stats ? f | flags::use_global_stats : f;
}

struct FwdEntry {
  dnnl::batch_normalization_forward prim;
  dnnl::memory src, dst, scale, shift, mean, var;
};
struct BwdEntry {
  dnnl::batch_normalization_backward prim;
  NormBackwardOperands operands;
};

dnnl::memory::desc ChannelDesc(const TBlob& x) {
  return dnnl::memory::desc({x.shape_[1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
}

}  // namespace

void BatchNormForward(const TBlob& x, const float* gamma, const float* beta, float* mean, float* var, const TBlob& y,
                      float eps, bool use_stats) {
  // A blocked x (a conv's output) is normalised in its format and y left in it (onednn_layout.h).
  std::shared_ptr<const BlockedData> bx = BlockedInput(0, x);
  if (bx && !CanLeaveBlocked(0, y)) bx.reset();
  if (!bx) PlainInput(0);
  const auto d = bx ? bx->desc() : PlainDesc(x);
  thread_local PrimitiveCache<FwdEntry> cache;
  int32_t eps_bits;
  std::memcpy(&eps_bits, &eps, 4);
  Key key = Key().Add(x).Add(eps_bits).Add(use_stats);
  AddDescKey(&key, d);
  FwdEntry& e = cache.Get(key, [&] {
    const auto c = ChannelDesc(x);
    const auto prop = use_stats ? dnnl::prop_kind::forward_inference : dnnl::prop_kind::forward_training;
    dnnl::batch_normalization_forward::primitive_desc pd(
        dnnl::batch_normalization_forward::desc(prop, d, eps, Flags(use_stats)), CpuEngine());
    return FwdEntry{dnnl::batch_normalization_forward(pd),
                    UnboundMemory(d),
                    UnboundMemory(d),
                    UnboundMemory(c),
                    UnboundMemory(c),
                    UnboundMemory(c),
                    UnboundMemory(c)};
  });
  std::shared_ptr<BlockedData> by;
  if (bx) by = std::make_shared<BlockedData>(d, PlainDesc(y));
  e.src.set_data_handle(bx ? bx->ptr() : x.dptr_);
  e.dst.set_data_handle(by ? by->ptr() : y.dptr_);
  e.scale.set_data_handle(const_cast<float*>(gamma));
  e.shift.set_data_handle(const_cast<float*>(beta));
  e.mean.set_data_handle(mean);
  e.var.set_data_handle(var);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src},
                     {DNNL_ARG_DST, e.dst},
                     {DNNL_ARG_SCALE, e.scale},
                     {DNNL_ARG_SHIFT, e.shift},
                     {DNNL_ARG_MEAN, e.mean},
                     {DNNL_ARG_VARIANCE, e.var}});
  s.wait();
  if (by) SetBlockedOutput(0, std::move(by));
}

void BatchNormBackward(const TBlob& dy, const TBlob& x, const float* gamma, const float* mean, const float* var,
                       const TBlob& dx, float* dgamma, float* dbeta, float eps, bool use_stats) {
  // Kernel inputs (dy, x, gamma, mean, var). A blocked x (the conv output the forward read)
  // sets the format: dy is read in it, dx left in it for the conv backward before.
  const auto bx = BlockedInput(1, x);
  const auto d = bx ? bx->desc() : PlainDesc(x);
  thread_local PrimitiveCache<BwdEntry> cache;
  int32_t eps_bits;
  std::memcpy(&eps_bits, &eps, 4);
  Key key = Key().Add(x).Add(eps_bits).Add(use_stats);
  AddDescKey(&key, d);
  BwdEntry& e = cache.Get(key, [&] {
    const auto c = ChannelDesc(x);
    dnnl::batch_normalization_forward::primitive_desc hint(
        dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_training, d, eps, Flags(use_stats)),
        CpuEngine());
    dnnl::batch_normalization_backward::primitive_desc pd(
        dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward, d, d, eps, Flags(use_stats)), CpuEngine(),
        hint);
    return BwdEntry{dnnl::batch_normalization_backward(pd),
                    NormBackwardOperands{UnboundMemory(d), UnboundMemory(d), UnboundMemory(c), UnboundMemory(c),
                                         UnboundMemory(c), UnboundMemory(d), UnboundMemory(c), UnboundMemory(c)}};
  });
  InputOperand gy(0, dy, PlainDesc(dy), d);
  InputOperand in(1, x, PlainDesc(x), d);
  OutputOperand gx(0, dx, PlainDesc(dx), d);
  TBlob dy_at = dy, x_at = x, dx_at = dx;  // the same tensors, at the memory in format d
  dy_at.dptr_ = gy.mem().get_data_handle();
  x_at.dptr_ = in.mem().get_data_handle();
  dx_at.dptr_ = gx.mem().get_data_handle();
  ExecuteNormBackward(e.prim, &e.operands, dy_at, x_at, gamma, mean, var, dx_at, dgamma, dbeta);
  gx.Finish();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
