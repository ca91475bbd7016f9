/*!
 * \file pooling.cc
 * \brief Pooling (max, avg, sum, lp; global_pool; pooling_convention valid/full/same;
 *        count_include_pad; 1-D to 3-D; channel-first or channel-last) and
 *        `_backward_Pooling`, with their reference kernels. The oneDNN and lane-kernel entries
 *        (max/avg problems whose divisor semantics match MXNet's) join the lists from
 *        onednn/onednn_pooling_kernels.cc.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "operator/nn/conv_plain.h"
#include "operator/nn/pooling_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(PoolingParam);

PoolGeom MakePoolGeom(const NodeAttrs& attrs, const TShape& x) {
  const auto& pp = attrs.get<PoolingParam>();
  MX_CHECK_KIND(x.ndim() >= 3 && x.ndim() <= 5, "ValueError")
      << "Pooling: data must have rank 3, 4 or 5 (1-D to 3-D pooling), got shape " << x;
  PoolGeom g;
  g.nsp = x.ndim() - 2;
  g.N = x[0];
  g.C = x[1];
  g.type = pp.pool_type;
  g.conv = pp.pooling_convention;
  g.include_pad = pp.count_include_pad.has_value() ? pp.count_include_pad.value() : true;
  if (g.type == kLpPool) {
    g.pval = pp.p_value.has_value() ? pp.p_value.value() : 2;
    MX_CHECK_KIND(g.pval >= 1 && g.pval <= 3, "ValueError") << "Pooling: p_value must be 1, 2 or 3, got " << g.pval;
  }
  const int off = 3 - g.nsp;
  for (int i = 0; i < g.nsp; ++i) g.in[off + i] = x[2 + i];
  if (pp.global_pool) {
    for (int i = 0; i < g.nsp; ++i) g.k[off + i] = x[2 + i];
    return g;  // stride 1, pad 0, output 1
  }
  ConvWindow w = ResolveWindow(attrs, pp.kernel, pp.stride, TShape(0), pp.pad, x.ndim());
  if (g.conv == kSame) {
    for (dim_t v : w.pad) MX_CHECK_KIND(v == 0, "ValueError") << "Pooling: pad must be 0 with pooling_convention='same'";
  }
  for (int i = 0; i < g.nsp; ++i) {
    const int64_t in = x[2 + i], k = w.kernel[i], s = w.stride[i], p = w.pad[i];
    g.k[off + i] = k;
    g.s[off + i] = s;
    g.p[off + i] = p;
    if (g.conv == kSame) {
      g.out[off + i] = (in + s - 1) / s;
      continue;
    }
    MX_CHECK_KIND(in + 2 * p >= k, "ValueError") << "Pooling: kernel size " << k << " exceeds the padded input size "
                                                  << in << " + 2*" << p << " in spatial dimension " << i;
    g.out[off + i] = g.conv == kValid ? (in + 2 * p - k) / s + 1 : (in + 2 * p - k + s - 1) / s + 1;
  }
  return g;
}

namespace {

TShape PoolOutShape(const PoolGeom& g, bool cl) {
  std::vector<dim_t> d{g.N, g.C};
  for (int i = 3 - g.nsp; i < 3; ++i) d.push_back(g.out[i]);
  return FromChannelFirst(TShape(d), cl);
}

bool PoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const bool cl = ChannelLast(attrs.get<PoolingParam>().layout);
  const PoolGeom g = MakePoolGeom(attrs, ToChannelFirst((*in)[0], cl));
  AssignShape(attrs, &(*out)[0], PoolOutShape(g, cl), "output", 0);
  return true;
}

/*! \brief Visits every output position of one (n, c) plane with its window. */
template <typename F>
inline void ForEachWindow(const PoolGeom& g, F&& f) {
  PoolWin w;
  for (int64_t od = 0; od < g.out[0]; ++od) {
    PoolWindowDim(g, 0, od, &w);
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      PoolWindowDim(g, 1, oh, &w);
      for (int64_t ow = 0; ow < g.out[2]; ++ow) {
        PoolWindowDim(g, 2, ow, &w);
        f((od * g.out[1] + oh) * g.out[2] + ow, w);
      }
    }
  }
}

template <typename D>
void PoolForwardPlain(const PoolGeom& g, const D* x, D* y, OpReqType req) {
  using C = compute_t<D>;
  const int64_t I = g.InSize(), O = g.OutSize();
#pragma omp parallel for schedule(static) if (UseParallel(g.N * g.C * O * g.k[0] * g.k[1] * g.k[2]))
  for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
    const D* xp = x + nc * I;
    D* yp = y + nc * O;
    ForEachWindow(g, [&](int64_t o, const PoolWin& win) {
      C acc = PoolInit<C>(g.type);
      for (int64_t d = win.b[0]; d < win.e[0]; ++d)
        for (int64_t h = win.b[1]; h < win.e[1]; ++h)
          for (int64_t w = win.b[2]; w < win.e[2]; ++w)
            PoolAccum(g, &acc, static_cast<C>(xp[(d * g.in[1] + h) * g.in[2] + w]));
      Store(yp + o, req, PoolFinish(g, win, acc));
    });
  }
}

/*! \brief dx under req from dy, the forward input x and output y. */
template <typename D>
void PoolBackwardPlain(const PoolGeom& g, const D* dy, const D* x, const D* y, D* dx, OpReqType req) {
  using C = compute_t<D>;
  const int64_t I = g.InSize(), O = g.OutSize();
  if (req != kAddTo) std::fill(dx, dx + g.N * g.C * I, D(0));
#pragma omp parallel for schedule(static) if (UseParallel(g.N * g.C * O * g.k[0] * g.k[1] * g.k[2]))
  for (int64_t nc = 0; nc < g.N * g.C; ++nc) {
    const D* xp = x + nc * I;
    const D* dyp = dy + nc * O;
    const D* yp = y + nc * O;
    D* dxp = dx + nc * I;
    ForEachWindow(g, [&](int64_t o, const PoolWin& win) {
      const C gy = static_cast<C>(dyp[o]);
      if (g.type == kMaxPool) {  // the first position holding the maximum gets the gradient
        int64_t best = -1;
        C bv = std::numeric_limits<C>::lowest();
        for (int64_t d = win.b[0]; d < win.e[0]; ++d)
          for (int64_t h = win.b[1]; h < win.e[1]; ++h)
            for (int64_t w = win.b[2]; w < win.e[2]; ++w) {
              const int64_t idx = (d * g.in[1] + h) * g.in[2] + w;
              const C v = static_cast<C>(xp[idx]);
              if (best < 0 || v > bv) {
                bv = v;
                best = idx;
              }
            }
        if (best >= 0) dxp[best] = static_cast<D>(static_cast<C>(dxp[best]) + gy);
        return;
      }
      const C scale = PoolGradScale<C>(g, win);
      const C yv = static_cast<C>(yp[o]);
      for (int64_t d = win.b[0]; d < win.e[0]; ++d)
        for (int64_t h = win.b[1]; h < win.e[1]; ++h)
          for (int64_t w = win.b[2]; w < win.e[2]; ++w) {
            const int64_t idx = (d * g.in[1] + h) * g.in[2] + w;
            const C gx = PoolInputGrad(g, gy, scale, static_cast<C>(xp[idx]), yv);
            dxp[idx] = static_cast<D>(static_cast<C>(dxp[idx]) + gx);
          }
    });
  }
}

template <typename D>
void PlainPoolingForward(const PoolGeom& g, bool cl, const TBlob& x, const TBlob& y, OpReqType req,
                         const OpContext& ctx) {
  if (!cl) return PoolForwardPlain(g, x.dptr<D>(), y.dptr<D>(), req);
  ScratchCarver sp(ctx.requested[0].GetSpace(ScratchCarver::Bytes(x.Size(), sizeof(D)) +
                                             ScratchCarver::Bytes(y.Size(), sizeof(D))));
  D* xc = sp.Take<D>(x.Size());
  D* yc = sp.Take<D>(y.Size());
  PermuteNSC(x.dptr<D>(), xc, g.N, g.InSize(), g.C, true);
  PoolForwardPlain(g, xc, yc, kWriteTo);
  PermuteNSC(yc, y.dptr<D>(), g.N, g.OutSize(), g.C, false, req);
}

template <typename D>
void PlainPoolingBackward(const PoolGeom& g, bool cl, const TBlob& dy, const TBlob& x, const TBlob& y, const TBlob& dx,
                          OpReqType req, const OpContext& ctx) {
  if (!cl) return PoolBackwardPlain(g, dy.dptr<D>(), x.dptr<D>(), y.dptr<D>(), dx.dptr<D>(), req);
  ScratchCarver sp(ctx.requested[0].GetSpace(2 * ScratchCarver::Bytes(x.Size(), sizeof(D)) +
                                             2 * ScratchCarver::Bytes(y.Size(), sizeof(D))));
  D* xc = sp.Take<D>(x.Size());
  D* dxc = sp.Take<D>(x.Size());
  D* yc = sp.Take<D>(y.Size());
  D* dyc = sp.Take<D>(y.Size());
  PermuteNSC(x.dptr<D>(), xc, g.N, g.InSize(), g.C, true);
  PermuteNSC(y.dptr<D>(), yc, g.N, g.OutSize(), g.C, true);
  PermuteNSC(dy.dptr<D>(), dyc, g.N, g.OutSize(), g.C, true);
  PoolBackwardPlain(g, dyc, xc, yc, dxc, kWriteTo);
  PermuteNSC(dxc, dx.dptr<D>(), g.N, g.InSize(), g.C, false, req);
}

void PoolingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool cl = ChannelLast(attrs.get<PoolingParam>().layout);
  const PoolGeom g = MakePoolGeom(attrs, ToChannelFirst(in[0].shape_, cl));
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, { PlainPoolingForward<D>(g, cl, in[0], out[0], req[0], ctx); });
}

void PoolingBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  // inputs (ograd, data, output)
  if (req[0] == kNullOp) return;
  const bool cl = ChannelLast(attrs.get<PoolingParam>().layout);
  const PoolGeom g = MakePoolGeom(attrs, ToChannelFirst(in[1].shape_, cl));
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D,
                         { PlainPoolingBackward<D>(g, cl, in[0], in[1], in[2], out[0], req[0], ctx); });
}

}  // namespace

MXNET_REGISTER_OP(Pooling)
    .describe("Performs pooling on the input: max, avg, sum or lp over 1-D, 2-D or 3-D windows, or global "
              "pooling over all spatial dimensions.")
    .add_alias("_npx_pooling")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the pooling operator.")
    .add_arguments(PoolingParam::__FIELDS__())
    .set_attr_parser(ParamParser<PoolingParam>)
    .set_infer_shape(PoolingShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, PoolingCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_backward_Pooling", n->attrs.name + "_backward",
                                             {og[0], n->inputs[0], NodeEntry{n, 0, 0}}, n->attrs.dict)};
    });

MXNET_REGISTER_OP(_backward_Pooling)
    .describe("Gradient of Pooling with respect to its input.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
    .add_argument("data", "NDArray-or-Symbol", "The forward input.")
    .add_argument("output", "NDArray-or-Symbol", "The forward output.")
    .add_arguments(PoolingParam::__FIELDS__())
    .set_attr_parser(ParamParser<PoolingParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      return (*in)[1].IsKnown();
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
      return (*in)[1] >= 0;
    })
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, PoolingBackward);

}  // namespace op
}  // namespace mxnet
