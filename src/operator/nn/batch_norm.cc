/*!
 * \file batch_norm.cc
 * \brief BatchNorm (eps, momentum, fix_gamma, use_global_stats, output_mean_var, axis) and
 *        `_backward_BatchNorm`. Outputs: out, batch mean, batch variance (biased). As in
 *        MXNet 1.x, the moving statistics (inputs 3 and 4, auxiliary states) are updated in the
 *        training backward pass, moving = moving * momentum + batch * (1 - momentum), from the
 *        batch statistics the forward saved: a training forward without a backward (a
 *        generator's forward whose loss never reaches it) leaves them as they were. The
 *        backward ops take the moving statistics as inputs they write.
 *        `_contrib_BatchNormWithReLU` is BatchNorm followed by a ReLU in one pass (oneDNN's
 *        fuse_norm_relu); its hidden fourth output keeps the ReLU's mask for the backward.
 *        This file holds the reference kernels; the oneDNN entries join the four ops' lists from
 *        onednn/onednn_batch_norm_kernels.cc.
 */
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "operator/common/op_family.h"
#include "operator/kernel_dispatch.h"
#include "operator/nn/batch_norm.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(BatchNormParam);

namespace {

/*! \brief Parameters and statistics are float32 for half-precision data, else the data type. */
int ParamType(int data_type) { return data_type == kFloat16 || data_type == kBfloat16 ? kFloat32 : data_type; }

bool BNShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  MX_CHECK_KIND(ds.ndim() >= 1, "ValueError") << "BatchNorm: data must have at least one dimension";
  const BNView v(attrs, ds);
  const TShape c{v.C};
  const char* names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  for (int i = 1; i < 5; ++i) AssignShape(attrs, &(*in)[i], c, names[i - 1], i);
  AssignShape(attrs, &(*out)[0], ds, "output", 0);
  AssignShape(attrs, &(*out)[1], c, "mean", 1);
  AssignShape(attrs, &(*out)[2], c, "var", 2);
  return true;
}

bool BNType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int t = (*in)[0];
  if (t < 0) return false;
  const int pt = ParamType(t);
  for (int i = 1; i < 5; ++i) AssignType(attrs, &(*in)[i], pt, "input", i);
  AssignType(attrs, &(*out)[0], t, "output", 0);
  AssignType(attrs, &(*out)[1], pt, "output", 1);
  AssignType(attrs, &(*out)[2], pt, "output", 2);
  return true;
}

template <typename D, typename P>
void BNForwardPlain(const BNView& v, const BatchNormParam& p, bool training, const D* x, const P* gamma, const P* beta,
                    P* mean, P* var, D* y, OpReqType req) {
#pragma omp parallel for schedule(static) if (UseParallel(v.M() * v.C))
  for (int64_t c = 0; c < v.C; ++c) {
    if (training) {  // two passes in double: the variance of large-mean channels stays exact
      double s = 0, ss = 0;
      for (int64_t o = 0; o < v.outer; ++o) {
        const D* row = x + (o * v.C + c) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) s += static_cast<double>(row[i]);
      }
      const double m = v.M() > 0 ? s / v.M() : 0.0;
      for (int64_t o = 0; o < v.outer; ++o) {
        const D* row = x + (o * v.C + c) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) {
          const double d = static_cast<double>(row[i]) - m;
          ss += d * d;
        }
      }
      mean[c] = static_cast<P>(m);
      var[c] = static_cast<P>(v.M() > 0 ? ss / v.M() : 0.0);
    }
    using C = compute_t<D>;
    const C g = p.fix_gamma ? C(1) : C(gamma[c]);
    const C scale = g / std::sqrt(C(var[c]) + C(p.eps));
    const C shift = C(beta[c]) - C(mean[c]) * scale;
    for (int64_t o = 0; o < v.outer; ++o) {
      const D* row = x + (o * v.C + c) * v.inner;
      D* out = y + (o * v.C + c) * v.inner;
      for (int64_t i = 0; i < v.inner; ++i) Store(out + i, req, C(row[i]) * scale + shift);
    }
  }
}

template <typename D, typename P>
void BNBackwardPlain(const BNView& v, const BatchNormParam& p, bool training, const D* dy, const D* x, const P* gamma,
                     const P* mean, const P* var, D* dx, P* dgamma, P* dbeta, const std::vector<OpReqType>& req) {
#pragma omp parallel for schedule(static) if (UseParallel(v.M() * v.C))
  for (int64_t c = 0; c < v.C; ++c) {
    const double m = mean[c], invstd = 1.0 / std::sqrt(static_cast<double>(var[c]) + p.eps);
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int64_t o = 0; o < v.outer; ++o) {
      const int64_t base = (o * v.C + c) * v.inner;
      for (int64_t i = 0; i < v.inner; ++i) {
        const double g = static_cast<double>(dy[base + i]);
        sum_dy += g;
        sum_dy_xhat += g * (static_cast<double>(x[base + i]) - m) * invstd;
      }
    }
    const double gm = p.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    if (req[0] != kNullOp) {
      const double k = gm * invstd, M = static_cast<double>(v.M() > 0 ? v.M() : 1);
      for (int64_t o = 0; o < v.outer; ++o) {
        const int64_t base = (o * v.C + c) * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) {
          const double g = static_cast<double>(dy[base + i]);
          double r = k * g;
          if (training) {
            const double xhat = (static_cast<double>(x[base + i]) - m) * invstd;
            r = k * (g - sum_dy / M - xhat * sum_dy_xhat / M);
          }
          Store(dx + base + i, req[0], static_cast<compute_t<D>>(r));
        }
      }
    }
    if (req[1] != kNullOp) Store(dgamma + c, req[1], p.fix_gamma ? 0.0 : sum_dy_xhat);
    if (req[2] != kNullOp) Store(dbeta + c, req[2], sum_dy);
  }
}

/*! \brief y = max(bn, 0) stored with req (the plain path's ReLU after a plain BatchNorm). */
template <typename D>
void ReluStore(const D* bn, D* y, int64_t n, OpReqType req) {
#pragma omp parallel for schedule(static) if (UseParallel(n))
  for (int64_t i = 0; i < n; ++i) {
    const compute_t<D> v = bn[i];
    Store(y + i, req, v > compute_t<D>(0) ? v : compute_t<D>(0));
  }
}

void BNForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out, bool relu) {
  const auto& p = attrs.get<BatchNormParam>();
  const bool training = BNTraining(p, ctx);
  const BNView v(attrs, in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using P = std::conditional_t<std::is_same_v<D, double>, double, float>;
    BNBeginForward<P>(training, relu, in, out);
    P* mean = out[1].dptr<P>();
    P* var = out[2].dptr<P>();
    if (!relu) {
      BNForwardPlain<D, P>(v, p, training, in[0].dptr<D>(), in[1].dptr<P>(), in[2].dptr<P>(), mean, var,
                           out[0].dptr<D>(), req[0]);
    } else {
      std::vector<D> bn(in[0].Size());
      BNForwardPlain<D, P>(v, p, training, in[0].dptr<D>(), in[1].dptr<P>(), in[2].dptr<P>(), mean, var, bn.data(),
                           kWriteTo);
      ReluStore(bn.data(), out[0].dptr<D>(), static_cast<int64_t>(bn.size()), req[0]);
    }
  });
}

void BNCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BNForward(attrs, ctx, in, req, out, false);
}

void BNReluCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BNForward(attrs, ctx, in, req, out, true);
}

void BNBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  // inputs (ograd, data, gamma, mean, var, moving_mean, moving_var); outputs (ddata, dgamma, dbeta)
  const auto& p = attrs.get<BatchNormParam>();
  const BNView v(attrs, in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using P = std::conditional_t<std::is_same_v<D, double>, double, float>;
    BNBackwardPlain<D, P>(v, p, BNTraining(p, ctx), in[0].dptr<D>(), in[1].dptr<D>(), in[2].dptr<P>(),
                          in[3].dptr<P>(), in[4].dptr<P>(), out[0].dptr<D>(), out[1].dptr<P>(), out[2].dptr<P>(), req);
    BNUpdateMovingStats<P>(p, ctx, in, 3, kBNBackwardMovingAt);
  });
}

bool BNReluShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!BNShape(attrs, in, out)) return false;
  AssignShape(attrs, &(*out)[3], TShape{static_cast<int64_t>((*in)[0].Size()) + kReluTagBytes}, "workspace", 3);
  return true;
}

bool BNReluType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!BNType(attrs, in, out)) return false;
  AssignType(attrs, &(*out)[3], kUint8, "workspace", 3);
  return true;
}

}  // namespace

void BNReluBackwardByMask(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  // inputs (ograd, data, gamma, mean, var, output, workspace, moving_mean, moving_var);
  // outputs (ddata, dgamma, dbeta)
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    std::vector<D> masked(in[0].Size());
    const D* dy = in[0].dptr<D>();
    const D* y = in[5].dptr<D>();
    const D zero = static_cast<D>(compute_t<D>(0));
    for (size_t i = 0; i < masked.size(); ++i)
      masked[i] = static_cast<compute_t<D>>(y[i]) > compute_t<D>(0) ? dy[i] : zero;
    std::vector<TBlob> bn_in(in.begin(), in.begin() + 5);
    bn_in.push_back(in[kBNReluBackwardMovingAt]);
    bn_in.push_back(in[kBNReluBackwardMovingAt + 1]);
    bn_in[0].dptr_ = masked.data();
    RunKernelPlain(*Op::Get("_backward_BatchNorm"), Context::kCPU, attrs, ctx, bn_in, req, out);
  });
}

namespace {

/*! \brief What BatchNorm and BatchNormWithReLU register alike: inputs, parameters, visible
 *         outputs, the moving statistics as auxiliary states (their backward writes them). */
Op& BatchNormFamily(Op& op, const char* description) {
  return op.describe(description)
      .set_num_inputs(5)
      .set_num_visible_outputs([](const NodeAttrs& a) { return a.get<BatchNormParam>().output_mean_var ? 3u : 1u; })
      .set_list_input_names([](const NodeAttrs&) {
        return std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"};
      })
      .add_argument("data", "NDArray-or-Symbol", "Input data to batch normalization.")
      .add_argument("gamma", "NDArray-or-Symbol", "gamma array.")
      .add_argument("beta", "NDArray-or-Symbol", "beta array.")
      .add_argument("moving_mean", "NDArray-or-Symbol", "running mean of input (auxiliary state, updated).")
      .add_argument("moving_var", "NDArray-or-Symbol", "running variance of input (auxiliary state, updated).")
      .add_arguments(BatchNormParam::__FIELDS__())
      .set_attr_parser(ParamParser<BatchNormParam>)
      // scratch of the CUDA kernels' per-channel sums (cuda/batch_norm.cu); the CPU kernels take none
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
      .set_mutate_inputs([](const NodeAttrs&) {
        return std::vector<uint32_t>{3, 4};
      });
}

/*!
 * \brief The backward's gradients (data, gamma, beta) from its inputs 1 (data) and 2 (gamma);
 *        `extra` names the inputs between the batch statistics and the moving statistics, which
 *        come last and are written.
 */
Op& BatchNormGradientFamily(Op& op, const char* description, const std::vector<const char*>& extra) {
  const uint32_t moving_at = static_cast<uint32_t>(5 + extra.size());
  op.describe(description)
      .set_num_inputs(moving_at + 2)
      .set_num_outputs(3)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("data", "NDArray-or-Symbol", "The forward input.")
      .add_argument("gamma", "NDArray-or-Symbol", "The forward gamma.")
      .add_argument("mean", "NDArray-or-Symbol", "The forward mean output.")
      .add_argument("var", "NDArray-or-Symbol", "The forward variance output.");
  for (const char* name : extra) op.add_argument(name, "NDArray-or-Symbol", "The forward's saved output.");
  return op.add_argument("moving_mean", "NDArray-or-Symbol", "running mean (auxiliary state, updated in training).")
      .add_argument("moving_var", "NDArray-or-Symbol", "running variance (auxiliary state, updated in training).")
      .set_mutate_inputs([moving_at](const NodeAttrs&) { return std::vector<uint32_t>{moving_at, moving_at + 1}; })
      .add_arguments(BatchNormParam::__FIELDS__())
      .set_attr_parser(ParamParser<BatchNormParam>)
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
      .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
        AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
        AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
        AssignShape(attrs, &(*out)[2], (*in)[2], "output", 2);
        return (*in)[1].IsKnown() && (*in)[2].IsKnown();
      })
      .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
        AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
        AssignType(attrs, &(*out)[1], (*in)[2], "output", 1);
        AssignType(attrs, &(*out)[2], (*in)[2], "output", 2);
        return (*in)[1] >= 0 && (*in)[2] >= 0;
      });
}

/*! \brief Gradient node `backward` reading (ograd, data, gamma, batch mean, batch variance), the
 *         forward outputs `also`, and the moving statistics it updates; those get no gradient. */
std::vector<NodeEntry> BatchNormGradient(const char* backward, const NodePtr& n, const std::vector<NodeEntry>& og,
                                         const std::vector<uint32_t>& also) {
  std::vector<NodeEntry> in{og[0], n->inputs[0], n->inputs[1], NodeEntry{n, 1, 0}, NodeEntry{n, 2, 0}};
  for (uint32_t k : also) in.push_back(NodeEntry{n, k, 0});
  in.push_back(n->inputs[3]);
  in.push_back(n->inputs[4]);
  auto g = MakeNodeOutputs(backward, n->attrs.name + "_backward", in, n->attrs.dict);
  g.push_back(MakeZeroGrad(n, 3));
  g.push_back(MakeZeroGrad(n, 4));
  return g;
}

MXNET_REGISTER_OP_FAMILY(BatchNorm, BatchNormFamily,
                         "Batch normalization: normalizes data over all axes but `axis` with the batch statistics "
                         "while training (the backward pass then updates moving_mean/moving_var) and the moving "
                         "statistics otherwise, then scales by gamma and shifts by beta.")
    .add_alias("_npx_batch_norm")
    .set_num_outputs(3)
    .set_list_output_names([](const NodeAttrs&) {
      return std::vector<std::string>{"output", "mean", "var"};
    })
    .set_infer_shape(BNShape)
    .set_infer_type(BNType)
    .set_compute(Context::kCPU, BNCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return BatchNormGradient("_backward_BatchNorm", n, og, {});
    });

MXNET_REGISTER_OP_FAMILY(_backward_BatchNorm, BatchNormGradientFamily,
                         "Gradients of BatchNorm with respect to data, gamma and beta; in training also "
                         "updates moving_mean/moving_var from the batch statistics.", std::vector<const char*>{})
    .set_compute(Context::kCPU, BNBackward);

MXNET_REGISTER_OP_FAMILY(_contrib_BatchNormWithReLU, BatchNormFamily,
                         "BatchNorm followed by a ReLU, computed in one pass: max(BatchNorm(data), 0). "
                         "Parameters, statistics and the update of moving_mean/moving_var (in the backward) are "
                         "BatchNorm's.")
    .add_alias("BatchNormWithReLU")
    .set_num_outputs(4)
    .set_list_output_names([](const NodeAttrs&) {
      return std::vector<std::string>{"output", "mean", "var", "workspace"};
    })
    .set_infer_shape(BNReluShape)
    .set_infer_type(BNReluType)
    .set_compute(Context::kCPU, BNReluCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return BatchNormGradient("_backward_BatchNormWithReLU", n, og, {0, 3});  // output, mask
    });

MXNET_REGISTER_OP_FAMILY(_backward_BatchNormWithReLU, BatchNormGradientFamily,
                         "Gradients of BatchNormWithReLU with respect to data, gamma and beta; in training "
                         "also updates moving_mean/moving_var from the batch statistics.",
                         std::vector<const char*>{"output", "workspace"})
    .set_compute(Context::kCPU, BNReluBackwardByMask);

}  // namespace

}  // namespace op
}  // namespace mxnet
