/*!
 * \file dot.cc
 * \brief dot and batch_dot on OpenBLAS GEMM (float32/float64), with a plain loop for the
 *        other dtypes. dot's gradient is _backward_dot (GEMMs on 2-D views of any-rank
 *        operands); batch_dot's is batch_dot of the output gradient with the other operand.
 *        Transpose flags are chosen so no explicit transpose is materialised.
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"
#include "operator/linalg/dot_param.h"

#if MXNET_USE_OPENBLAS
#include <cblas.h>
#endif

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(DotParam);

namespace {

/*! \brief C(m,n) (+)= op(A) op(B), row-major; lda/ldb are the stored row lengths. */
template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
          OpReqType req) {
  if (req == kNullOp) return;
#if MXNET_USE_OPENBLAS
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    const T beta = req == kAddTo ? T(1) : T(0);
    if (m == 0 || n == 0) return;
    if (k == 0) {
      if (req != kAddTo) std::fill(c, c + m * n, T(0));
      return;
    }
    auto fn = [&](auto gemm) {
      gemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, T(1), a, lda, b,
           ldb, beta, c, n);
    };
    if constexpr (std::is_same_v<T, float>) fn(cblas_sgemm); else fn(cblas_dgemm);
    return;
  }
#endif
  using C = real_compute_t<T>;
  ParallelFor(m, [&](int64_t i) {
    for (int64_t j = 0; j < n; ++j) {
      C acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const C av = static_cast<C>(ta ? a[p * lda + i] : a[i * lda + p]);
        const C bv = static_cast<C>(tb ? b[j * ldb + p] : b[p * ldb + j]);
        acc += av * bv;
      }
      Store(c + i * n + j, req, acc);
    }
  });
}

void DotCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DotParam>();
  TShape os;
  const DotDims d = DotShape(attrs, in[0].shape_, in[1].shape_, &os);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    // lhs stored (m, k) or, transposed, (k, m); rhs (k, n) or (n, k).
    Gemm(p.transpose_a, p.transpose_b, d.m, d.n, d.k, in[0].dptr<DType>(), p.transpose_a ? d.m : d.k,
         in[1].dptr<DType>(), p.transpose_b ? d.k : d.n, out[0].dptr<DType>(), req[0]);
  });
}

bool DotInferShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  TShape o;
  DotShape(attrs, (*in)[0], (*in)[1], &o);
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

bool BatchDotShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape &a = (*in)[0], &b = (*in)[1];
  if (!a.IsKnown() || !b.IsKnown()) return false;
  const auto& p = attrs.get<DotParam>();
  MX_CHECK_KIND(a.ndim() >= 3 && a.ndim() == b.ndim(), "ValueError")
      << attrs.op->name << ": inputs must be N-D (N >= 3) of equal rank, got " << a << " and " << b;
  const int n = a.ndim();
  for (int i = 0; i < n - 2; ++i)
    MX_CHECK_KIND(a[i] == b[i], "ValueError") << attrs.op->name << ": batch dims differ in " << a << " and " << b;
  const int64_t m = p.transpose_a ? a[n - 1] : a[n - 2], ka = p.transpose_a ? a[n - 2] : a[n - 1];
  const int64_t kb = p.transpose_b ? b[n - 1] : b[n - 2], nn = p.transpose_b ? b[n - 2] : b[n - 1];
  MX_CHECK_KIND(ka == kb, "ValueError") << attrs.op->name << ": shapes " << a << " and " << b << " not aligned";
  TShape o = a;
  o[n - 2] = m;
  o[n - 1] = nn;
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

void BatchDotCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DotParam>();
  const TShape &a = in[0].shape_, &b = in[1].shape_;
  const int n = a.ndim();
  const int64_t batch = a.ProdShape(0, n - 2);
  const int64_t m = p.transpose_a ? a[n - 1] : a[n - 2], k = p.transpose_a ? a[n - 2] : a[n - 1];
  const int64_t nn = p.transpose_b ? b[n - 2] : b[n - 1];
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* pa = in[0].dptr<DType>();
    const DType* pb = in[1].dptr<DType>();
    DType* pc = out[0].dptr<DType>();
    for (int64_t i = 0; i < batch; ++i)
      Gemm(p.transpose_a, p.transpose_b, m, nn, k, pa + i * m * k, a[n - 1], pb + i * k * nn, b[n - 1],
           pc + i * m * nn, req[0]);
  });
}

/*!
 * \brief _backward_dot: inputs (ograd, lhs, rhs), outputs (dlhs, drhs). All three are viewed as
 *        2-D around the contracted axis (lhs (m, k), rhs (k, n), ograd (m, n), transposed as the
 *        flags say), which covers 1-D . 1-D, N-D . 1-D and N-D rhs alike: the split of ograd's dims
 *        between lhs and rhs is only known from the input shapes, so this runs as one op.
 */
void DotBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DotParam>();
  TShape os;
  const DotDims d = DotShape(attrs, in[1].shape_, in[2].shape_, &os);
  const int64_t m = d.m, k = d.k, n = d.n;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    const DType* a = in[1].dptr<DType>();
    const DType* b = in[2].dptr<DType>();
    const int64_t lda = p.transpose_a ? m : k, ldb = p.transpose_b ? k : n;
    if (!p.transpose_a) {  // dA (m, k) = G . op(B)^T
      Gemm(false, !p.transpose_b, m, k, n, g, n, b, ldb, out[0].dptr<DType>(), req[0]);
    } else {  // dA stored (k, m) = op(B) . G^T
      Gemm(p.transpose_b, true, k, m, n, b, ldb, g, n, out[0].dptr<DType>(), req[0]);
    }
    if (!p.transpose_b) {  // dB (k, n) = op(A)^T . G
      Gemm(!p.transpose_a, false, k, n, m, a, lda, g, n, out[1].dptr<DType>(), req[1]);
    } else {  // dB stored (n, k) = G^T . op(A)
      Gemm(true, p.transpose_a, n, k, m, g, n, a, lda, out[1].dptr<DType>(), req[1]);
    }
  });
}

/*! \brief d(A.B) of batch_dot: dA = g.B^T (or B.g^T when A was transposed), dB = A^T.g (or g^T.A). */
std::vector<NodeEntry> BatchDotGrad(const NodePtr& node, const std::vector<NodeEntry>& og) {
  const std::string op = "batch_dot";
  const auto& p = node->attrs.get<DotParam>();
  const NodeEntry &a = node->inputs[0], &b = node->inputs[1];
  auto tf = [](bool v) { return std::string(v ? "True" : "False"); };
  const std::string nm = node->attrs.name + "_backward";
  NodeEntry ga, gb;
  if (!p.transpose_a) {
    ga = MakeNode(op, nm + "_a", {og[0], b}, {{"transpose_a", "False"}, {"transpose_b", tf(!p.transpose_b)}});
  } else {
    ga = MakeNode(op, nm + "_a", {b, og[0]}, {{"transpose_a", tf(p.transpose_b)}, {"transpose_b", "True"}});
  }
  if (!p.transpose_b) {
    gb = MakeNode(op, nm + "_b", {a, og[0]}, {{"transpose_a", tf(!p.transpose_a)}, {"transpose_b", "False"}});
  } else {
    gb = MakeNode(op, nm + "_b", {og[0], a}, {{"transpose_a", "True"}, {"transpose_b", tf(p.transpose_a)}});
  }
  return {ga, gb};
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(dot)
        .describe("Dot product of two arrays: contracts the last axis of lhs (first if transpose_a) with the first "
                  "axis of rhs (last if transpose_b); 1-D . 1-D gives shape (1,).")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("lhs", "NDArray-or-Symbol", "The first input")
        .add_argument("rhs", "NDArray-or-Symbol", "The second input")
        .add_arguments(DotParam::__FIELDS__())
        .set_attr_parser(ParamParser<DotParam>)
        .set_infer_shape(DotInferShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, DotCompute)
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          return MakeNodeOutputs("_backward_dot", n->attrs.name + "_backward", {og[0], n->inputs[0], n->inputs[1]},
                                 n->attrs.dict);
        });
    MXNET_REGISTER_OP(_backward_dot)
        .describe("Gradient of dot: (dlhs, drhs) from (ograd, lhs, rhs).")
        .set_num_inputs(3)
        .set_num_outputs(2)
        .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
        .add_argument("lhs", "NDArray-or-Symbol", "The first forward input")
        .add_argument("rhs", "NDArray-or-Symbol", "The second forward input")
        .add_arguments(DotParam::__FIELDS__())
        .set_attr_parser(ParamParser<DotParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
          AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
          return (*in)[1].IsKnown() && (*in)[2].IsKnown();
        })
        .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
          AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
          AssignType(attrs, &(*out)[1], (*in)[0], "output", 1);
          return (*in)[0] >= 0;
        })
        .set_compute(Context::kCPU, DotBackward);
    MXNET_REGISTER_OP(batch_dot)
        .describe("Batchwise dot product of N-D (N >= 3) arrays with equal leading dims: per batch (m, k) x (k, n).")
        .set_num_inputs(2)
        .set_num_outputs(1)
        .add_argument("lhs", "NDArray-or-Symbol", "The first input")
        .add_argument("rhs", "NDArray-or-Symbol", "The second input")
        .add_arguments(DotParam::__FIELDS__())
        .set_attr_parser(ParamParser<DotParam>)
        .set_infer_shape(BatchDotShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, BatchDotCompute)
        .set_gradient(BatchDotGrad);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
