/*!
 * \file leaky_relu.cc
 * \brief LeakyReLU (leaky, prelu, rrelu, elu, selu, gelu) and `_backward_LeakyReLU`.
 *        prelu learns gamma per channel (axis 1; a 1-element gamma is shared); rrelu draws a
 *        slope in [lower_bound, upper_bound] per element while training (hidden output
 *        `mask` keeps it) and uses their mean otherwise. gelu is the erf form of MXNet 1.x.
 *        The reference kernels are the plain loops here; oneDNN eltwise entries for leaky, elu
 *        and gelu join both lists from onednn/onednn_eltwise_kernels.cc.
 */
#include <cmath>
#include <vector>

#include "operator/nn/leaky_relu_param.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(LeakyReLUParam);

namespace {

int ActOf(const NodeAttrs& a) { return a.get<LeakyReLUParam>().act_type; }

void LeakyCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LeakyReLUParam>();
  const int t = p.act_type;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = real_compute_t<D>;
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    if (t == kPReLU) {
      const D* gamma = in[1].dptr<D>();
      const ChannelOf ch(in[0].shape_, in[1].Size());
      ParallelFor(in[0].Size(), [&](int64_t j) { Store(y + j, req[0], LeakyFwd(t, C(x[j]), C(gamma[ch(j)]))); });
    } else if (t == kRReLU) {
      D* mask = out[1].dptr<D>();
      const C lo = p.lower_bound, hi = p.upper_bound;
      if (ctx.is_train) {
        const RandomStream rnd = ctx.requested[0].random;
        ParallelFor(in[0].Size(), [&](int64_t j) {
          const C slope = lo + (hi - lo) * C(rnd.ForElement(j).UniformD());
          mask[j] = static_cast<D>(slope);
          Store(y + j, req[0], LeakyFwd(t, C(x[j]), slope));
        });
      } else {
        const C slope = (lo + hi) / C(2);
        ParallelFor(in[0].Size(), [&](int64_t j) {
          mask[j] = static_cast<D>(slope);
          Store(y + j, req[0], LeakyFwd(t, C(x[j]), slope));
        });
      }
    } else {
      const C slope = p.slope;
      ParallelFor(in[0].Size(), [&](int64_t j) { Store(y + j, req[0], LeakyFwd(t, C(x[j]), slope)); });
    }
  });
}

/*! \brief inputs (ograd, data [, gamma | mask]); outputs (ddata [, dgamma]). */
void LeakyBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<LeakyReLUParam>();
  const int t = p.act_type;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = real_compute_t<D>;
    const D *dy = in[0].dptr<D>(), *x = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    const int64_t n = in[1].Size();
    if (t == kPReLU) {
      const D* gamma = in[2].dptr<D>();
      const ChannelOf ch(in[1].shape_, in[2].Size());
      if (req[0] != kNullOp)
        ParallelFor(n, [&](int64_t j) { Store(dx + j, req[0], C(dy[j]) * LeakyGrad(t, C(x[j]), C(gamma[ch(j)]))); });
      if (req[1] != kNullOp) {
        std::vector<double> acc(in[2].Size(), 0.0);
        for (int64_t j = 0; j < n; ++j)
          if (!(C(x[j]) > C(0))) acc[ch(j)] += static_cast<double>(dy[j]) * static_cast<double>(x[j]);
        D* dg = out[1].dptr<D>();
        for (size_t c = 0; c < acc.size(); ++c) Store(dg + c, req[1], acc[c]);
      }
    } else if (req[0] != kNullOp) {
      const D* mask = t == kRReLU ? in[2].dptr<D>() : nullptr;
      const C slope = p.slope;
      ParallelFor(n, [&](int64_t j) {
        Store(dx + j, req[0], C(dy[j]) * LeakyGrad(t, C(x[j]), mask ? C(mask[j]) : slope));
      });
    }
  });
}

bool LeakyShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  if (ActOf(attrs) == kPReLU) {
    const TShape& g = (*in)[1];
    if (g.ndim() < 0) {
      (*in)[1] = TShape{ds.ndim() >= 2 ? ds[1] : 1};
    } else {
      MX_CHECK_KIND(g.Size() == 1 || (ds.ndim() >= 2 && g.Size() == ds[1]), "ValueError")
          << "LeakyReLU: prelu gamma shape " << g << " must have 1 element or one per channel of data " << ds;
    }
  }
  for (auto& o : *out) AssignShape(attrs, &o, ds, "output", 0);
  return true;
}

}  // namespace

MXNET_REGISTER_OP(LeakyReLU)
    .describe("Applies a leaky rectified linear unit or a variant: leaky x>0?x:slope*x; prelu with a learned "
              "per-channel slope gamma; rrelu with a random slope while training; elu slope*(exp(x)-1) for x<0; "
              "selu; gelu 0.5*x*(1+erf(x/sqrt(2))).")
    .add_alias("_npx_leaky_relu")
    .set_num_inputs([](const NodeAttrs& a) { return ActOf(a) == kPReLU ? 2u : 1u; })
    .set_num_outputs([](const NodeAttrs& a) { return ActOf(a) == kRReLU ? 2u : 1u; })
    .set_num_visible_outputs([](const NodeAttrs&) { return 1u; })
    .set_list_input_names([](const NodeAttrs& a) {
      return ActOf(a) == kPReLU ? std::vector<std::string>{"data", "gamma"} : std::vector<std::string>{"data"};
    })
    .add_argument("data", "NDArray-or-Symbol", "Input data to activation function.")
    .add_argument("gamma", "NDArray-or-Symbol", "Input data to activation function.")
    .add_arguments(LeakyReLUParam::__FIELDS__())
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .set_infer_shape(LeakyShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request([](const NodeAttrs& a) {
      return ActOf(a) == kRReLU ? std::vector<ResourceRequest>{ResourceRequest::kRandom} : std::vector<ResourceRequest>{};
    })
    .set_compute(Context::kCPU, LeakyCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      std::vector<NodeEntry> ins{og[0], n->inputs[0]};
      const int t = ActOf(n->attrs);
      if (t == kPReLU) ins.push_back(n->inputs[1]);
      if (t == kRReLU) ins.push_back(NodeEntry{n, 1, 0});
      return MakeNodeOutputs("_backward_LeakyReLU", n->attrs.name + "_backward", ins, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_LeakyReLU)
    .describe("Gradient of LeakyReLU with respect to data (and gamma for prelu).")
    .set_num_inputs([](const NodeAttrs& a) { return ActOf(a) == kPReLU || ActOf(a) == kRReLU ? 3u : 2u; })
    .set_num_outputs([](const NodeAttrs& a) { return ActOf(a) == kPReLU ? 2u : 1u; })
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "The forward input.")
    .add_arguments(LeakyReLUParam::__FIELDS__())
    .set_attr_parser(ParamParser<LeakyReLUParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      if (ActOf(attrs) == kPReLU) AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
      return (*in)[1].IsKnown();
    })
    .set_infer_type(ElemwiseType)
    // The CUDA kernel reduces prelu's gamma gradient in two passes through device scratch.
    .set_resource_request([](const NodeAttrs& a) {
      return ActOf(a) == kPReLU ? std::vector<ResourceRequest>{ResourceRequest::kTempSpace}
                                : std::vector<ResourceRequest>{};
    })
    .set_compute(Context::kCPU, LeakyBackward);

}  // namespace op
}  // namespace mxnet
