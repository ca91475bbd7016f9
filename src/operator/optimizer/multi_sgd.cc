/*!
 * \file multi_sgd.cc
 * \brief Multi-tensor SGD: one op updates num_weights weights (each with its own lr and wd),
 *        saving a dispatch per weight. Inputs are the per-weight groups back to back:
 *        multi_sgd_update (weight, grad), multi_sgd_mom_update (weight, grad, mom),
 *        multi_mp_sgd_update (weight, grad, weight32), multi_mp_sgd_mom_update (weight, grad,
 *        mom, weight32). Each weight follows exactly the single-tensor rule.
 */
#include "operator/optimizer/sgd_rules.h"

namespace mxnet {
namespace op {
namespace optimizer {

DMLC_REGISTER_PARAMETER(MultiSGDParam);

namespace {

void ParseMultiSGD(NodeAttrs* attrs) {
  ParamParser<MultiSGDParam>(attrs);
  const auto& p = attrs->get<MultiSGDParam>();
  MX_CHECK_KIND(
      p.lrs.v.size() == static_cast<size_t>(p.num_weights) && p.wds.v.size() == static_cast<size_t>(p.num_weights),
      "ValueError")
      << attrs->op->name << ": lrs and wds must hold num_weights=" << p.num_weights << " values, got " << p.lrs.v.size()
      << " and " << p.wds.v.size();
}

template <SgdRule kRule, bool kMP>
void MultiSgdCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<MultiSGDParam>();
  const size_t group = in.size() / out.size();
  for (size_t k = 0; k < out.size(); ++k) {
    if (req[k] == kNullOp) continue;
    const SgdCoef c{p.lrs.v[k], p.wds.v[k], p.momentum, p.rescale_grad, p.clip_gradient};
    SgdUpdate<kRule, kMP>(c, in.data() + k * group, req[k], out[k]);
  }
}

template <SgdRule kRule, bool kMP>
Op& MultiFamily(Op& op, const char* doc, std::vector<std::string> group, std::vector<uint32_t> mutated) {
  UpdateLayout l = Layout(std::move(group), std::move(mutated), kMP ? 2 : -1);
  l.variadic = true;
  return UpdateFamily(
      op, doc, l, [](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<MultiSGDParam>().num_weights); },
      ParseMultiSGD, MultiSGDParam::__FIELDS__(), MultiSgdCompute<kRule, kMP>);
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(
      multi_sgd_update, MultiFamily<SgdRule::kPlain, false>,
      "Update function for Stochastic Gradient Descent (SGD) optimizer over num_weights weights at once: each "
      "weight = (1 - lrs[i]*wds[i]) * weight - lrs[i] * clip(rescale_grad * grad).",
      std::vector<std::string>{"weight", "grad"}, std::vector<uint32_t>{});
  MXNET_REGISTER_OP_FAMILY(
      multi_sgd_mom_update, MultiFamily<SgdRule::kMomentum, false>,
      "Momentum update function for SGD over num_weights weights at once: v = momentum * v - lrs[i] * "
      "(clip(rescale_grad * grad) + wds[i] * weight); weight = weight + v.",
      std::vector<std::string>{"weight", "grad", "mom"}, std::vector<uint32_t>{2});
  MXNET_REGISTER_OP_FAMILY(multi_mp_sgd_update, MultiFamily<SgdRule::kPlain, true>,
                           "Multi-precision SGD over num_weights weights at once, computed on float32 master copies.",
                           std::vector<std::string>{"weight", "grad", "weight32"}, std::vector<uint32_t>{2});
  MXNET_REGISTER_OP_FAMILY(
      multi_mp_sgd_mom_update, MultiFamily<SgdRule::kMomentum, true>,
      "Multi-precision momentum SGD over num_weights weights at once, computed on float32 master copies with "
      "float32 momentum.",
      std::vector<std::string>{"weight", "grad", "mom", "weight32"}, std::vector<uint32_t>{2, 3});
  return true;
}();

}  // namespace
}  // namespace optimizer
}  // namespace op
}  // namespace mxnet
