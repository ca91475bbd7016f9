/*!
 * \file pdf.cc
 * \brief _random_pdf_<dist>(sample, params..., is_log): the density (or probability mass) of
 *        each sample under its distribution, and _backward_pdf_<dist>, its gradient with
 *        respect to the sample and every parameter. The parameter arrays share one shape P
 *        (one distribution per element); the sample has shape P + E, E samples per
 *        distribution, and so has the output. Dirichlet works over a last axis of K
 *        categories: alpha is P + (K,), the sample P + E + (K,), the output P + E.
 */
#include <string>
#include <vector>

#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/random/pdf_dists.h"

namespace mxnet {
namespace op {
namespace random {
namespace {

}  // namespace

DMLC_REGISTER_PARAMETER(PdfParam);

namespace {

bool IsFloat(int t) { return t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBfloat16; }

/*! \brief Every input and output shares one floating-point dtype (the backward's outputs that of ograd). */
bool PdfType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = kUnknownType;
  for (int v : *in)
    if (t == kUnknownType) t = v;
  for (int v : *out)
    if (t == kUnknownType) t = v;
  if (t == kUnknownType) return false;
  for (size_t i = 0; i < in->size(); ++i) {
    const int v = (*in)[i];
    MX_CHECK_KIND(v == kUnknownType || IsFloat(v), "TypeError")
        << attrs.op->name << ": expects floating-point inputs, got " << DTypeName(v) << " for input " << i;
    AssignType(attrs, &(*in)[i], t, "input", static_cast<int>(i));
  }
  for (size_t i = 0; i < out->size(); ++i) AssignType(attrs, &(*out)[i], t, "output", static_cast<int>(i));
  return true;
}

/*! \brief The shape P of the parameter inputs [first, first + n) (all equal), or unknown. */
TShape ParamShape(const NodeAttrs& attrs, std::vector<TShape>* in, size_t first, size_t n) {
  TShape p;
  for (size_t i = first; i < first + n; ++i)
    if (!p.IsKnown() && (*in)[i].IsKnown()) p = (*in)[i];
  if (!p.IsKnown()) return p;
  for (size_t i = first; i < first + n; ++i) AssignShape(attrs, &(*in)[i], p, "input", static_cast<int>(i));
  return p;
}

/*! \brief Throws unless dims [0, n) of `sample` equal those of `params`. */
void CheckPrefix(const NodeAttrs& attrs, const TShape& sample, const TShape& params, int n, const char* rule) {
  bool ok = sample.ndim() >= n && params.ndim() >= n;
  for (int i = 0; ok && i < n; ++i) ok = sample[i] == params[i];
  MX_CHECK_KIND(ok, "ValueError") << attrs.op->name << ": " << rule << ", got sample " << sample << " and parameters "
                                  << params;
}

/*! \brief Scalar distributions: params of shape P, sample and output of shape P + E. */
bool PdfShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape& sample = (*in)[0];
  if (sample.IsKnown()) AssignShape(attrs, &(*out)[0], sample, "output", 0);
  else if ((*out)[0].IsKnown()) AssignShape(attrs, &sample, (*out)[0], "input", 0);
  const TShape p = ParamShape(attrs, in, 1, in->size() - 1);
  if (!p.IsKnown() || !sample.IsKnown()) return false;
  CheckPrefix(attrs, sample, p, p.ndim(), "the sample's shape must start with the parameters' shape");
  return true;
}

/*! \brief Dirichlet: alpha P + (K,), sample P + E + (K,), output P + E. */
bool DirichletShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& sample = (*in)[0];
  const TShape& alpha = (*in)[1];
  if (!sample.IsKnown() || !alpha.IsKnown()) return false;
  MX_CHECK_KIND(alpha.ndim() >= 1 && sample.ndim() >= alpha.ndim(), "ValueError")
      << attrs.op->name << ": alpha needs a last axis of categories and the sample at least as many axes, got sample "
      << sample << " and alpha " << alpha;
  CheckPrefix(attrs, sample, alpha, alpha.ndim() - 1,
              "the sample's shape must start with alpha's shape without its last axis");
  MX_CHECK_KIND(sample[sample.ndim() - 1] == alpha[alpha.ndim() - 1], "ValueError")
      << attrs.op->name << ": the sample and alpha must have the same number of categories (last axis), got sample "
      << sample << " and alpha " << alpha;
  AssignShape(attrs, &(*out)[0], TShape(sample.begin(), sample.end() - 1), "output", 0);
  return true;
}

/*! \brief The backward's outputs are shaped like the forward's inputs (its inputs after ograd). */
bool BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  bool known = true;
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*in)[i + 1].IsKnown()) AssignShape(attrs, &(*out)[i], (*in)[i + 1], "output", static_cast<int>(i));
    known = known && (*in)[i + 1].IsKnown();
  }
  return known;
}

template <typename D>
void PdfForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool is_log = attrs.get<PdfParam>().is_log;
  const int64_t total = in[0].Size(), per = PerDistribution(total, in[1].Size());
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    const DType* params[D::kNumParams];
    for (int k = 0; k < D::kNumParams; ++k) params[k] = in[k + 1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(total, [&](int64_t i) {
      double args[D::kNumParams];
      for (int k = 0; k < D::kNumParams; ++k) args[k] = static_cast<double>(params[k][i / per]);
      const double lp = D::LogPdf(static_cast<double>(x[i]), args);
      AssignReq(&y[i], req[0], static_cast<DType>(is_log ? lp : std::exp(lp)));
    });
  });
}

/*!
 * \brief in: ograd, sample, params...; out: d/d sample, d/d params. The gradient of the density
 *        is density * d log-density; a zero density gives zero (not 0 * inf). Each distribution's
 *        parameter gradient sums its samples' terms, so the work splits by distribution.
 */
template <typename D>
void PdfBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool is_log = attrs.get<PdfParam>().is_log;
  const int64_t n = in[2].Size(), per = PerDistribution(in[1].Size(), n);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* params[D::kNumParams];
    DType* gparams[D::kNumParams];
    for (int k = 0; k < D::kNumParams; ++k) {
      params[k] = in[k + 2].dptr<DType>();
      gparams[k] = out[k + 1].dptr<DType>();
    }
    DType* gx = out[0].dptr<DType>();
    ParallelFor(n, [&](int64_t j) {
      double args[D::kNumParams], acc[D::kNumParams] = {};
      for (int k = 0; k < D::kNumParams; ++k) args[k] = static_cast<double>(params[k][j]);
      for (int64_t i = j * per; i < (j + 1) * per; ++i) {
        const double xi = static_cast<double>(x[i]);
        double head = static_cast<double>(og[i]);
        if (!is_log) head *= std::exp(D::LogPdf(xi, args));
        double dx = 0.0, dp[D::kNumParams] = {};
        if (head != 0.0) D::Grad(xi, args, &dx, dp);
        AssignReq(&gx[i], req[0], static_cast<DType>(head * dx));
        for (int k = 0; k < D::kNumParams; ++k) acc[k] += head * dp[k];
      }
      for (int k = 0; k < D::kNumParams; ++k) AssignReq(&gparams[k][j], req[k + 1], static_cast<DType>(acc[k]));
    });
  });
}

void DirichletForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool is_log = attrs.get<PdfParam>().is_log;
  const TShape& as = in[1].shape_;
  const int64_t k = as[as.ndim() - 1], n = k > 0 ? in[1].Size() / k : 0;
  const int64_t total = out[0].Size(), per = PerDistribution(total, n);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    const DType* alpha = in[1].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(total, [&](int64_t i) {
      const double lp = PdfDirichlet::LogPdf(x + i * k, alpha + (i / per) * k, k);
      AssignReq(&y[i], req[0], static_cast<DType>(is_log ? lp : std::exp(lp)));
    });
  });
}

void DirichletBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool is_log = attrs.get<PdfParam>().is_log;
  const TShape& as = in[2].shape_;
  const int64_t k = as[as.ndim() - 1], n = k > 0 ? in[2].Size() / k : 0;
  const int64_t per = PerDistribution(in[0].Size(), n);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* alpha = in[2].dptr<DType>();
    DType* gx = out[0].dptr<DType>();
    DType* galpha = out[1].dptr<DType>();
    ParallelFor(n, [&](int64_t j) {
      const std::vector<double> a(alpha + j * k, alpha + (j + 1) * k);
      std::vector<double> xs(k), dx(k), da(k), acc(k, 0.0);
      for (int64_t i = j * per; i < (j + 1) * per; ++i) {
        for (int64_t c = 0; c < k; ++c) xs[c] = static_cast<double>(x[i * k + c]);
        double head = static_cast<double>(og[i]);
        if (!is_log) head *= std::exp(PdfDirichlet::LogPdf(xs.data(), a.data(), k));
        if (head != 0.0) PdfDirichlet::Grad(xs.data(), a.data(), k, dx.data(), da.data());
        for (int64_t c = 0; c < k; ++c) {
          AssignReq(&gx[i * k + c], req[0], static_cast<DType>(head != 0.0 ? head * dx[c] : 0.0));
          if (head != 0.0) acc[c] += head * da[c];
        }
      }
      for (int64_t c = 0; c < k; ++c) AssignReq(&galpha[j * k + c], req[1], static_cast<DType>(acc[c]));
    });
  });
}

/*! \brief _backward_pdf_<dist>(ograd, sample, params...) with the forward's attributes. */
FGradient PdfGradient(const std::string& backward) {
  return [backward](const NodePtr& n, const std::vector<NodeEntry>& og) {
    std::vector<NodeEntry> inputs{og[0]};
    inputs.insert(inputs.end(), n->inputs.begin(), n->inputs.end());
    return MakeNodeOutputs(backward, n->attrs.name + "_backward", inputs, n->attrs.dict);
  };
}

Op& PdfCommon(Op& op, int num_params, const std::string& what) {
  return op.describe("Computes the value of the " + what +
                     " at each sample; the log of it when is_log is true. The parameter arrays share "
                     "one shape and give one distribution per element; the sample's shape starts with "
                     "theirs, its remaining axes holding samples of that distribution. Differentiable with "
                     "respect to the sample and the parameters.")
      .set_num_inputs(num_params + 1)
      .set_num_outputs(1)
      .add_argument("sample", "NDArray-or-Symbol", "Samples from the distributions.");
}

template <typename D>
Op& PdfFamily(Op& op) {
  MX_CHECK(op.name == std::string("_random_pdf_") + D::kName) << op.name << " registered as the " << D::kName << " pdf";
  PdfCommon(op, D::kNumParams, std::string("probability density (or mass) of the ") + D::kName + " distributions");
  for (int k = 0; k < D::kNumParams; ++k) op.add_argument(D::kParams[k].name, "NDArray-or-Symbol", D::kParams[k].doc);
  return op.set_attr_parser(ParamParser<PdfParam>)
      .add_arguments(PdfParam::__FIELDS__())
      .set_infer_shape(PdfShape)
      .set_infer_type(PdfType)
      .set_compute(Context::kCPU, PdfForward<D>)
      .set_gradient(PdfGradient(std::string("_backward_pdf_") + D::kName));
}

Op& PdfBackwardCommon(Op& op, int num_params, FCompute fc) {
  return op.describe("Gradient of a pdf op: (ograd, sample, parameters...) -> (d sample, d parameters...).")
      .set_num_inputs(num_params + 2)
      .set_num_outputs(num_params + 1)
      .set_attr_parser(ParamParser<PdfParam>)
      .add_arguments(PdfParam::__FIELDS__())
      .set_infer_shape(BackwardShape)
      .set_infer_type(PdfType)
      .set_compute(Context::kCPU, std::move(fc));
}

/*! \brief Dirichlet's backward: its CUDA kernel keeps per-sample terms in temp space. */
Op& DirichletBackwardFamily(Op& op) {
  return PdfBackwardCommon(op, 1, DirichletBackward)
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace});
}

template <typename D>
Op& PdfBackwardFamily(Op& op) {
  return PdfBackwardCommon(op, D::kNumParams, PdfBackward<D>);
}

Op& DirichletFamily(Op& op) {
  return PdfCommon(op, 1, "probability density of the Dirichlet distributions (over the last axis)")
      .add_argument("alpha", "NDArray-or-Symbol", "Concentration parameters of the distributions.")
      .set_attr_parser(ParamParser<PdfParam>)
      .add_arguments(PdfParam::__FIELDS__())
      .set_infer_shape(DirichletShape)
      .set_infer_type(PdfType)
      .set_compute(Context::kCPU, DirichletForward)
      .set_gradient(PdfGradient("_backward_pdf_dirichlet"));
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(_random_pdf_uniform, PdfFamily<PdfUniform>).add_alias("random_pdf_uniform");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_normal, PdfFamily<PdfNormal>).add_alias("random_pdf_normal");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_gamma, PdfFamily<PdfGamma>).add_alias("random_pdf_gamma");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_exponential, PdfFamily<PdfExponential>).add_alias("random_pdf_exponential");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_poisson, PdfFamily<PdfPoisson>).add_alias("random_pdf_poisson");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_negative_binomial, PdfFamily<PdfNegBinomial>)
      .add_alias("random_pdf_negative_binomial");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_generalized_negative_binomial, PdfFamily<PdfGenNegBinomial>)
      .add_alias("random_pdf_generalized_negative_binomial");
  MXNET_REGISTER_OP_FAMILY(_random_pdf_dirichlet, DirichletFamily).add_alias("random_pdf_dirichlet");
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_uniform, PdfBackwardFamily<PdfUniform>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_normal, PdfBackwardFamily<PdfNormal>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_gamma, PdfBackwardFamily<PdfGamma>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_exponential, PdfBackwardFamily<PdfExponential>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_poisson, PdfBackwardFamily<PdfPoisson>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_negative_binomial, PdfBackwardFamily<PdfNegBinomial>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_generalized_negative_binomial, PdfBackwardFamily<PdfGenNegBinomial>);
  MXNET_REGISTER_OP_FAMILY(_backward_pdf_dirichlet, DirichletBackwardFamily);
  return true;
}();

}  // namespace
}  // namespace random
}  // namespace op
}  // namespace mxnet
