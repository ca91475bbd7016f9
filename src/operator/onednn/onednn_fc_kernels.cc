/*!
 * \file onednn_fc_kernels.cc
 * \brief The oneDNN-build entries of the FullyConnected kernel lists:
 *          FullyConnected              sparse_input_gemv, (gemv), onednn, reference
 *          _backward_FullyConnected    onednn, reference
 *          _sg_onednn_fully_connected  onednn, reference
 *        All are tagged "onednn" (MXNET_ONEDNN_ENABLED=0 skips them) and read plain memory.
 */
#if MXNET_USE_ONEDNN

#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/fc_act_fused.h"
#include "operator/nn/fc_gemv.h"
#include "operator/nn/fc_param.h"
#include "operator/nn/nn_util.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

struct FCProblem {
  int64_t M, K, H;
};

FCProblem FCProblemOf(const NodeAttrs& fc_attrs, const TShape& data) {
  FCProblem d;
  FCDims(fc_attrs, data, &d.M, &d.K);
  d.H = fc_attrs.get<FullyConnectedParam>().num_hidden;
  return d;
}

const TBlob* BiasOf(const NodeAttrs& fc_attrs, const std::vector<TBlob>& in) {
  return fc_attrs.get<FullyConnectedParam>().no_bias ? nullptr : &in[2];
}

// ---- FullyConnected ----

/*!
 * \brief One float32 row in inference: after a ReLU it has enough zeros that reading only the
 *        weight rows of its nonzero inputs (from the transpose cached on the weight array) beats
 *        the dense GEMV. Whether it does depends on the values, so the kernel checks and takes
 *        the dense GEMV itself when the row has too few zeros.
 */
bool SparseInputAccepts(const KernelProblem& p) {
  return !p.ctx.is_train && p.inputs[0].type_flag_ == kFloat32 && FCProblemOf(p.attrs, p.inputs[0].shape_).M == 1;
}

void SparseInputCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const FCProblem d = FCProblemOf(attrs, in[0].shape_);
  const TBlob* bias = BiasOf(attrs, in);
  const bool add = req[0] == kAddTo;
  if (FCSparseInputForward(in[0], in[1], bias, out[0], d.K, d.H, add)) return;
  FCGemv(in[0].dptr<float>(), in[1].dptr<float>(), bias ? bias->dptr<float>() : nullptr, out[0].dptr<float>(), d.M,
         d.K, d.H, add);
}

bool InnerProductAccepts(const KernelProblem& p) {
  const FCProblem d = FCProblemOf(p.attrs, p.inputs[0].shape_);
  return SupportedType(p.inputs[0].type_flag_) && d.M > 0 && d.K > 0;
}

void InnerProductCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const FCProblem d = FCProblemOf(attrs, in[0].shape_);
  PostOps post;
  if (req[0] == kAddTo) post.sum_scale = 1.f;  // the primitive accumulates into the output
  FCForward(in[0], in[1], BiasOf(attrs, in), out[0], d.M, d.K, d.H, ctx.is_train, post);
}

// ---- _backward_FullyConnected: inputs (dy, x, w), outputs (dx, dw[, db]) ----

bool InnerProductBackwardAccepts(const KernelProblem& p) {
  const FCProblem d = FCProblemOf(p.attrs, p.inputs[1].shape_);
  const bool has_dw = p.req[1] != kNullOp;
  const bool has_db = !p.attrs.get<FullyConnectedParam>().no_bias && p.req[2] != kNullOp;
  // The primitives overwrite (kAddTo takes the reference), and the bias gradient comes with
  // the weight gradient's primitive.
  return SupportedType(p.inputs[1].type_flag_) && d.M > 0 && d.K > 0 && !AnyAddTo(p.req) && (has_dw || !has_db);
}

void InnerProductBackwardCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FCProblem d = FCProblemOf(attrs, in[1].shape_);
  const TBlob* dx = req[0] != kNullOp ? &out[0] : nullptr;
  const TBlob* dw = req[1] != kNullOp ? &out[1] : nullptr;
  const TBlob* db = !attrs.get<FullyConnectedParam>().no_bias && req[2] != kNullOp ? &out[2] : nullptr;
  FCBackward(in[0], in[1], in[2], dx, dw, db, d.M, d.K, d.H);
}

// ---- _sg_onednn_fully_connected: the activation as an eltwise post-op ----

/*!
 * \brief Batches FullyConnected serves with oneDNN anyway (more rows than its GEMV takes) and an
 *        activation oneDNN has; the reference, after FullyConnected's list, runs the rest and
 *        reports kAddTo, which the fused op cannot do.
 */
bool FusedAccepts(const KernelProblem& p) {
  const FCActAttrs& f = FCActOf(p.attrs);
  const FCProblem d = FCProblemOf(f.fc, p.inputs[0].shape_);
  dnnl::algorithm alg;
  return p.req[0] != kNullOp && p.req[0] != kAddTo && SupportedType(p.inputs[0].type_flag_) &&
         d.M > kFCGemvMaxRows && d.K > 0 && OneDNNEltwise(f.act_type, &alg);
}

void FusedCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const FCActAttrs& f = FCActOf(attrs);
  const FCProblem d = FCProblemOf(f.fc, in[0].shape_);
  dnnl::algorithm alg;
  OneDNNEltwise(f.act_type, &alg);
  PostOps post;
  post.eltwise.push_back({alg, 0.f, 0.f});
  FCForward(in[0], in[1], BiasOf(f.fc, in), out[0], d.M, d.K, d.H, ctx.is_train, post);
}

}  // namespace

MXNET_REGISTER_KERNEL(FullyConnected, kCPU, sparse_input_gemv)
    .set_rank(10)
    .add_tag("onednn")
    .set_accepts(SparseInputAccepts, /*cheap=*/true)
    .set_compute(SparseInputCompute);
// (gemv, rank 20, registers in nn/fully_connected.cc: it needs no oneDNN.)
MXNET_REGISTER_KERNEL(FullyConnected, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_accepts(InnerProductAccepts, /*cheap=*/true)
    .set_compute(InnerProductCompute);

MXNET_REGISTER_KERNEL(_backward_FullyConnected, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_accepts(InnerProductBackwardAccepts, /*cheap=*/true)
    .set_compute(InnerProductBackwardCompute);

MXNET_REGISTER_KERNEL(_sg_onednn_fully_connected, kCPU, onednn)
    .set_rank(30)
    .add_tag("onednn")
    .set_accepts(FusedAccepts, /*cheap=*/true)
    .set_compute(FusedCompute);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
