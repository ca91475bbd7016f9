/*!
 * \file sample_scalar.cc
 * \brief Samplers whose distribution parameters are scalars: _random_<dist> (shape, ctx and
 *        dtype from parameters) and _random_<dist>_like (shape, dtype and device of an input).
 *        Invalid parameter values are rejected when the call is made, naming the op.
 */
#include <string>

#include "operator/common/op_family.h"
#include "operator/common/param_text.h"
#include "operator/random/dist_param.h"

namespace mxnet {
namespace op {
namespace random {
namespace {

template <typename Dist>
bool SizedShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const TShape& shape = attrs.get<DistParam<Dist, true>>().shape;
  if (shape.ndim() > 0) {
    for (dim_t d : shape)
      MX_CHECK_KIND(d >= 0, "ValueError")
          << attrs.op->name << ": shape " << ParamTuple(shape) << " has a negative dimension";
    AssignShape(attrs, &(*out)[0], shape, "output", 0);
    return true;
  }
  MX_CHECK_KIND((*out)[0].IsKnown() && (*out)[0].ndim() > 0, "ValueError")
      << attrs.op->name << ": the shape parameter is required when no output array is given";
  return true;
}

/*! \brief dtype=None keeps the type of a given output, else float32 (int32 for randint). */
template <typename Dist>
bool SizedType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  const int dtype = attrs.get<DistParam<Dist, true>>().dtype;
  if (dtype != -1) {
    AssignType(attrs, &(*out)[0], dtype, "output", 0);
  } else if ((*out)[0] == kUnknownType) {
    (*out)[0] = Dist::kInteger ? kInt32 : kFloat32;
  }
  return true;
}

template <typename Dist, bool kSized>
void ScalarSampleCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double* args = attrs.get<DistParam<Dist, kSized>>().args;
  FillSamples<Dist>(out[0], req[0], ctx.requested[0].random, [args](int64_t) { return args; });
}

std::string ArgList(const DistArg* args, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += std::string(i ? ", " : "") + args[i].name;
  return s;
}

template <typename Dist>
Op& ScalarSamplerFamily(Op& op) {
  using P = DistParam<Dist, true>;
  MX_CHECK(op.name == std::string("_random_") + Dist::kName) << op.name << " registered as a " << Dist::kName << " sampler";
  return op
      .describe(std::string("Draws random samples from a ") + Dist::kName + " distribution with scalar " +
                "parameters (" + ArgList(Dist::kArgs, Dist::kNumArgs) +
                "). Reproducible for a given mx.random.seed and call order.")
      .set_num_inputs(0)
      .set_num_outputs(1)
      .set_attr_parser(ParseDistParam<Dist, true>)
      .add_arguments(P::__FIELDS__())
      .set_infer_shape(SizedShape<Dist>)
      .set_infer_type(SizedType<Dist>)
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom})
      .set_compute(Context::kCPU, ScalarSampleCompute<Dist, true>);
}

template <typename Dist>
Op& LikeSamplerFamily(Op& op) {
  using P = DistParam<Dist, false>;
  MX_CHECK(op.name == std::string("_random_") + Dist::kName + "_like")
      << op.name << " registered as a " << Dist::kName << " sampler";
  return op
      .describe(std::string("Draws random samples from a ") + Dist::kName +
                " distribution, with the shape, dtype and device of the input array.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input; only its shape, dtype and device are used.")
      .set_attr_parser(ParseDistParam<Dist, false>)
      .add_arguments(P::__FIELDS__())
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(ElemwiseType)
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom})
      .set_compute(Context::kCPU, ScalarSampleCompute<Dist, false>)
      .set_gradient(ZeroGrads);
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(_random_uniform, ScalarSamplerFamily<UniformDist>)
      .add_alias("uniform")
      .add_alias("random_uniform");
  MXNET_REGISTER_OP_FAMILY(_random_normal, ScalarSamplerFamily<NormalDist>)
      .add_alias("normal")
      .add_alias("random_normal");
  MXNET_REGISTER_OP_FAMILY(_random_gamma, ScalarSamplerFamily<GammaDist>).add_alias("random_gamma");
  MXNET_REGISTER_OP_FAMILY(_random_exponential, ScalarSamplerFamily<ExponentialDist>).add_alias("random_exponential");
  MXNET_REGISTER_OP_FAMILY(_random_poisson, ScalarSamplerFamily<PoissonDist>).add_alias("random_poisson");
  MXNET_REGISTER_OP_FAMILY(_random_negative_binomial, ScalarSamplerFamily<NegBinomialDist>)
      .add_alias("random_negative_binomial");
  MXNET_REGISTER_OP_FAMILY(_random_generalized_negative_binomial, ScalarSamplerFamily<GenNegBinomialDist>)
      .add_alias("random_generalized_negative_binomial");
  MXNET_REGISTER_OP_FAMILY(_random_randint, ScalarSamplerFamily<RandintDist>).add_alias("random_randint");
  MXNET_REGISTER_OP_FAMILY(_random_uniform_like, LikeSamplerFamily<UniformDist>);
  MXNET_REGISTER_OP_FAMILY(_random_normal_like, LikeSamplerFamily<NormalDist>);
  MXNET_REGISTER_OP_FAMILY(_random_gamma_like, LikeSamplerFamily<GammaDist>);
  MXNET_REGISTER_OP_FAMILY(_random_exponential_like, LikeSamplerFamily<ExponentialDist>);
  MXNET_REGISTER_OP_FAMILY(_random_poisson_like, LikeSamplerFamily<PoissonDist>);
  MXNET_REGISTER_OP_FAMILY(_random_negative_binomial_like, LikeSamplerFamily<NegBinomialDist>);
  MXNET_REGISTER_OP_FAMILY(_random_generalized_negative_binomial_like, LikeSamplerFamily<GenNegBinomialDist>);
  return true;
}();

}  // namespace
}  // namespace random
}  // namespace op
}  // namespace mxnet
