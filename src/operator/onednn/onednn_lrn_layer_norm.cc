/*!
 * \file onednn_lrn_layer_norm.cc
 * \brief oneDNN LRN across channels and layer normalization over the last axis (float32,
 *        plain layouts), forward and backward.
 */
#if MXNET_USE_ONEDNN

#include <cstring>

#include "operator/onednn/onednn_norm_backward.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

int64_t Bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i;
}

struct LRNFwd {
  dnnl::lrn_forward prim;
  dnnl::memory src, dst, ws;
};
struct LRNBwd {
  dnnl::lrn_forward fwd;  // re-run for the workspace the backward primitive reads
  dnnl::lrn_backward prim;
  dnnl::memory src, ddst, dsrc, fwd_dst, ws;
};

dnnl::lrn_forward::desc LRNDesc(const dnnl::memory::desc& d, int64_t n, float a, float b, float k) {
  // MXNet's alpha is divided by nsize like oneDNN's: y = x * (k + alpha/n * sum x^2)^-beta.
  return dnnl::lrn_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::lrn_across_channels, d, n, a, b,
                                 k);
}

struct LNFwd {
  dnnl::layer_normalization_forward prim;
  dnnl::memory src, dst, scale, shift, mean, var;
};
struct LNBwd {
  dnnl::layer_normalization_backward prim;
  NormBackwardOperands operands;
};

dnnl::memory::desc StatDesc(const TBlob& x) {
  dnnl::memory::dims d(x.shape_.begin(), x.shape_.end() - 1);
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, PlainTag(x.ndim() - 1));
}

dnnl::memory::desc ScaleDesc(const TBlob& x) {
  return dnnl::memory::desc({x.shape_[x.ndim() - 1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
}

const dnnl::normalization_flags kLNFlags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;

}  // namespace

void LRNForward(const TBlob& x, const TBlob& y, int64_t nsize, float alpha, float beta, float knorm) {
  thread_local PrimitiveCache<LRNFwd> cache;
  LRNFwd& e = cache.Get(Key().Add(x).Add(nsize).Add(Bits(alpha)).Add(Bits(beta)).Add(Bits(knorm)), [&] {
    const auto d = PlainDesc(x);
    dnnl::lrn_forward::primitive_desc pd(LRNDesc(d, nsize, alpha, beta, knorm), CpuEngine());
    return LRNFwd{dnnl::lrn_forward(pd), UnboundMemory(d), UnboundMemory(d),
                  dnnl::memory(pd.workspace_desc(), CpuEngine())};
  });
  e.src.set_data_handle(x.dptr_);
  e.dst.set_data_handle(y.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}, {DNNL_ARG_WORKSPACE, e.ws}});
  s.wait();
}

void LRNBackward(const TBlob& dy, const TBlob& x, const TBlob& dx, int64_t nsize, float alpha, float beta,
                 float knorm) {
  thread_local PrimitiveCache<LRNBwd> cache;
  LRNBwd& e = cache.Get(Key().Add(x).Add(nsize).Add(Bits(alpha)).Add(Bits(beta)).Add(Bits(knorm)), [&] {
    const auto d = PlainDesc(x);
    dnnl::lrn_forward::primitive_desc hint(LRNDesc(d, nsize, alpha, beta, knorm), CpuEngine());
    dnnl::lrn_backward::primitive_desc pd(
        dnnl::lrn_backward::desc(dnnl::algorithm::lrn_across_channels, d, d, nsize, alpha, beta, knorm), CpuEngine(),
        hint);
    return LRNBwd{dnnl::lrn_forward(hint),
                  dnnl::lrn_backward(pd),
                  UnboundMemory(d),
                  UnboundMemory(d),
                  UnboundMemory(d),
                  dnnl::memory(d, CpuEngine()),
                  dnnl::memory(hint.workspace_desc(), CpuEngine())};
  });
  e.src.set_data_handle(x.dptr_);
  e.ddst.set_data_handle(dy.dptr_);
  e.dsrc.set_data_handle(dx.dptr_);
  dnnl::stream& s = ThreadStream();
  e.fwd.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.fwd_dst}, {DNNL_ARG_WORKSPACE, e.ws}});
  e.prim.execute(
      s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DIFF_DST, e.ddst}, {DNNL_ARG_DIFF_SRC, e.dsrc}, {DNNL_ARG_WORKSPACE, e.ws}});
  s.wait();
}

void LayerNormForward(const TBlob& x, const float* gamma, const float* beta, const TBlob& y, float* mean, float* var,
                      float eps) {
  thread_local PrimitiveCache<LNFwd> cache;
  LNFwd& e = cache.Get(Key().Add(x).Add(Bits(eps)), [&] {
    const auto d = PlainDesc(x), st = StatDesc(x), sc = ScaleDesc(x);
    dnnl::layer_normalization_forward::primitive_desc pd(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, d, st, eps, kLNFlags), CpuEngine());
    return LNFwd{dnnl::layer_normalization_forward(pd),
                 UnboundMemory(d),
                 UnboundMemory(d),
                 UnboundMemory(sc),
                 UnboundMemory(sc),
                 UnboundMemory(st),
                 UnboundMemory(st)};
  });
  e.src.set_data_handle(x.dptr_);
  e.dst.set_data_handle(y.dptr_);
  e.scale.set_data_handle(const_cast<float*>(gamma));
  e.shift.set_data_handle(const_cast<float*>(beta));
  e.mean.set_data_handle(mean);
  e.var.set_data_handle(var);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src},
                     {DNNL_ARG_DST, e.dst},
                     {DNNL_ARG_SCALE, e.scale},
                     {DNNL_ARG_SHIFT, e.shift},
                     {DNNL_ARG_MEAN, e.mean},
                     {DNNL_ARG_VARIANCE, e.var}});
  s.wait();
}

void LayerNormBackward(const TBlob& dy, const TBlob& x, const float* gamma, const float* mean, const float* var,
                       const TBlob& dx, float* dgamma, float* dbeta, float eps) {
  thread_local PrimitiveCache<LNBwd> cache;
  LNBwd& e = cache.Get(Key().Add(x).Add(Bits(eps)), [&] {
    const auto d = PlainDesc(x), st = StatDesc(x), sc = ScaleDesc(x);
    dnnl::layer_normalization_forward::primitive_desc hint(
        dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, d, st, eps, kLNFlags), CpuEngine());
    dnnl::layer_normalization_backward::primitive_desc pd(
        dnnl::layer_normalization_backward::desc(dnnl::prop_kind::backward, d, d, st, eps, kLNFlags), CpuEngine(),
        hint);
    return LNBwd{dnnl::layer_normalization_backward(pd),
                 NormBackwardOperands{UnboundMemory(d), UnboundMemory(d), UnboundMemory(sc), UnboundMemory(st),
                                      UnboundMemory(st), UnboundMemory(d), UnboundMemory(sc), UnboundMemory(sc)}};
  });
  ExecuteNormBackward(e.prim, &e.operands, dy, x, gamma, mean, var, dx, dgamma, dbeta);
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
