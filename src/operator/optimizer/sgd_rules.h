/*!
 * \file sgd_rules.h
 * \brief The SGD-family update of one weight (plain, momentum, Nesterov; optionally on a
 *        float32 master copy), shared by the single- and multi-tensor update ops.
 */
#ifndef MXNET_OPERATOR_OPTIMIZER_SGD_RULES_H_
#define MXNET_OPERATOR_OPTIMIZER_SGD_RULES_H_

#include <type_traits>

#include "operator/optimizer/optimizer_common.h"

namespace mxnet {
namespace op {
namespace optimizer {

enum class SgdRule { kPlain, kMomentum, kNesterov };

struct SgdCoef {
  double lr, wd, momentum, rescale_grad, clip_gradient;
};

/*!
 * \brief Updates one weight. in = weight, grad, [mom], [weight32]; out = the new weight.
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
 */
template <SgdRule kRule, bool kMP>
void SgdUpdate(const SgdCoef& k, const TBlob* in, OpReqType req, const TBlob& out) {
  constexpr bool kHasMom = kRule != SgdRule::kPlain;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = std::conditional_t<kMP, float, compute_t<DType>>;
    using S = std::conditional_t<kMP, float, DType>;  // momentum storage type
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    S* mom = kHasMom ? in[2].dptr<S>() : nullptr;
    float* w32 = kMP ? in[kHasMom ? 3 : 2].dptr<float>() : nullptr;
    DType* y = out.dptr<DType>();
    const bool aliased = static_cast<const void*>(y) == static_cast<const void*>(w);
    const C lr = C(k.lr), wd = C(k.wd), m = C(k.momentum);
    const GradPrep<C> prep(k);
    // Chunks with a SIMD inner loop: y may be w itself (the in-place update), which kept the
    // per-element form scalar; each element only touches index i, so vectorising is exact.
    auto run = [&](int64_t b, int64_t e, auto store) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
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
