/*!
 * \file sample_rows.cc
 * \brief _sample_<dist>: distribution parameters given as arrays of one shape S, one
 *        distribution per element; `shape` samples are drawn from each, so the output is
 *        S + shape. Parameter values are read and checked serially before the parallel
 *        draw, so a bad value raises (naming the op and the element) instead of escaping
 *        from a worker thread.
 */
#include <string>
#include <vector>

#include "operator/common/op_family.h"
#include "operator/random/dist_param.h"

namespace mxnet {
namespace op {
namespace random {
namespace {

struct SampleRowsParam : public dmlc::Parameter<SampleRowsParam> {
  TShape shape;
  int dtype;
  DMLC_DECLARE_PARAMETER(SampleRowsParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("Shape to be sampled from each random distribution.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", -1)
        .add_enum("float16", kFloat16)
        .add_enum("float32", kFloat32)
        .add_enum("float64", kFloat64)
        .set_default(-1)
        .describe(
            "DType of the output in case this can't be inferred. Defaults to float32 if not defined "
            "(dtype=None).");
  }
};
DMLC_REGISTER_PARAMETER(SampleRowsParam);

template <typename Dist>
bool RowsShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  for (int i = 1; i < Dist::kNumArgs; ++i)
    MX_CHECK_KIND((*in)[i] == s, "ValueError")
        << attrs.op->name << ": all parameter arrays must have the same shape, got " << ShapesToString(*in);
  const TShape& extra = attrs.get<SampleRowsParam>().shape;
  std::vector<dim_t> dims(s.begin(), s.end());
  if (extra.ndim() > 0) dims.insert(dims.end(), extra.begin(), extra.end());
  AssignShape(attrs, &(*out)[0], TShape(dims), "output", 0);
  return true;
}

template <typename Dist>
bool RowsType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (int i = 0; i < Dist::kNumArgs; ++i) {
    const int t = (*in)[i];
    if (t == kUnknownType) return false;
    MX_CHECK_KIND(t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBfloat16, "TypeError")
        << attrs.op->name << ": parameter array " << Dist::kArgs[i].input_name << " must be floating point, got "
        << DTypeName(t);
    MX_CHECK_KIND(t == (*in)[0], "TypeError") << attrs.op->name << ": all parameter arrays must share one dtype, got "
                                              << DTypeName((*in)[0]) << " and " << DTypeName(t);
  }
  const int dtype = attrs.get<SampleRowsParam>().dtype;
  if (dtype != -1) {
    AssignType(attrs, &(*out)[0], dtype, "output", 0);
  } else if ((*out)[0] == kUnknownType) {
    (*out)[0] = kFloat32;
  }
  return true;
}

/*! \brief The parameter arrays as doubles, element-major (args of element j at [j*kNumArgs]). */
template <typename Dist>
std::vector<double> ReadArgs(const std::string& op, const std::vector<TBlob>& in) {
  const int64_t n = in[0].Size();
  std::vector<double> args(static_cast<size_t>(n) * Dist::kNumArgs);
  for (int k = 0; k < Dist::kNumArgs; ++k) {
    MXNET_REAL_TYPE_SWITCH(in[k].type_flag_, DType, {
      const DType* p = in[k].dptr<DType>();
      for (int64_t j = 0; j < n; ++j) args[j * Dist::kNumArgs + k] = static_cast<double>(p[j]);
    });
  }
  for (int64_t j = 0; j < n; ++j)
    if (Dist::Invalid(&args[j * Dist::kNumArgs]) != nullptr) ThrowBadRowArgs<Dist>(op, &args[j * Dist::kNumArgs], j);
  return args;
}

template <typename Dist>
void RowsCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const std::vector<double> args = ReadArgs<Dist>(attrs.op->name, in);
  const int64_t n = in[0].Size();
  const int64_t per = n > 0 ? out[0].Size() / n : 0;
  const double* a = args.data();
  FillSamples<Dist>(out[0], req[0], ctx.requested[0].random,
                    [a, per](int64_t i) { return a + (i / per) * Dist::kNumArgs; });
}

template <typename Dist>
Op& RowsSamplerFamily(Op& op) {
  MX_CHECK(op.name == std::string("_sample_") + Dist::kName) << op.name << " registered as a " << Dist::kName << " sampler";
  std::string inputs;
  for (int i = 0; i < Dist::kNumArgs; ++i) inputs += std::string(i ? ", " : "") + Dist::kArgs[i].input_name;
  op.describe(std::string("Concurrent sampling from multiple ") + Dist::kName +
              " distributions with parameters given as arrays (" + inputs +
              ") of one shape S. Draws `shape` samples from each distribution; the output has "
              "shape S + shape.")
      .set_num_inputs(Dist::kNumArgs)
      .set_num_outputs(1);
  for (int i = 0; i < Dist::kNumArgs; ++i)
    op.add_argument(Dist::kArgs[i].input_name, "NDArray-or-Symbol", Dist::kArgs[i].doc);
  op.set_attr_parser(ParamParser<SampleRowsParam>)
      .add_arguments(SampleRowsParam::__FIELDS__())
      .set_infer_shape(RowsShape<Dist>)
      .set_infer_type(RowsType<Dist>)
      // Temp space: the CUDA kernel's flag for the first invalid parameter element.
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace})
      .set_compute(Context::kCPU, RowsCompute<Dist>)
      .set_gradient(ZeroGrads);
  return op;
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(_sample_uniform, RowsSamplerFamily<UniformDist>).add_alias("sample_uniform");
  MXNET_REGISTER_OP_FAMILY(_sample_normal, RowsSamplerFamily<NormalDist>).add_alias("sample_normal");
  MXNET_REGISTER_OP_FAMILY(_sample_gamma, RowsSamplerFamily<GammaDist>).add_alias("sample_gamma");
  MXNET_REGISTER_OP_FAMILY(_sample_exponential, RowsSamplerFamily<ExponentialDist>).add_alias("sample_exponential");
  MXNET_REGISTER_OP_FAMILY(_sample_poisson, RowsSamplerFamily<PoissonDist>).add_alias("sample_poisson");
  MXNET_REGISTER_OP_FAMILY(_sample_negative_binomial, RowsSamplerFamily<NegBinomialDist>)
      .add_alias("sample_negative_binomial");
  MXNET_REGISTER_OP_FAMILY(_sample_generalized_negative_binomial, RowsSamplerFamily<GenNegBinomialDist>)
      .add_alias("sample_generalized_negative_binomial");
  return true;
}();

}  // namespace
}  // namespace random
}  // namespace op
}  // namespace mxnet
