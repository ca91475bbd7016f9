/*!
 * \file onednn_pooling_kernels.cc
 * \brief The oneDNN-build entries of the pooling kernel lists:
 *          Pooling            onednn, max_pool_lanes, reference
 *          _backward_Pooling  max_pool_lanes, onednn, reference
 *        Both take max and average problems whose divisor semantics are MXNet's (OneDNNPool), in
 *        channel-first layouts, overwriting their output. The lane kernel (max_pool_lanes.h) is
 *        2-D float32 max pooling only. Forward, oneDNN leaves to it what it pools slower:
 *        channel-lane (blocked) inputs, and plain ones it has no JIT kernel for; backward, the
 *        lane kernel runs first since oneDNN's needs the arg-max workspace the forward does not
 *        keep. Both are tagged "onednn" (MXNET_ONEDNN_ENABLED=0 skips them) and read blocked
 *        inputs themselves.
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/pooling_param.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_pooling.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief The oneDNN description when its semantics equal MXNet's for this problem. */
bool OneDNNPool(const PoolGeom& g, int dtype, bool cl, PoolDesc* d) {
  if (cl || !SupportedType(dtype) || g.conv == kSame) return false;
  if (g.type != kMaxPool && g.type != kAvgPool) return false;
  d->max = g.type == kMaxPool;
  d->include_pad = g.include_pad;
  d->kernel.clear();
  d->stride.clear();
  d->pad_l.clear();
  d->pad_r.clear();
  for (int i = 3 - g.nsp; i < 3; ++i) {
    const int64_t pr = g.conv == kFull ? (g.out[i] - 1) * g.s[i] + g.k[i] - g.in[i] - g.p[i] : g.p[i];
    // Windows reaching past the right padding are divided by the full kernel in oneDNN but by
    // the part inside in + pad in MXNet.
    if (!d->max && d->include_pad && pr > g.p[i]) return false;
    if (pr < 0) return false;
    d->kernel.push_back(g.k[i]);
    d->stride.push_back(g.s[i]);
    d->pad_l.push_back(g.p[i]);
    d->pad_r.push_back(pr);
  }
  return true;
}

/*! \brief The problem of pooling x (the forward input) as oneDNN and the lane kernel see it. */
struct PoolProblem {
  PoolGeom g;
  PoolDesc d;
  bool ok{false};  // OneDNNPool takes it, and the output is overwritten
  bool MaxPool2DFloat(int dtype) const { return ok && d.max && g.nsp == 2 && dtype == kFloat32; }
};

PoolProblem ProblemOf(const NodeAttrs& attrs, const TBlob& x, OpReqType req) {
  PoolProblem p;
  const bool cl = ChannelLast(attrs.get<PoolingParam>().layout);
  p.g = MakePoolGeom(attrs, ToChannelFirst(x.shape_, cl));
  p.ok = (req == kWriteTo || req == kWriteInplace) && OneDNNPool(p.g, x.type_flag_, cl, &p.d);
  return p;
}

/*! \brief Forward calls the lane kernel pools faster than oneDNN (see PoolForward). */
bool ForwardPrefersLanes(const PoolProblem& pp, const KernelProblem& p) {
  const TBlob &x = p.inputs[0], &y = p.outputs[0];
  if (!pp.MaxPool2DFloat(x.type_flag_) || !CanLeaveBlocked(0, y)) return false;
  if (p.input_layouts[0]) return HoldsChannelLanes(p.input_layouts[0], false);
  return PlainPoolIsSlow(pp.d, x, y);
}

void PoolingOneDNN(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  PoolForward(ProblemOf(attrs, in[0], req[0]).d, in[0], out[0]);
}

void PoolingLanes(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MaxPoolLanesForward(ProblemOf(attrs, in[0], req[0]).d, in[0], out[0]);
}

// _backward_Pooling: inputs (dy, x, y), output dx.
void PoolingBackwardOneDNN(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PoolDesc d = ProblemOf(attrs, in[1], req[0]).d;
  if (d.max) return MaxPoolBackward(d, in[0], in[1], out[0]);
  AvgPoolBackward(d, in[0], out[0]);
}

void PoolingBackwardLanes(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MaxPoolLanesBackward(ProblemOf(attrs, in[1], req[0]).d, in[0], in[1], out[0]);
}

}  // namespace

// Whether oneDNN's plain kernel is JIT takes building its primitive: the choice is cached.
MXNET_REGISTER_KERNEL(Pooling, kCPU, onednn)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts([](const KernelProblem& p) {
      const PoolProblem pp = ProblemOf(p.attrs, p.inputs[0], p.req[0]);
      return pp.ok && !ForwardPrefersLanes(pp, p);
    })
    .set_compute(PoolingOneDNN);
MXNET_REGISTER_KERNEL(Pooling, kCPU, max_pool_lanes)
    .set_rank(20)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(
        [](const KernelProblem& p) {
          return ProblemOf(p.attrs, p.inputs[0], p.req[0]).MaxPool2DFloat(p.inputs[0].type_flag_);
        },
        /*cheap=*/true)
    .set_compute(PoolingLanes);

MXNET_REGISTER_KERNEL(_backward_Pooling, kCPU, max_pool_lanes)
    .set_rank(10)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(
        [](const KernelProblem& p) {
          const TBlob& x = p.inputs[1];
          return ProblemOf(p.attrs, x, p.req[0]).MaxPool2DFloat(x.type_flag_) && p.outputs[0].Size() > 0 &&
                 (!p.input_layouts[1] || HoldsChannelLanes(p.input_layouts[1], true));
        },
        /*cheap=*/true)
    .set_compute(PoolingBackwardLanes);
MXNET_REGISTER_KERNEL(_backward_Pooling, kCPU, onednn)
    .set_rank(20)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts([](const KernelProblem& p) { return ProblemOf(p.attrs, p.inputs[1], p.req[0]).ok; },
                 /*cheap=*/true)
    .set_compute(PoolingBackwardOneDNN);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
