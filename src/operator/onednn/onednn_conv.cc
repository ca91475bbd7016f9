/*!
 * \file onednn_conv.cc
 * \brief oneDNN (de)convolution. One description of the problem (Problem) feeds both
 *        primitive families through the Prims<> traits, since their APIs are the same.
 *        Primitives pick their preferred (blocked) layouts ("any"); LayoutBridge reorders our
 *        plain tensors through buffers owned by the cache entry.
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_conv.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "operator/nn/conv_bwd_data_channel_last.h"
#include "operator/nn/conv_fwd_few_channels.h"
#include "operator/nn/conv_wgrad_few_channels.h"
#include "operator/onednn/onednn_conv_winograd.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_operand.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

using dims = dnnl::memory::dims;
using md = dnnl::memory::desc;
using dt = dnnl::memory::data_type;

/*! \brief A descriptor for logical dims d stored with dims in `order` (outermost first). */
md Strided(const dims& d, dt type, const std::vector<int>& order) {
  dims strides(d.size());
  int64_t s = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[*it] = s;
    s *= d[*it];
  }
  return md(d, type, strides);
}

md AnyLike(const md& m) { return md(m.dims(), m.data_type(), dnnl::memory::format_tag::any); }

dims Spatial(const ConvGeom& g, const int64_t* a, int64_t minus = 0) {
  dims d;
  for (int i = 3 - g.nsp; i < 3; ++i) d.push_back(a[i] - minus);
  return d;
}

/*! \brief Activations (N, ch, spatial) stored channel-first or channel-last. */
md ActDesc(const ConvGeom& g, int64_t ch, const int64_t* sp, bool cl, dt type) {
  dims d{g.N, ch};
  for (int64_t v : Spatial(g, sp)) d.push_back(v);
  std::vector<int> order{0};
  if (!cl) order.push_back(1);
  for (int i = 0; i < g.nsp; ++i) order.push_back(2 + i);
  if (cl) order.push_back(1);
  return Strided(d, type, order);
}

/*!
 * \brief Weights with logical dims ([G,] O, I, k...) where MXNet stores (outer, inner, k...)
 *        (or (outer, k..., inner) channel-last); o_outer tells whether O is the outer one.
 */
md WeightDesc(const ConvGeom& g, int64_t O, int64_t I, bool o_outer, bool cl, dt type) {
  const bool grouped = g.G > 1;
  dims d;
  if (grouped) d.push_back(g.G);
  const int base = grouped ? 1 : 0;
  d.push_back(O);
  d.push_back(I);
  for (int64_t v : Spatial(g, g.k)) d.push_back(v);
  const int outer = o_outer ? base : base + 1, inner = o_outer ? base + 1 : base;
  std::vector<int> order;
  if (grouped) order.push_back(0);
  order.push_back(outer);
  if (!cl) order.push_back(inner);
  for (int i = 0; i < g.nsp; ++i) order.push_back(base + 2 + i);
  if (cl) order.push_back(inner);
  return Strided(d, type, order);
}

template <bool kDeconv>
struct Prims;
template <>
struct Prims<false> {
  using Fwd = dnnl::convolution_forward;
  using BwdData = dnnl::convolution_backward_data;
  using BwdWeights = dnnl::convolution_backward_weights;
  static constexpr dnnl::algorithm kAlg = dnnl::algorithm::convolution_direct;
};
template <>
struct Prims<true> {
  using Fwd = dnnl::deconvolution_forward;
  using BwdData = dnnl::deconvolution_backward_data;
  using BwdWeights = dnnl::deconvolution_backward_weights;
  static constexpr dnnl::algorithm kAlg = dnnl::algorithm::deconvolution_direct;
};

/*! \brief Everything a (de)convolution primitive is built from, in oneDNN terms. */
struct Problem {
  md src, wei, dst, bias;
  dims strides, dilates, pad_l, pad_r;
  bool has_bias{false};
  // Training pins activations to channel-last (see TrainChannelLast).
  bool train_channel_last{false};
  // Under 8 input channels (UseFewChannelKernels): the weight gradient runs FewChannelWeightGrad,
  // and the forward FewChannelConvForward where oneDNN chose its gemm kernel.
  bool few_channel{false};
  // Channel-last training with a channel count oneDNN's data gradient wastes lanes on
  // (UseChannelLastBackwardData): the data gradient runs ChannelLastBackwardData.
  bool gemm_bwd_data{false};
  // The Winograd kernels compute the forward / the data gradient / the weight gradient, and
  // beat the direct kernels on this problem.
  bool winograd_fwd{false}, winograd_bwd_data{false}, winograd_bwd_weights{false}, winograd_worth{false};
  Conv2dGeom geom2d{};  // for the hand-written kernels (any 2-D convolution)
  Key key;
};

/*!
 * \brief Whether training runs this convolution on channel-last activations instead of oneDNN's
 *        choice. For float32 training oneDNN picks channel-blocked layouts (nChw16c), which pad
 *        the channels to 16: 20 input channels compute as 32. The brgemm kernels it has for
 *        channel-last pad nothing; LeNet's 20 -> 50 5x5 conv on 64x20x12x12 took fwd 1.8 /
 *        bwd-data 1.7 / bwd-weights 2.1 ms blocked, 1.2 / 1.6 / 1.5 ms channel-last. Under 8
 *        input channels (a network's first conv) the input format hardly matters, so the output
 *        decides: channel-last when the next conv would train channel-last on it. LeNet's
 *        1 -> 20 first conv then hands its activations to relu, pooling and the second conv
 *        with no reorder either way; its op time per training step fell from 11.7-13.1 to
 *        10.5-11.0 ms on AVX2 (oneDNN's channel-last weight gradient, 0.72 ms, matches
 *        FewChannelWeightGrad's 0.76 ms there). Stems with 64 outputs stay blocked.
 */
bool TrainChannelLast(bool deconv, const ConvGeom& g, int dtype) {
  if (deconv || g.nsp != 2 || g.G != 1 || dtype != kFloat32) return false;
  return g.C >= 8 ? g.C % 16 != 0 : g.F >= 8 && g.F % 16 != 0;
}

/*! \brief The activation format a primitive may choose: any, or channel-last when pinned. */
md ActivationChoice(const md& plain, bool channel_last) {
  if (!channel_last) return AnyLike(plain);
  return md(plain.dims(), plain.data_type(), dnnl::memory::format_tag::acdb);
}

Problem MakeProblem(bool deconv, const ConvGeom& g, const std::vector<int64_t>* adj, bool cl, int dtype,
                    bool has_bias) {
  Problem p;
  const dt type = DataType(dtype);
  const md conv_in = ActDesc(g, g.C, g.in, cl, type), conv_out = ActDesc(g, g.F, g.out, cl, type);
  if (!deconv) {
    p.src = conv_in;
    p.dst = conv_out;
    p.wei = WeightDesc(g, g.F / g.G, g.C / g.G, true, cl, type);
    if (has_bias) p.bias = md({g.F}, type, dnnl::memory::format_tag::a);
  } else {  // x has the conv's output shape, y the conv's input shape; MXNet weight (x-ch, y-ch/G, k)
    p.src = conv_out;
    p.dst = conv_in;
    p.wei = WeightDesc(g, g.C / g.G, g.F / g.G, false, cl, type);
    if (has_bias) p.bias = md({g.C}, type, dnnl::memory::format_tag::a);
  }
  p.has_bias = has_bias;
  p.train_channel_last = TrainChannelLast(deconv, g, dtype);
  const bool plain_2d = !deconv && !cl && g.nsp == 2 && g.G == 1 && dtype == kFloat32;
  p.few_channel = plain_2d && UseFewChannelKernels(g.C);
  if (g.nsp == 2)
    p.geom2d = Conv2dGeom{g.N,    g.C,    g.F,    g.in[1], g.in[2], g.out[1], g.out[2], g.k[1],
                          g.k[2], g.s[1], g.s[2], g.p[1],  g.p[2],  g.d[1],   g.d[2]};
  // ChannelLastBackwardData reads weights as (F, C, kh, kw): channel-first models only.
  p.gemm_bwd_data = !cl && p.train_channel_last && UseChannelLastBackwardData(p.geom2d);
  p.winograd_fwd = plain_2d && WinogradFits(p.geom2d);
  p.winograd_bwd_data = plain_2d && !p.train_channel_last && WinogradFits(DataGradGeom(p.geom2d));
  p.winograd_bwd_weights = plain_2d && !p.train_channel_last && WinogradFitsWeightGrad(p.geom2d);
  p.winograd_worth = plain_2d && WinogradWorthIt(p.geom2d);
  p.strides = Spatial(g, g.s);
  p.dilates = Spatial(g, g.d, 1);  // oneDNN counts dilation from 0
  p.pad_l = Spatial(g, g.p);
  p.pad_r = p.pad_l;
  if (adj)
    for (int i = 0; i < g.nsp; ++i) p.pad_r[i] -= (*adj)[i];
  p.key.Add(deconv).Add(g.N).Add(g.C).Add(g.F).Add(g.G).Add(g.nsp).Add(cl).Add(dtype).Add(has_bias);
  for (int i = 0; i < 3; ++i) p.key.Add(g.in[i]).Add(g.out[i]).Add(g.k[i]).Add(g.s[i]).Add(g.p[i]).Add(g.d[i]);
  if (adj)
    for (int64_t a : *adj) p.key.Add(a);
  return p;
}

template <bool kD>
typename Prims<kD>::Fwd::desc FwdDesc(const Problem& p, bool training) {
  const auto prop = training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  const bool cl = training && p.train_channel_last;
  const md src = ActivationChoice(p.src, cl), dst = ActivationChoice(p.dst, cl);
  if (p.has_bias)
    return typename Prims<kD>::Fwd::desc(prop, Prims<kD>::kAlg, src, AnyLike(p.wei), p.bias, dst, p.strides, p.dilates,
                                         p.pad_l, p.pad_r);
  return typename Prims<kD>::Fwd::desc(prop, Prims<kD>::kAlg, src, AnyLike(p.wei), dst, p.strides, p.dilates, p.pad_l,
                                       p.pad_r);
}

template <bool kD>
struct FwdEntry {
  typename Prims<kD>::Fwd prim;
  LayoutBridge src;
  WeightOperand wei;
  LayoutBridge dst;
  dnnl::memory bias;
  // oneDNN chose its gemm-based kernel (FewChannelConvForward is faster there).
  bool gemm_impl{false};
};

/*! \brief Whether the post-ops are at most a plain ReLU (what the hand-written kernels apply). */
bool AtMostRelu(const PostOps& post) {
  if (post.sum_scale != 0.f || post.eltwise.size() > 1) return false;
  if (post.eltwise.empty()) return true;
  const PostOps::Eltwise& e = post.eltwise[0];
  return e.alg == dnnl::algorithm::eltwise_relu && e.alpha == 0.f;
}

template <bool kD>
FwdEntry<kD>& GetFwdEntry(const Problem& p, bool training, const PostOps& post) {
  thread_local PrimitiveCache<FwdEntry<kD>> cache;
  Key key = p.key;
  key.Add(training);
  post.AppendKey(&key.v);
  return cache.Get(key, [&] {
    typename Prims<kD>::Fwd::primitive_desc pd(FwdDesc<kD>(p, training), post.ToAttr(), CpuEngine());
    FwdEntry<kD> n{typename Prims<kD>::Fwd(pd), LayoutBridge(p.src, pd.src_desc()),
                   WeightOperand(p.wei, pd.weights_desc()), LayoutBridge(p.dst, pd.dst_desc()), dnnl::memory()};
    if (p.has_bias) n.bias = dnnl::memory(p.bias, CpuEngine(), DNNL_MEMORY_NONE);
    n.gemm_impl = std::string(pd.impl_info_str()).find("gemm") != std::string::npos;
    return n;
  });
}

/*!
 * \brief Whether FewChannelConvForward takes the forward: a few-channel problem with no post-op but
 *        a plain ReLU, where oneDNN would run its gemm-based kernel (its direct AVX2 kernels do not
 *        take, e.g., AlexNet's 11x11/4 first layer, and beat FewChannelConvForward where they do).
 */
bool FewChannelForwardTakes(const Problem& p, bool training, const PostOps& post) {
  return p.few_channel && !(training && p.train_channel_last) && AtMostRelu(post);
}

bool WinogradForwardTakes(const Problem& p, bool training, const PostOps& post) {
  return p.winograd_fwd && !(training && p.train_channel_last) && AtMostRelu(post);
}

/*! \brief The forward through FewChannelConvForward, y left in nChw8c where the op allows. */
void FewChannelForward(const Problem& p, const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y,
                       const PostOps& post) {
  PlainInput(0);
  PlainInput(1);
  PlainInput(2);
  const md blocked(p.dst.dims(), dt::f32, dnnl::memory::format_tag::aBcd8b);
  auto by = std::make_shared<BlockedData>(blocked, p.dst);
  FewChannelConvForward(p.geom2d, x.dptr<float>(), w.dptr<float>(), bias ? bias->dptr<float>() : nullptr,
                        !post.eltwise.empty(), static_cast<float*>(by->ptr()));
  if (CanLeaveBlocked(0, y))
    SetBlockedOutput(0, std::move(by));
  else
    by->ToPlain(y.dptr_);
}

template <bool kD>
void RunForward(const Problem& p, ConvFwdPath path, bool training, const TBlob& x, const TBlob& w, const TBlob* bias,
                const TBlob& y, const PostOps& post) {
  if (path == ConvFwdPath::kWinograd)
    return WinogradForward(p.geom2d, p.src, p.dst, training, x, w, bias, !post.eltwise.empty(), y);
  if (path == ConvFwdPath::kFewChannel) return FewChannelForward(p, x, w, bias, y, post);
  FwdEntry<kD>& e = GetFwdEntry<kD>(p, training, post);
  dnnl::stream& s = ThreadStream();
  // Blocked propagation (onednn_layout.h): x already in the primitive's format is read as is;
  // y stays in the primitive's format when the op allows it (the next oneDNN op reads it,
  // anyone else gets it reordered by NDArray::data()).
  const std::shared_ptr<const BlockedData> bx = BlockedInput(0, x);
  const bool x_direct = bx && bx->desc() == e.src.Prim().get_desc();
  if (!x_direct) PlainInput(0);
  PlainInput(1);
  PlainInput(2);
  // kAddTo's sum reads y's old (plain) content, so y is written back plain; a sum of another
  // input starts from a copy of that input and leaves y free to stay blocked.
  const bool sum_old_y = post.sum_scale != 0.f && post.sum_src == nullptr;
  std::shared_ptr<BlockedData> by;
  if (!sum_old_y && e.dst.needs_reorder() && CanLeaveBlocked(0, y))
    by = std::make_shared<BlockedData>(e.dst.Prim().get_desc(), p.dst);
  e.src.Bind(x.dptr_);
  e.dst.Bind(y.dptr_);
  if (!x_direct) e.src.ToPrim(s);
  if (sum_old_y) e.dst.ToPrim(s);  // the sum post-op reads the old output
  if (post.sum_src)
    CopyInputInto(post.sum_input, *post.sum_src, p.dst, by ? by->desc() : e.dst.Prim().get_desc(),
                  by ? by->ptr() : e.dst.Prim().get_data_handle());
  // Inference reads the weight's cached copy in the primitive's format (reordered once per
  // weight value); training reorders per call, as the weight changes every step.
  std::shared_ptr<const BlockedData> hold;
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, x_direct ? dnnl::memory(bx->desc(), CpuEngine(), bx->ptr()) : e.src.Prim()},
      {DNNL_ARG_WEIGHTS, e.wei.Bind(1, w, !training, s, &hold)},
      {DNNL_ARG_DST, by ? dnnl::memory(by->desc(), CpuEngine(), by->ptr()) : e.dst.Prim()}};
  if (p.has_bias) {
    e.bias.set_data_handle(bias->dptr_);
    args[DNNL_ARG_BIAS] = e.bias;
  }
  e.prim.execute(s, args);
  if (!by) e.dst.FromPrim(s);
  s.wait();
  if (by) SetBlockedOutput(0, std::move(by));
}

/*! \brief dw and db through FewChannelWeightGrad: x read plain, dy in nChw8c (as it is, or a copy). */
void FewChannelBackwardWeights(const Problem& p, const TBlob& dy, const TBlob& x, const TBlob* dw, const TBlob* db) {
  PlainInput(1);
  const md blocked(p.dst.dims(), dt::f32, dnnl::memory::format_tag::aBcd8b);
  const std::shared_ptr<const BlockedData> bdy = BlockedInput(0, dy);
  thread_local std::vector<float> dw_scratch;
  std::unique_ptr<BlockedData> dy_copy;  // pooled storage, back to the pool on return
  const float* dy8;
  if (bdy && bdy->desc() == blocked) {
    dy8 = static_cast<const float*>(bdy->ptr());
  } else {
    dy_copy = std::make_unique<BlockedData>(blocked, p.dst);
    CopyInputInto(0, dy, p.dst, blocked, dy_copy->ptr());
    dy8 = static_cast<const float*>(dy_copy->ptr());
  }
  float* dwp = dw ? dw->dptr<float>() : nullptr;
  if (!dwp) {
    dw_scratch.resize(p.wei.get_size() / sizeof(float));
    dwp = dw_scratch.data();
  }
  FewChannelWeightGrad(p.geom2d, x.dptr<float>(), dy8, dwp, db ? db->dptr<float>() : nullptr);
}

template <bool kD>
struct BwdEntry {
  typename Prims<kD>::BwdData data;
  typename Prims<kD>::BwdWeights weights;
  dnnl::memory::desc d_ddst, d_dsrc, w_src, w_ddst;  // activation formats each primitive wants
  LayoutBridge d_wei, w_dwei;                        // weights: plain (MXNet's) <-> primitive's
  dnnl::memory dbias;
};

/*!
 * \brief Gradients through the bwd-data and bwd-weights primitives. dy and x are read in the
 *        primitives' formats when they hold them (the blocked backward chain: a blocked
 *        activation/pooling backward hands dy over, the forward left x blocked) and dx is left
 *        in the primitive's format when the op allows; weights and their gradient are plain.
 */
template <bool kD>
void RunBackward(const Problem& p, ConvBwdPath path, const TBlob& dy, const TBlob& x, const TBlob& w, const TBlob* dx,
                 const TBlob* dw, const TBlob* db) {
  thread_local PrimitiveCache<BwdEntry<kD>> cache;
  using P = Prims<kD>;
  BwdEntry<kD>& e = cache.Get(p.key, [&] {
    typename P::Fwd::primitive_desc hint(FwdDesc<kD>(p, true), CpuEngine());
    const md src = ActivationChoice(p.src, p.train_channel_last), dst = ActivationChoice(p.dst, p.train_channel_last);
    typename P::BwdData::primitive_desc dpd(
        typename P::BwdData::desc(P::kAlg, src, AnyLike(p.wei), dst, p.strides, p.dilates, p.pad_l, p.pad_r),
        CpuEngine(), hint);
    auto wdesc = p.has_bias ? typename P::BwdWeights::desc(P::kAlg, src, AnyLike(p.wei), p.bias, dst, p.strides,
                                                           p.dilates, p.pad_l, p.pad_r)
                            : typename P::BwdWeights::desc(P::kAlg, src, AnyLike(p.wei), dst, p.strides, p.dilates,
                                                           p.pad_l, p.pad_r);
    typename P::BwdWeights::primitive_desc wpd(wdesc, CpuEngine(), hint);
    BwdEntry<kD> n{typename P::BwdData(dpd),
                   typename P::BwdWeights(wpd),
                   dpd.diff_dst_desc(),
                   dpd.diff_src_desc(),
                   wpd.src_desc(),
                   wpd.diff_dst_desc(),
                   LayoutBridge(p.wei, dpd.weights_desc()),
                   LayoutBridge(p.wei, wpd.diff_weights_desc()),
                   dnnl::memory()};
    if (p.has_bias) n.dbias = dnnl::memory(p.bias, CpuEngine(), DNNL_MEMORY_NONE);
    return n;
  });
  dnnl::stream& s = ThreadStream();
  // Kernel inputs (dy, x, w), outputs (dx, dw, db).
  PlainInput(2);
  if (dx && path == ConvBwdPath::kChannelLastGemm) {
    InputOperand gy(0, dy, p.dst, ActivationChoice(p.dst, true));
    OutputOperand gx(0, *dx, p.src, ActivationChoice(p.src, true));
    ChannelLastBackwardData(p.geom2d, static_cast<const float*>(gy.mem().get_data_handle()), w.dptr<float>(),
                            static_cast<float*>(gx.mem().get_data_handle()));
    gx.Finish();
  } else if (dx && path == ConvBwdPath::kWinograd && p.winograd_bwd_data) {
    WinogradBackwardData(p.geom2d, p.src, p.dst, dy, w, *dx);
  } else if (dx) {
    InputOperand gy(0, dy, p.dst, e.d_ddst);
    OutputOperand gx(0, *dx, p.src, e.d_dsrc);
    e.d_wei.Bind(w.dptr_);
    e.d_wei.ToPrim(s);
    e.data.execute(s,
                   {{DNNL_ARG_DIFF_DST, gy.mem()}, {DNNL_ARG_WEIGHTS, e.d_wei.Prim()}, {DNNL_ARG_DIFF_SRC, gx.mem()}});
    gx.Finish();
    s.wait();
  }
  if ((dw || db) && path == ConvBwdPath::kFewChannel) {
    FewChannelBackwardWeights(p, dy, x, dw, db);
  } else if ((dw || db) && path == ConvBwdPath::kWinograd && p.winograd_bwd_weights) {
    WinogradBackwardWeights(p.geom2d, p.src, p.dst, dy, x, dw, db);
  } else if (dw || db) {
    // oneDNN computes both together; a missing one goes to scratch.
    InputOperand in(1, x, p.src, e.w_src);
    InputOperand gy(0, dy, p.dst, e.w_ddst);
    std::vector<char> wscratch, bscratch;
    if (dw) {
      e.w_dwei.Bind(dw->dptr_);
    } else {
      wscratch.resize(p.wei.get_size());
      e.w_dwei.Bind(wscratch.data());
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, in.mem()}, {DNNL_ARG_DIFF_DST, gy.mem()}, {DNNL_ARG_DIFF_WEIGHTS, e.w_dwei.Prim()}};
    if (p.has_bias) {
      if (db) {
        e.dbias.set_data_handle(db->dptr_);
      } else {
        bscratch.resize(p.bias.get_size());
        e.dbias.set_data_handle(bscratch.data());
      }
      args[DNNL_ARG_DIFF_BIAS] = e.dbias;
    }
    e.weights.execute(s, args);
    e.w_dwei.FromPrim(s);
    s.wait();
  }
}

bool PaddingOk(const ConvGeom& g, const std::vector<int64_t>* adj) {
  for (int i = 0; i < g.nsp; ++i)
    if (adj && g.p[3 - g.nsp + i] < (*adj)[i]) return false;
  return true;
}

}  // namespace

bool ConvSupported(const ConvGeom& g, int dtype) { return SupportedType(dtype) && g.N > 0; }

bool DeconvSupported(const ConvGeom& g, const std::vector<int64_t>& adj, int dtype) {
  return SupportedType(dtype) && g.N > 0 && PaddingOk(g, &adj);
}

bool ConvForwardTakes(ConvFwdPath path, const ConvGeom& g, bool cl, bool training, int dtype, bool has_bias,
                      const PostOps& post) {
  if (!ConvSupported(g, dtype)) return false;
  if (path == ConvFwdPath::kPrimitive) return true;
  const Problem p = MakeProblem(false, g, nullptr, cl, dtype, has_bias);
  return path == ConvFwdPath::kWinograd ? WinogradForwardTakes(p, training, post)
                                        : FewChannelForwardTakes(p, training, post);
}

bool ConvForwardWorthIt(ConvFwdPath path, const ConvGeom& g, bool cl, bool training, int dtype, bool has_bias,
                        const PostOps& post) {
  if (path == ConvFwdPath::kPrimitive) return true;
  const Problem p = MakeProblem(false, g, nullptr, cl, dtype, has_bias);
  // Few channels: only where oneDNN would run its gemm kernel (its direct AVX2/AVX-512 kernels
  // are faster where they take the problem, e.g. not AlexNet's 11x11/4 first layer on AVX2).
  return path == ConvFwdPath::kWinograd ? p.winograd_worth : GetFwdEntry<false>(p, training, post).gemm_impl;
}

bool ConvBackwardWorthIt(ConvBwdPath path, const ConvGeom& g, bool cl, int dtype, bool has_bias) {
  if (path != ConvBwdPath::kWinograd) return true;
  return MakeProblem(false, g, nullptr, cl, dtype, has_bias).winograd_worth;
}

bool ConvBackwardTakes(ConvBwdPath path, const ConvGeom& g, bool cl, int dtype, bool has_bias) {
  if (!ConvSupported(g, dtype)) return false;
  const Problem p = MakeProblem(false, g, nullptr, cl, dtype, has_bias);
  switch (path) {
    case ConvBwdPath::kChannelLastGemm: return p.gemm_bwd_data;
    case ConvBwdPath::kFewChannel: return p.few_channel && !p.train_channel_last;
    case ConvBwdPath::kWinograd: return p.winograd_bwd_data || p.winograd_bwd_weights;
    case ConvBwdPath::kPrimitive: return true;
  }
  return false;
}

void ConvForward(ConvFwdPath path, const ConvGeom& g, bool cl, bool training, const TBlob& x, const TBlob& w,
                 const TBlob* bias, const TBlob& y, const PostOps& post) {
  RunForward<false>(MakeProblem(false, g, nullptr, cl, x.type_flag_, bias != nullptr), path, training, x, w, bias, y,
                    post);
}

void ConvBackward(ConvBwdPath path, const ConvGeom& g, bool cl, const TBlob& dy, const TBlob& x, const TBlob& w,
                  const TBlob* dx, const TBlob* dw, const TBlob* db) {
  RunBackward<false>(MakeProblem(false, g, nullptr, cl, x.type_flag_, db != nullptr), path, dy, x, w, dx, dw, db);
}

void DeconvForward(const ConvGeom& g, const std::vector<int64_t>& adj, bool cl, bool training, const TBlob& x,
                   const TBlob& w, const TBlob* bias, const TBlob& y, const PostOps& post) {
  RunForward<true>(MakeProblem(true, g, &adj, cl, x.type_flag_, bias != nullptr), ConvFwdPath::kPrimitive, training, x,
                   w, bias, y, post);
}

void DeconvBackward(const ConvGeom& g, const std::vector<int64_t>& adj, bool cl, const TBlob& dy, const TBlob& x,
                    const TBlob& w, const TBlob* dx, const TBlob* dw, const TBlob* db) {
  RunBackward<true>(MakeProblem(true, g, &adj, cl, x.type_flag_, db != nullptr), ConvBwdPath::kPrimitive, dy, x, w, dx,
                    dw, db);
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
