/*!
 * \file multinomial.cc
 * \brief _sample_multinomial: category indices drawn from the rows of a probability array
 *        (last axis = categories), optionally with the log-probability of each draw, whose
 *        gradient (REINFORCE-style) flows back into the probabilities.
 */
#include <cmath>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/parallel.h"
#include "operator/random/multinomial.h"

namespace mxnet {
namespace op {
namespace {

struct MultinomialParam : public dmlc::Parameter<MultinomialParam> {
  TShape shape;
  bool get_prob;
  int dtype;
  DMLC_DECLARE_PARAMETER(MultinomialParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("Shape to be sampled from each random distribution.");
    DMLC_DECLARE_FIELD(get_prob).set_default(false).describe(
        "Whether to also return the log probability of sampled result. This is usually used for differentiating "
        "through stochastic variables, e.g. in reinforcement learning.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("uint8", kUint8)
        .add_enum("int32", kInt32)
        .add_enum("float16", kFloat16)
        .add_enum("float32", kFloat32)
        .add_enum("float64", kFloat64)
        .set_default(kInt32)
        .describe("DType of the output in case this can't be inferred.");
  }
};
DMLC_REGISTER_PARAMETER(MultinomialParam);

/*! \brief rows x categories of the input, and samples per row. */
struct Layout {
  int64_t rows, k, per;
};

Layout LayoutOf(const NodeAttrs& attrs, const TShape& data) {
  const TShape& extra = attrs.get<MultinomialParam>().shape;
  return Layout{data.ProdShape(0, data.ndim() - 1), data[data.ndim() - 1], extra.ndim() > 0 ? extra.Size() : 1};
}

bool MultinomialShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  MX_CHECK_KIND(d.ndim() >= 1 && d[d.ndim() - 1] > 0, "ValueError")
      << attrs.op->name << ": data must have at least one axis with categories along the last, got " << d;
  const TShape& extra = attrs.get<MultinomialParam>().shape;
  std::vector<dim_t> dims(d.begin(), d.end() - 1);
  if (extra.ndim() > 0) dims.insert(dims.end(), extra.begin(), extra.end());
  if (dims.empty()) dims.push_back(1);  // one draw from a single distribution: shape (1,)
  for (size_t o = 0; o < out->size(); ++o) AssignShape(attrs, &(*out)[o], TShape(dims), "output", static_cast<int>(o));
  return true;
}

bool MultinomialType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  if (t == kUnknownType) return false;
  MX_CHECK_KIND(t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBfloat16, "TypeError")
      << attrs.op->name << ": probabilities must be floating point, got " << DTypeName(t);
  AssignType(attrs, &(*out)[0], attrs.get<MultinomialParam>().dtype, "output", 0);
  if (out->size() > 1) AssignType(attrs, &(*out)[1], t, "output", 1);
  return true;
}

/*! \brief The probabilities as doubles, each row checked (non-negative, finite, not all zero). */
std::vector<double> ReadProbabilities(const std::string& op, const TBlob& data, const Layout& l) {
  std::vector<double> p(static_cast<size_t>(l.rows * l.k));
  MXNET_REAL_TYPE_SWITCH(data.type_flag_, DType, {
    const DType* x = data.dptr<DType>();
    for (int64_t i = 0; i < l.rows * l.k; ++i) p[i] = static_cast<double>(x[i]);
  });
  for (int64_t r = 0; r < l.rows; ++r) random::CheckProbabilityRow(op, &p[r * l.k], l.k, r);
  return p;
}

void MultinomialCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Layout l = LayoutOf(attrs, in[0].shape_);
  const std::vector<double> p = ReadProbabilities(attrs.op->name, in[0], l);
  const RandomStream& rs = ctx.requested[0].random;
  const int64_t n = out[0].Size();
  std::vector<int64_t> pick(static_cast<size_t>(n));
  ParallelFor(n, [&](int64_t i) {
    pick[i] = random::InverseCdfPick(&p[(i / l.per) * l.k], l.k, rs.ForElement(i).UniformD());
  });
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* y = out[0].dptr<DType>();
    for (int64_t i = 0; i < n; ++i) AssignReq(&y[i], req[0], static_cast<DType>(pick[i]));
  });
  if (out.size() > 1) {
    MXNET_REAL_TYPE_SWITCH(out[1].type_flag_, DType, {
      DType* lp = out[1].dptr<DType>();
      for (int64_t i = 0; i < n; ++i)
        AssignReq(&lp[i], req[1], static_cast<DType>(std::log(p[(i / l.per) * l.k + pick[i]])));
    });
  }
}

/*! \brief (ograd of the log-probabilities, data, samples) -> d/d data: ograd / p at each draw. */
void MultinomialBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const Layout l = LayoutOf(attrs, in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* g = out[0].dptr<DType>();
    MXNET_TYPE_SWITCH(in[2].type_flag_, SType, {
      const SType* s = in[2].dptr<SType>();
      ParallelFor(l.rows, [&](int64_t r) {
        std::vector<double> acc(static_cast<size_t>(l.k), 0.0);
        for (int64_t t = 0; t < l.per; ++t) {
          const int64_t i = r * l.per + t;
          const int64_t j = static_cast<int64_t>(s[i]);
          acc[j] += static_cast<double>(og[i]) / static_cast<double>(x[r * l.k + j]);
        }
        for (int64_t j = 0; j < l.k; ++j) AssignReq(&g[r * l.k + j], req[0], static_cast<DType>(acc[j]));
      });
    });
  });
}

uint32_t NumOutputs(const NodeAttrs& attrs) { return attrs.get<MultinomialParam>().get_prob ? 2 : 1; }

}  // namespace

MXNET_REGISTER_OP(_sample_multinomial)
    .add_alias("sample_multinomial")
    .describe(
        "Concurrent sampling from multiple multinomial distributions. data holds probabilities along its "
        "last axis (rows need not be normalised exactly: a draw past the row total takes the last "
        "category with non-zero probability). Output shape: data.shape[:-1] + shape. With get_prob, a "
        "second output holds the log probability of each draw.")
    .set_num_inputs(1)
    .set_num_outputs(NumOutputs)
    .add_argument("data", "NDArray-or-Symbol", "Distribution probabilities. Must sum to one on the last axis.")
    .set_attr_parser(ParamParser<MultinomialParam>)
    .add_arguments(MultinomialParam::__FIELDS__())
    .set_infer_shape(MultinomialShape)
    .set_infer_type(MultinomialType)
    // Temp space: the CUDA kernel's flag for the first invalid row of probabilities.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, MultinomialCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
      if (!n->attrs.get<MultinomialParam>().get_prob) return ZeroGrads(n, ograds);
      return std::vector<NodeEntry>{MakeNode("_backward_sample_multinomial", n->attrs.name + "_backward",
                                             {ograds[1], n->inputs[0], NodeEntry{n, 0, 0}},
                                             {{"shape", n->attrs.get<MultinomialParam>().shape.ToString()}})};
    });

MXNET_REGISTER_OP(_backward_sample_multinomial)
    .describe("Gradient of _sample_multinomial's log probabilities with respect to its input.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the log-probability output.")
    .add_argument("data", "NDArray-or-Symbol", "The probabilities sampled from.")
    .add_argument("sample", "NDArray-or-Symbol", "The drawn categories.")
    .set_attr_parser(ParamParser<MultinomialParam>)
    .add_arguments(MultinomialParam::__FIELDS__())
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      if (!(*in)[1].IsKnown()) return false;
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      return true;
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      if ((*in)[1] == kUnknownType) return false;
      AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
      return true;
    })
    // Temp space: the CUDA kernel accumulates the per-category sums in double there.
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, MultinomialBackward);

}  // namespace op
}  // namespace mxnet
