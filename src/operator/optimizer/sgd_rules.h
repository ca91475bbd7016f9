/*!
 * \file sgd_rules.h
 * \brief The SGD-family update of one weight (plain, momentum, Nesterov; optionally on a
 *        float32 master copy), shared by the single- and multi-tensor update ops, and their
 *        parameters. The per-element step (SgdStep) is host+device: the CPU loop below and the
 *        CUDA kernels (cuda/optimizer_sgd.cu) run the same arithmetic.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_SGD_RULES_H_
#define MXNET_OPERATOR_OPTIMIZER_SGD_RULES_H_

#include <type_traits>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {

struct SGDParam : public dmlc::Parameter<SGDParam> {
  float lr, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    MXNET_DECLARE_GRAD_FIELDS();
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe(
            "If true, lazy updates are applied if gradient's stype is row_sparse (dense arrays always update every "
            "row).");
  }
};

struct SGDMomParam : public dmlc::Parameter<SGDMomParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDMomParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("The decay rate of momentum estimates at each epoch.");
    MXNET_DECLARE_GRAD_FIELDS();
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe(
            "If true, lazy updates are applied if gradient's stype is row_sparse and both weight and momentum have "
            "the same stype (dense arrays always update every row).");
  }
};

/*! \brief nag_mom_update's parameters: MXNet's NAGMomParam has no lazy_update. */
struct NAGMomParam : public dmlc::Parameter<NAGMomParam> {
  float lr, momentum, wd, rescale_grad, clip_gradient;
  DMLC_DECLARE_PARAMETER(NAGMomParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe("The decay rate of momentum estimates at each epoch.");
    MXNET_DECLARE_GRAD_FIELDS();
  }
};

struct MultiSGDParam : public dmlc::Parameter<MultiSGDParam> {
  FloatTuple lrs, wds;
  float momentum, rescale_grad, clip_gradient;
  int num_weights;
  DMLC_DECLARE_PARAMETER(MultiSGDParam) {
    DMLC_DECLARE_FIELD(lrs).describe("Learning rates.");
    DMLC_DECLARE_FIELD(wds).describe(kWdDoc);
    DMLC_DECLARE_FIELD(momentum).set_default(0.0f).describe(
        "The decay rate of momentum estimates at each epoch (momentum variants only).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0f).describe(kRescaleGradDoc);
    DMLC_DECLARE_FIELD(clip_gradient).set_default(-1.0f).describe(kClipGradientDoc);
    DMLC_DECLARE_FIELD(num_weights).set_default(1).set_lower_bound(1).describe("Number of updated weights.");
  }
};

enum class SgdRule { kPlain, kMomentum, kNesterov };

struct SgdCoef {
  double lr, wd, momentum, rescale_grad, clip_gradient;
};

inline SgdCoef CoefOf(const SGDParam& p) { return SgdCoef{p.lr, p.wd, 0.0, p.rescale_grad, p.clip_gradient}; }
inline SgdCoef CoefOf(const SGDMomParam& p) {
  return SgdCoef{p.lr, p.wd, p.momentum, p.rescale_grad, p.clip_gradient};
}
inline SgdCoef CoefOf(const NAGMomParam& p) {
  return SgdCoef{p.lr, p.wd, p.momentum, p.rescale_grad, p.clip_gradient};
}

/*!
 * \brief The update of element i of one weight. in = weight, grad, [mom], [weight32]; out = the new weight.
 *   plain:    w = (1 - lr*wd)*w - lr*clip(rescale*g)
 *   momentum: mom = momentum*mom - lr*wd*w - lr*clip(rescale*g); w = w + mom
 *   nesterov: m1 = momentum*mom; w' = w - m1 + (1 + momentum)*(m1 - lr*(clip(rescale*g) + wd*w));
 *             mom = m1 - lr*(clip(rescale*g) + wd*wd_w)
 * With kMP the arithmetic runs on the float32 master copy (and float32 momentum), which is
 * written back, and the weight receives its rounded value.
 *
 * The Nesterov momentum holds the lr-scaled step, as MXNet 1.x stores it (so saved states carry
 * over). wd_w, the weight in the momentum's decay term, follows what MXNet 1.9.1 computes: its
 * kernel updates the momentum after writing the weight, so wd_w is the new weight for the
 * multi-precision variant (a local master value) and whenever the output aliases the weight (the
 * usual out=weight call the optimizers make), and the old weight for an out-of-place call.
 * store(i, v) writes the new weight v (in the compute type) to out element i under the request.
 */
template <SgdRule kRule, bool kMP, typename DType>
struct SgdStep {
  static constexpr bool kHasMom = kRule != SgdRule::kPlain;
  using C = std::conditional_t<kMP, float, compute_t<DType>>;
  using S = std::conditional_t<kMP, float, DType>;  // momentum storage type
  const DType* w;
  const DType* g;
  S* mom;
  float* w32;
  const DType* y;  // the output, read back by Nesterov's decay term when it aliases w
  bool aliased;
  C lr, wd, m;
  GradPrep<C> prep;
  SgdStep() = default;  // an empty slot of the CUDA multi-tensor kernel's batch
  SgdStep(const SgdCoef& k, const TBlob* in, const TBlob& out)
      : w(in[0].dptr<DType>()),
        g(in[1].dptr<DType>()),
        mom(kHasMom ? in[2].dptr<S>() : nullptr),
        w32(kMP ? in[kHasMom ? 3 : 2].dptr<float>() : nullptr),
        y(out.dptr<DType>()),
        aliased(static_cast<const void*>(out.dptr_) == static_cast<const void*>(in[0].dptr_)),
        lr(C(k.lr)),
        wd(C(k.wd)),
        m(C(k.momentum)),
        prep(k) {}
  template <typename Store>
  MXNET_XINLINE void operator()(int64_t i, const Store& store) const {
    C wi = kMP ? C(w32[i]) : C(w[i]);
    const C w_old = wi;
    const C gi = prep(C(g[i]));
    C m1 = C(0);
    if (kRule == SgdRule::kPlain) {
      wi = (C(1) - lr * wd) * wi - lr * gi;
    } else if (kRule == SgdRule::kMomentum) {
      const C v = m * C(mom[i]) - lr * wd * wi - lr * gi;
      mom[i] = S(v);
      wi = wi + v;
    } else {
      m1 = m * C(mom[i]);
      wi = wi - m1 + (m + C(1)) * (m1 - lr * (gi + wd * wi));
    }
    if (kMP) w32[i] = float(wi);
    store(i, wi);
    if (kRule == SgdRule::kNesterov) {
      // After the store, y[i] reads back the weight as written when y aliases w.
      const C wd_w = kMP ? wi : (aliased ? C(y[i]) : w_old);
      mom[i] = S(m1 - lr * (gi + wd * wd_w));
    }
  }
};

/*! \brief Updates one weight on the CPU (see SgdStep). */
template <SgdRule kRule, bool kMP>
void SgdUpdate(const SgdCoef& k, const TBlob* in, OpReqType req, const TBlob& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using Step = SgdStep<kRule, kMP, DType>;
    using C = typename Step::C;
    const Step step(k, in, out);
    DType* y = out.dptr<DType>();
    // Chunks with a SIMD inner loop: y may be w itself (the in-place update), which kept the
    // per-element form scalar; each element only touches index i, so vectorising is exact.
    auto run = [&](int64_t b, int64_t e, auto store) {
      const Step st = step;
      MXNET_SIMD
      for (int64_t i = b; i < e; ++i) st(i, store);
    };
    ParallelChunks(in[0].Size(), [&](int64_t b, int64_t e) {
      if (req == kWriteTo || req == kWriteInplace) {
        run(b, e, [y](int64_t i, C v) { y[i] = DType(v); });
      } else {
        run(b, e, [y, req](int64_t i, C v) { AssignReq(&y[i], req, v); });
      }
    });
  });
}

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPTIMIZER_SGD_RULES_H_
