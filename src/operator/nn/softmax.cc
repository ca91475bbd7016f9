/*!
 * \file softmax.cc
 * \brief softmax, log_softmax and softmin along an axis (temperature, output dtype, length
 *        masking) and their `_backward_*` ops. float32 without length masking runs
 *        softmax_inner.h's tiled kernels over a non-last axis and oneDNN softmax / logsoftmax
 *        over the last (temperature and softmin's sign as a scale of the input); otherwise
 *        the reference loops below.
 */
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "operator/nn/nn_util.h"
#include "operator/nn/softmax_inner.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  dmlc::optional<int> dtype;
  dmlc::optional<bool> use_length;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis along which to compute softmax.");
    DMLC_DECLARE_FIELD(temperature).set_default(dmlc::optional<double>()).describe("Temperature parameter in softmax");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float16", kFloat16).add_enum("float32", kFloat32).add_enum("float64", kFloat64)
        .set_default(dmlc::optional<int>())
        .describe("DType of the output in case this can't be inferred. Defaults to the same as input's dtype.");
    DMLC_DECLARE_FIELD(use_length).set_default(dmlc::optional<bool>(false))
        .describe("Whether to use the length input as a mask over the data input.");
  }
};
DMLC_REGISTER_PARAMETER(SoftmaxParam);

namespace {

enum SoftmaxKind { kSoftmax, kLogSoftmax, kSoftmin };

bool UseLength(const NodeAttrs& a) {
  const auto& p = a.get<SoftmaxParam>();
  return p.use_length.has_value() && p.use_length.value();
}

/*! \brief data viewed as (outer, n, inner) around the axis. */
struct AxisView {
  int64_t outer, n, inner;
  int axis;
  AxisView(const NodeAttrs& attrs, const TShape& s) {
    axis = NormAxis(attrs, attrs.get<SoftmaxParam>().axis, s.ndim());
    outer = s.ProdShape(0, axis);
    n = s[axis];
    inner = s.ProdShape(axis + 1, s.ndim());
  }
};

bool SoftmaxShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  const AxisView v(attrs, ds);
  if (UseLength(attrs)) {
    std::vector<dim_t> l;
    for (int i = 0; i < ds.ndim(); ++i)
      if (i != v.axis) l.push_back(ds[i]);
    AssignShape(attrs, &(*in)[1], TShape(l), "length", 1);
  }
  AssignShape(attrs, &(*out)[0], ds, "output", 0);
  return true;
}

bool SoftmaxType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const auto& p = attrs.get<SoftmaxParam>();
  if ((*in)[0] < 0) return false;
  AssignType(attrs, &(*out)[0], p.dtype.has_value() ? p.dtype.value() : (*in)[0], "output", 0);
  if (UseLength(attrs) && (*in)[1] < 0) (*in)[1] = kInt32;
  return true;
}

/*! \brief Valid length of row (o, i); the whole axis without a length input. */
inline int64_t RowLength(const TBlob* len, int64_t o, int64_t i, int64_t inner, int64_t n) {
  if (!len) return n;
  int64_t l = 0;
  MXNET_TYPE_SWITCH(len->type_flag_, L, { l = static_cast<int64_t>(static_cast<const L*>(len->dptr_)[o * inner + i]); });
  return l < 0 ? 0 : (l > n ? n : l);
}

template <typename DI, typename DO>
void SoftmaxPlain(SoftmaxKind kind, const AxisView& v, double temp, const DI* x, DO* y, const TBlob* len,
                  OpReqType req) {
  using C = std::conditional_t<std::is_same_v<DI, double> || std::is_same_v<DO, double>, double, float>;
  const C inv_t = C(1) / C(temp) * (kind == kSoftmin ? C(-1) : C(1));
#pragma omp parallel for schedule(static) if (UseParallel(v.outer * v.n * v.inner))
  for (int64_t r = 0; r < v.outer * v.inner; ++r) {
    const int64_t o = r / v.inner, i = r % v.inner;
    const int64_t base = o * v.n * v.inner + i, L = RowLength(len, o, i, v.inner, v.n);
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t k = 0; k < L; ++k) mx = std::max(mx, C(x[base + k * v.inner]) * inv_t);
    C sum = 0;
    for (int64_t k = 0; k < L; ++k) sum += std::exp(C(x[base + k * v.inner]) * inv_t - mx);
    const C lse = mx + std::log(sum);
    for (int64_t k = 0; k < v.n; ++k) {
      C val = 0;
      if (k < L) {
        const C z = C(x[base + k * v.inner]) * inv_t;
        val = kind == kLogSoftmax ? z - lse : std::exp(z - lse);
      }
      Store(y + base + k * v.inner, req, val);
    }
  }
}

/*! \brief dx from dy and the output y. */
template <typename DO, typename DI>
void SoftmaxGradPlain(SoftmaxKind kind, const AxisView& v, double temp, const DO* dy, const DO* y, DI* dx,
                      const TBlob* len, OpReqType req) {
  using C = std::conditional_t<std::is_same_v<DI, double> || std::is_same_v<DO, double>, double, float>;
  const C inv_t = C(1) / C(temp) * (kind == kSoftmin ? C(-1) : C(1));
#pragma omp parallel for schedule(static) if (UseParallel(v.outer * v.n * v.inner))
  for (int64_t r = 0; r < v.outer * v.inner; ++r) {
    const int64_t o = r / v.inner, i = r % v.inner;
    const int64_t base = o * v.n * v.inner + i, L = RowLength(len, o, i, v.inner, v.n);
    C s = 0;
    for (int64_t k = 0; k < L; ++k) {
      const int64_t j = base + k * v.inner;
      s += kind == kLogSoftmax ? C(dy[j]) : C(dy[j]) * C(y[j]);
    }
    for (int64_t k = 0; k < v.n; ++k) {
      const int64_t j = base + k * v.inner;
      C g = 0;
      if (k < L) g = kind == kLogSoftmax ? C(dy[j]) - std::exp(C(y[j])) * s : C(y[j]) * (C(dy[j]) - s);
      Store(dx + j, req, g * inv_t);
    }
  }
}

/*! \brief softmax(x/T), log_softmax(x/T) and softmin(x) = softmax(-x/T) as softmax of scale * x. */
float InputScale(SoftmaxKind kind, double temp) {
  return static_cast<float>((kind == kSoftmin ? -1.0 : 1.0) / temp);
}

/*!
 * \brief float32 over a non-last axis without length masking: the tiled kernels. oneDNN's
 *        softmax on a strided axis ran 3-100x slower than they do; on the last axis it is fast.
 */
bool UseInnerKernel(const AxisView& v, const TBlob& data, const TBlob& res, const TBlob* len) {
  return !len && v.inner > 1 && data.type_flag_ == kFloat32 && res.type_flag_ == kFloat32;
}

#if MXNET_USE_ONEDNN
/*! \brief float32 in and out, no length masking, overwritten output, a rank oneDNN takes. */
bool UseOneDNN(const TBlob& data, const TBlob& res, OpReqType req, const TBlob* len) {
  return onednn::Enabled() && !len && req != kAddTo && data.type_flag_ == kFloat32 && res.type_flag_ == kFloat32 &&
         data.Size() > 0 && data.ndim() <= 6;
}
void ScaleInto(const TBlob& src, const TBlob& dst, float scale) {
  const float* x = src.dptr<float>();
  float* y = dst.dptr<float>();
  ParallelFor(src.Size(), [&](int64_t i) { y[i] = x[i] * scale; });
}
#endif

template <SoftmaxKind kKind>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<SoftmaxParam>();
  const double temp = p.temperature.has_value() ? p.temperature.value() : 1.0;
  const AxisView v(attrs, in[0].shape_);
  const TBlob* len = UseLength(attrs) ? &in[1] : nullptr;
  if (req[0] != kAddTo && UseInnerKernel(v, in[0], out[0], len)) {
    return SoftmaxInnerForward(kKind == kLogSoftmax, InputScale(kKind, temp), v.outer, v.n, v.inner,
                               in[0].dptr<float>(), out[0].dptr<float>());
  }
#if MXNET_USE_ONEDNN
  if (UseOneDNN(in[0], out[0], req[0], len)) {
    const float scale = InputScale(kKind, temp);
    if (scale == 1.f) return onednn::SoftmaxForward(kKind == kLogSoftmax, in[0], out[0], v.axis);
    // softmax(x / T) = softmax of the scaled copy, computed in place in the output.
    ScaleInto(in[0], out[0], scale);
    return onednn::SoftmaxForward(kKind == kLogSoftmax, out[0], out[0], v.axis);
  }
#endif
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DI, {
    MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DO, {
      SoftmaxPlain<DI, DO>(kKind, v, temp, in[0].dptr<DI>(), out[0].dptr<DO>(), len, req[0]);
    });
  });
}

/*! \brief inputs (ograd, output, data [, length]); outputs (ddata [, dlength]). */
template <SoftmaxKind kKind>
void SoftmaxBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob* len = UseLength(attrs) ? &in[3] : nullptr;
  if (len && req[1] != kNullOp && req[1] != kAddTo) std::memset(out[1].dptr_, 0, out[1].Bytes());
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<SoftmaxParam>();
  const double temp = p.temperature.has_value() ? p.temperature.value() : 1.0;
  const AxisView v(attrs, in[1].shape_);
  if (UseInnerKernel(v, in[1], out[0], len) && in[0].type_flag_ == kFloat32) {
    return SoftmaxInnerBackward(kKind == kLogSoftmax, InputScale(kKind, temp), v.outer, v.n, v.inner,
                                in[0].dptr<float>(), in[1].dptr<float>(), out[0].dptr<float>(), req[0] == kAddTo);
  }
#if MXNET_USE_ONEDNN
  if (UseOneDNN(in[1], out[0], req[0], len)) {
    // d softmax(s * x) / dx = s * (the Jacobian at s * x), so the gradient is scaled after.
    onednn::SoftmaxBackward(kKind == kLogSoftmax, in[0], in[1], out[0], v.axis);
    const float scale = InputScale(kKind, temp);
    if (scale != 1.f) ScaleInto(out[0], out[0], scale);
    return;
  }
#endif
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DO, {
    MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DI, {
      SoftmaxGradPlain<DO, DI>(kKind, v, temp, in[0].dptr<DO>(), in[1].dptr<DO>(), out[0].dptr<DI>(), len, req[0]);
    });
  });
}

bool BackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, &(*out)[0], (*in)[2], "output", 0);
  if (UseLength(attrs)) AssignShape(attrs, &(*out)[1], (*in)[3], "output", 1);
  return (*in)[2].IsKnown();
}

bool BackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], (*in)[2], "output", 0);
  if (UseLength(attrs)) AssignType(attrs, &(*out)[1], (*in)[3], "output", 1);
  return (*in)[2] >= 0;
}

}  // namespace

#define MXNET_REGISTER_SOFTMAX(opname, kind, doc)                                                              \
  MXNET_REGISTER_OP(_backward_##opname)                                                                        \
      .describe("Gradient of " #opname ".")                                                                     \
      .set_num_inputs([](const NodeAttrs& a) { return UseLength(a) ? 4u : 3u; })                             \
      .set_num_outputs([](const NodeAttrs& a) { return UseLength(a) ? 2u : 1u; })                            \
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")                                 \
      .add_argument("output", "NDArray-or-Symbol", "The forward output.")                                    \
      .add_argument("data", "NDArray-or-Symbol", "The forward input (its shape and dtype).")                 \
      .add_arguments(SoftmaxParam::__FIELDS__())                                                             \
      .set_attr_parser(ParamParser<SoftmaxParam>)                                                            \
      .set_infer_shape(BackwardShape)                                                                        \
      .set_infer_type(BackwardType)                                                                          \
      .set_compute(Context::kCPU, SoftmaxBackward<kind>);                                                    \
  MXNET_REGISTER_OP(opname)                                                                                    \
      .describe(doc)                                                                                         \
      .set_num_inputs([](const NodeAttrs& a) { return UseLength(a) ? 2u : 1u; })                             \
      .set_num_outputs(1)                                                                                    \
      .set_list_input_names([](const NodeAttrs& a) {                                                         \
        return UseLength(a) ? std::vector<std::string>{"data", "length"} : std::vector<std::string>{"data"}; \
      })                                                                                                     \
      .add_argument("data", "NDArray-or-Symbol", "The input array.")                                         \
      .add_argument("length", "NDArray-or-Symbol", "The length array.")                                      \
      .add_arguments(SoftmaxParam::__FIELDS__())                                                             \
      .set_attr_parser(ParamParser<SoftmaxParam>)                                                            \
      .set_infer_shape(SoftmaxShape)                                                                         \
      .set_infer_type(SoftmaxType)                                                                           \
      .set_compute(Context::kCPU, SoftmaxCompute<kind>)                                                      \
      .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {                                 \
        std::vector<NodeEntry> ins{og[0], NodeEntry{n, 0, 0}, n->inputs[0]};                                 \
        if (UseLength(n->attrs)) ins.push_back(n->inputs[1]);                                                \
        return MakeNodeOutputs("_backward_" #opname, n->attrs.name + "_backward", ins, n->attrs.dict);         \
      })

MXNET_REGISTER_SOFTMAX(softmax, kSoftmax,
                       "Applies the softmax function along an axis: exp(x/T) / sum(exp(x/T)). With use_length, "
                       "positions beyond the row's length are masked out (output 0).")
    .add_alias("_npx_softmax");
MXNET_REGISTER_SOFTMAX(log_softmax, kLogSoftmax,
                       "Computes the log softmax along an axis: x/T - logsumexp(x/T).")
    .add_alias("_npx_log_softmax");
MXNET_REGISTER_SOFTMAX(softmin, kSoftmin, "Applies the softmin function along an axis: softmax(-x/T).");

}  // namespace op
}  // namespace mxnet
