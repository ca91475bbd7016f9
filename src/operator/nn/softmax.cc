/*!
 * \file softmax.cc
 * \brief softmax, log_softmax and softmin along an axis (temperature, output dtype, length
 *        masking) and their `_backward_*` ops. Kernel lists (each op and its backward):
 *          tiled      float32 over a non-last axis without length masking (softmax_inner.h)
 *          onednn     oneDNN softmax / logsoftmax for the other float32 calls without length
 *                     masking (onednn/onednn_softmax_kernels.cc)
 *          reference  the loops below
 */
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/nn_util.h"
#include "operator/nn/softmax_inner.h"
#include "operator/nn/softmax_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(SoftmaxParam);

namespace {

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

/*!
 * \brief float32 over a non-last axis without length masking: the tiled kernels. oneDNN's
 *        softmax on a strided axis ran 3-100x slower than they do; on the last axis it is fast.
 */
bool TiledTakes(const NodeAttrs& attrs, const TBlob& data, const TBlob& res) {
  return !UseLength(attrs) && AxisView(attrs, data.shape_).inner > 1 && data.type_flag_ == kFloat32 &&
         res.type_flag_ == kFloat32;
}

bool TiledForwardAccepts(const KernelProblem& p) {
  return p.req[0] != kAddTo && TiledTakes(p.attrs, p.inputs[0], p.outputs[0]);
}

template <SoftmaxKind kKind>
void TiledForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AxisView v(attrs, in[0].shape_);
  SoftmaxInnerForward(kKind == kLogSoftmax, InputScale(kKind, Temperature(attrs)), v.outer, v.n, v.inner,
                      in[0].dptr<float>(), out[0].dptr<float>());
}

/*! \brief inputs (ograd, output, data [, length]); outputs (ddata [, dlength]). */
bool TiledBackwardAccepts(const KernelProblem& p) {
  return TiledTakes(p.attrs, p.inputs[1], p.outputs[0]) && p.inputs[0].type_flag_ == kFloat32;
}

template <SoftmaxKind kKind>
void TiledBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AxisView v(attrs, in[1].shape_);
  SoftmaxInnerBackward(kKind == kLogSoftmax, InputScale(kKind, Temperature(attrs)), v.outer, v.n, v.inner,
                       in[0].dptr<float>(), in[1].dptr<float>(), out[0].dptr<float>(), req[0] == kAddTo);
}

template <SoftmaxKind kKind>
void SoftmaxCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const double temp = Temperature(attrs);
  const AxisView v(attrs, in[0].shape_);
  const TBlob* len = UseLength(attrs) ? &in[1] : nullptr;
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
  const double temp = Temperature(attrs);
  const AxisView v(attrs, in[1].shape_);
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
  MXNET_REGISTER_KERNEL(_backward_##opname, kCPU, tiled)                                                     \
      .set_rank(10)                                                                                          \
      .set_accepts(TiledBackwardAccepts, /*cheap=*/true)                                                     \
      .set_compute(TiledBackward<kind>);                                                                     \
  MXNET_REGISTER_KERNEL(opname, kCPU, tiled)                                                                 \
      .set_rank(10)                                                                                          \
      .set_accepts(TiledForwardAccepts, /*cheap=*/true)                                                      \
      .set_compute(TiledForward<kind>);                                                                      \
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
