/*!
 * \file optimizer_others.cu
 * \brief CUDA kernels of rmsprop_update, rmspropalex_update (rmsprop.cc), ftrl_update,
 *        signsgd_update and signum_update (ftrl_sign.cc): the rules of rmsprop_rules.h and
 *        ftrl_sign_rules.h, which the CPU kernels apply too, over every element.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/optimizer_update.cuh"
#include "operator/optimizer/ftrl_sign_rules.h"
#include "operator/optimizer/rmsprop_rules.h"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief An update op whose rule Rule<DType> is built from the parameter struct P and the inputs. */
template <template <typename> class Rule, typename P>
void RuleCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    RunUpdateRule(ctx, in[0].Size(), Rule<DType>(attrs.get<P>(), in), out[0].dptr<DType>(), req[0],
                  attrs.op->name.c_str());
  });
}

}  // namespace cuda

namespace opt = optimizer;
MXNET_REGISTER_KERNEL(rmsprop_update, kGPU, cuda).set_compute(cuda::RuleCompute<opt::RMSPropRule, opt::RMSPropParam>);
MXNET_REGISTER_KERNEL(rmspropalex_update, kGPU, cuda)
    .set_compute(cuda::RuleCompute<opt::RMSPropAlexRule, opt::RMSPropAlexParam>);
MXNET_REGISTER_KERNEL(ftrl_update, kGPU, cuda).set_compute(cuda::RuleCompute<opt::FtrlRule, opt::FtrlParam>);
MXNET_REGISTER_KERNEL(signsgd_update, kGPU, cuda).set_compute(cuda::RuleCompute<opt::SignSGDRule, opt::SignSGDParam>);
MXNET_REGISTER_KERNEL(signum_update, kGPU, cuda).set_compute(cuda::RuleCompute<opt::SignumRule, opt::SignumParam>);

}  // namespace op
}  // namespace mxnet
