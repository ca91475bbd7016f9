/*!
 * \file onednn_conv_winograd.cc
 * \brief See onednn_conv_winograd.h.
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_conv_winograd.h"

#include <memory>
#include <utility>
#include <vector>

#include "mxnet/env.h"
#include "operator/nn/conv_winograd.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_operand.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

// Below this many output pixels (over the batch) the transformed weights, 4x the filters, cost
// more to stream than the multiplies saved: each weight float read serves pixels / 16 direct
// multiply-adds. In a network the weights come from memory, not cache; measured so, against
// oneDNN's direct kernel: 13x13 at batch 1 (AlexNet's last three, 169 pixels) ran 0.78-0.90x,
// 14x14x256 at batch 1 1.00x, 13x13 and 20x20 at 338-400 pixels 0.97-1.07x, 14x14 at batch 2
// (392) 1.19x, 24x24x128 (576) 1.46x. Taking 16-tile convolutions cost AlexNet at batch 1 9%.
constexpr int64_t kMinOutputPixels = 384;
// Above this many channel pairs the transformed weights (36 floats per pair: 75 MB here, for a
// cached inference copy or a weight gradient's sums) cost more memory than the speed is worth;
// every convolution of the zoo's networks is below it (ResNet's largest 3x3 is 512 x 512).
constexpr int64_t kMaxChannelPairs = 512 * 1024;

/*! \brief A weight array's Winograd transform, cached on the array for inference. */
class WinogradWeights : public OpaqueLayout {
 public:
  WinogradWeights(const Conv2dGeom& g, const float* w) : C_(g.C), F_(g.F), u_(winograd::PackedWeightFloats(g)) {
    winograd::PackWeights(g, w, false, u_.data());
  }
  void ToPlain(void* dst) const override {
    const Conv2dGeom g{1, C_, F_, 3, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1};
    winograd::UnpackWeights(g, u_.data(), static_cast<float*>(dst));
  }
  bool Fits(const Conv2dGeom& g) const { return g.C == C_ && g.F == F_; }
  const float* data() const { return u_.data(); }

 private:
  int64_t C_, F_;
  std::vector<float> u_;
};

dnnl::memory::desc WithTag(const dnnl::memory::desc& plain, dnnl::memory::format_tag tag) {
  return dnnl::memory::desc(plain.dims(), dnnl::memory::data_type::f32, tag);
}

/*!
 * \brief The format the kernels use for activation operand i (plain desc `plain`): the one its
 *        array holds when that is nChw8c or channel-last, so nothing is reordered, else the
 *        one oneDNN's convolutions around it keep on this CPU (channel-last with AVX-512).
 */
dnnl::memory::format_tag LaneTag(size_t i, const TBlob& x, const dnnl::memory::desc& plain) {
  using ft = dnnl::memory::format_tag;
  if (const auto held = BlockedInput(i, x))
    for (ft tag : {ft::aBcd8b, ft::acdb})
      if (held->desc() == WithTag(plain, tag)) return tag;
  return CpuHasAvx512Core() ? ft::acdb : ft::aBcd8b;
}

winograd::LaneLayout LayoutOf(const dnnl::memory::desc& plain, dnnl::memory::format_tag tag) {
  const auto d = plain.dims();
  return tag == dnnl::memory::format_tag::acdb ? winograd::LaneLayout::ChannelLast(d[1], d[2], d[3])
                                               : winograd::LaneLayout::Blocked8(d[1], d[2], d[3]);
}

/*! \brief Activation input i in format `tag`: its own blocked data when it has that format, else a copy. */
const float* LaneInput(size_t i, const TBlob& x, const dnnl::memory::desc& plain, dnnl::memory::format_tag tag,
                       std::shared_ptr<const BlockedData>* hold, std::unique_ptr<BlockedData>* copy) {
  const dnnl::memory::desc want = WithTag(plain, tag);
  *hold = BlockedInput(i, x);
  if (*hold && (*hold)->desc() == want) return static_cast<const float*>((*hold)->ptr());
  hold->reset();
  *copy = std::make_unique<BlockedData>(want, plain);  // pooled storage, back to the pool on return
  CopyInputInto(i, x, plain, want, (*copy)->ptr());
  return static_cast<const float*>((*copy)->ptr());
}

/*! \brief Transformed weights into this thread's scratch, for weights that change per call. */
const float* PackPerCall(const Conv2dGeom& g, const float* w, bool for_data_grad) {
  thread_local std::vector<float> scratch;
  scratch.resize(winograd::PackedWeightFloats(g));
  winograd::PackWeights(g, w, for_data_grad, scratch.data());
  return scratch.data();
}

/*!
 * \brief The policy on top of the kernels' shape rules: enough pixels, weights not too large.
 *        (MXNET_CPU_WINOGRAD_CONV=0 excludes the "winograd" kernels in the dispatcher.)
 */
bool WorthIt(const Conv2dGeom& g) { return g.N * g.OH * g.OW >= kMinOutputPixels && g.C * g.F <= kMaxChannelPairs; }

}  // namespace

bool WinogradFits(const Conv2dGeom& g) { return winograd::Fits(g); }

bool WinogradFitsWeightGrad(const Conv2dGeom& g) { return winograd::WeightGradFits(g); }

bool WinogradWorthIt(const Conv2dGeom& g) { return WorthIt(g); }

Conv2dGeom DataGradGeom(const Conv2dGeom& g) {
  // dx = dy convolved with w flipped in space and transposed in channels; for stride 1 the
  // padding becomes k - 1 - p.
  return Conv2dGeom{g.N,  g.F, g.C, g.OH, g.OW, g.H, g.W, g.kh, g.kw, 1, 1, g.kh - 1 - g.ph, g.kw - 1 - g.pw,
                    g.dh, g.dw};
}

void WinogradForward(const Conv2dGeom& g, const dnnl::memory::desc& src, const dnnl::memory::desc& dst, bool training,
                     const TBlob& x, const TBlob& w, const TBlob* bias, bool relu, const TBlob& y) {
  std::shared_ptr<const BlockedData> hold_x;
  std::unique_ptr<BlockedData> x_copy;
  const auto tag = LaneTag(0, x, src);  // y takes x's format
  const float* xp = LaneInput(0, x, src, tag, &hold_x, &x_copy);
  PlainInput(1);
  PlainInput(2);
  std::shared_ptr<const OpaqueLayout> hold_w;
  if (!training) {
    hold_w = CachedDerivedInput(
        1, w,
        [&](const OpaqueLayout& have) {
          auto* u = dynamic_cast<const WinogradWeights*>(&have);
          return u != nullptr && u->Fits(g);
        },
        [&] { return std::make_shared<const WinogradWeights>(g, w.dptr<float>()); });
  }
  const float* u =
      hold_w ? static_cast<const WinogradWeights&>(*hold_w).data() : PackPerCall(g, w.dptr<float>(), false);
  auto yb = std::make_shared<BlockedData>(WithTag(dst, tag), dst);
  winograd::Forward(g, xp, LayoutOf(src, tag), u, bias ? bias->dptr<float>() : nullptr, relu,
                    static_cast<float*>(yb->ptr()), LayoutOf(dst, tag));
  if (CanLeaveBlocked(0, y))
    SetBlockedOutput(0, std::move(yb));
  else
    yb->ToPlain(y.dptr_);
}

void WinogradBackwardData(const Conv2dGeom& g, const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
                          const TBlob& dy, const TBlob& w, const TBlob& dx) {
  const Conv2dGeom dg = DataGradGeom(g);
  const auto tag = LaneTag(0, dy, dst);  // dx takes dy's format
  InputOperand gy(0, dy, dst, WithTag(dst, tag));
  OutputOperand gx(0, dx, src, WithTag(src, tag));
  const float* u = PackPerCall(dg, w.dptr<float>(), true);
  winograd::Forward(dg, static_cast<const float*>(gy.mem().get_data_handle()), LayoutOf(dst, tag), u, nullptr, false,
                    static_cast<float*>(gx.mem().get_data_handle()), LayoutOf(src, tag));
  gx.Finish();
}

void WinogradBackwardWeights(const Conv2dGeom& g, const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
                             const TBlob& dy, const TBlob& x, const TBlob* dw, const TBlob* db) {
  const auto dy_tag = LaneTag(0, dy, dst), x_tag = LaneTag(1, x, src);
  InputOperand gy(0, dy, dst, WithTag(dst, dy_tag));
  InputOperand in(1, x, src, WithTag(src, x_tag));
  thread_local std::vector<float> dw_scratch;  // when only db is wanted
  float* dwp = dw ? dw->dptr<float>() : nullptr;
  if (!dwp) {
    dw_scratch.resize(static_cast<size_t>(g.F * g.C * 9));
    dwp = dw_scratch.data();
  }
  winograd::WeightGrad(g, static_cast<const float*>(in.mem().get_data_handle()), LayoutOf(src, x_tag),
                       static_cast<const float*>(gy.mem().get_data_handle()), LayoutOf(dst, dy_tag), dwp,
                       db ? db->dptr<float>() : nullptr);
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
