/*!
 * \file pooling_param.h
 * \brief Pooling's parameters, its resolved geometry (PoolGeom) and the per-window math, shared
 *        by the reference kernels (pooling.cc), the oneDNN-build entries
 *        (onednn/onednn_pooling_kernels.cc) and the CUDA kernels (cuda/pooling.cu).
 */
#ifndef MXNET_OPERATOR_NN_POOLING_PARAM_H_
#define MXNET_OPERATOR_NN_POOLING_PARAM_H_

#include <cmath>
#include <cstdint>
#include <limits>

#include "mxnet/xinline.h"
#include "operator/nn/conv_param.h"

namespace mxnet {
namespace op {

enum PoolType { kMaxPool = 0, kAvgPool = 1, kSumPool = 2, kLpPool = 3 };
enum PoolConvention { kValid = 0, kFull = 1, kSame = 2 };

struct PoolingParam : public dmlc::Parameter<PoolingParam> {
  TShape kernel, stride, pad;
  int pool_type;
  bool global_pool, cudnn_off;
  int pooling_convention;
  dmlc::optional<int> p_value;
  dmlc::optional<bool> count_include_pad;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(PoolingParam) {
    DMLC_DECLARE_FIELD(kernel).set_default(TShape(0)).describe("Pooling kernel size: (y, x) or (d, y, x).");
    DMLC_DECLARE_FIELD(pool_type).set_default(kMaxPool)
        .add_enum("max", kMaxPool).add_enum("avg", kAvgPool).add_enum("sum", kSumPool).add_enum("lp", kLpPool)
        .describe("Pooling type to be applied.");
    DMLC_DECLARE_FIELD(global_pool).set_default(false)
        .describe("Ignore kernel size, do global pooling based on current input feature map.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Turn off cudnn pooling and use MXNet pooling operator.");
    DMLC_DECLARE_FIELD(pooling_convention).set_default(kValid)
        .add_enum("valid", kValid).add_enum("full", kFull).add_enum("same", kSame)
        .describe("Pooling convention to be applied.");
    DMLC_DECLARE_FIELD(stride).set_default(TShape(0)).describe("Stride: for pooling (y, x) or (d, y, x). Defaults to 1.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape(0)).describe("Pad for pooling: (y, x) or (d, y, x). Defaults to no padding.");
    DMLC_DECLARE_FIELD(p_value).set_default(dmlc::optional<int>()).describe("Value of p for Lp pooling, can be 1, 2 or 3.");
    DMLC_DECLARE_FIELD(count_include_pad).set_default(dmlc::optional<bool>())
        .describe("Only used for AvgPool: whether padded values count in the divisor. Default True.");
    DMLC_DECLARE_FIELD(layout).MXNET_ADD_CONV_LAYOUTS.set_default(dmlc::optional<int>())
        .describe("Set layout for input and output. Empty for default layout: NCW, NCHW or NCDHW.");
  }
};
/*! \brief Resolved pooling over channel-first data, 3 spatial dims (leading ones size 1). */
struct PoolGeom {
  int64_t N{0}, C{0};
  int nsp{0};
  int64_t in[3]{1, 1, 1}, out[3]{1, 1, 1}, k[3]{1, 1, 1}, s[3]{1, 1, 1}, p[3]{0, 0, 0};
  int type{kMaxPool}, conv{kValid}, pval{2};
  bool include_pad{true};
  MXNET_XINLINE int64_t InSize() const { return in[0] * in[1] * in[2]; }
  MXNET_XINLINE int64_t OutSize() const { return out[0] * out[1] * out[2]; }
};

/*!
 * \brief The window of one output position: per dim (depth, height, width) the clipped input
 *        range [b, e) and the span clipped to the padded input (MXNet's count_include_pad divisor).
 */
struct PoolWin {
  int64_t b[3]{0, 0, 0}, e[3]{0, 0, 0}, span[3]{0, 0, 0};
  /*! \brief Input positions in the window. */
  MXNET_XINLINE int64_t Count() const { return (e[0] - b[0]) * (e[1] - b[1]) * (e[2] - b[2]); }
  /*! \brief Positions of the window inside the padded input. */
  MXNET_XINLINE int64_t Padded() const { return span[0] * span[1] * span[2]; }
};

/*! \brief Sets dim i of *w to the window of output index o along it. */
MXNET_XINLINE void PoolWindowDim(const PoolGeom& g, int i, int64_t o, PoolWin* w) {
  const int64_t start = o * g.s[i] - g.p[i];
  const int64_t end = start + g.k[i];
  const int64_t pad_e = end < g.in[i] + g.p[i] ? end : g.in[i] + g.p[i];
  w->span[i] = pad_e - start;
  w->b[i] = start > 0 ? start : 0;
  w->e[i] = end < g.in[i] ? end : g.in[i];
}

/*! \brief The window of output position (od, oh, ow). */
MXNET_XINLINE PoolWin PoolWindowAt(const PoolGeom& g, int64_t od, int64_t oh, int64_t ow) {
  PoolWin w;
  PoolWindowDim(g, 0, od, &w);
  PoolWindowDim(g, 1, oh, &w);
  PoolWindowDim(g, 2, ow, &w);
  return w;
}

template <typename C>
MXNET_XINLINE C PoolPowP(C v, int p) {
  return p == 1 ? v : p == 2 ? v * v : v * v * v;
}

/*! \brief The accumulator of a window before its first element. */
template <typename C>
MXNET_XINLINE C PoolInit(int type) {
  return type == kMaxPool ? std::numeric_limits<C>::lowest() : C(0);
}

/*! \brief Folds input value v into the window's accumulator (max: NaN is skipped). */
template <typename C>
MXNET_XINLINE void PoolAccum(const PoolGeom& g, C* acc, C v) {
  if (g.type == kMaxPool) *acc = v > *acc ? v : *acc;
  else if (g.type == kLpPool) *acc += PoolPowP(v, g.pval);
  else *acc += v;
}

/*! \brief The output of a window from its accumulator. */
template <typename C>
MXNET_XINLINE C PoolFinish(const PoolGeom& g, const PoolWin& w, C acc) {
  if (g.type == kAvgPool) {
    const int64_t n = g.include_pad ? w.Padded() : w.Count();
    return n > 0 ? acc / C(n) : C(0);
  }
  if (g.type == kLpPool) return g.pval == 1 ? acc : g.pval == 2 ? std::sqrt(acc) : std::cbrt(acc);
  return acc;
}

/*! \brief The factor of avg pooling's gradient (1 / divisor; 1 for the other types). */
template <typename C>
MXNET_XINLINE C PoolGradScale(const PoolGeom& g, const PoolWin& w) {
  if (g.type != kAvgPool) return C(1);
  const int64_t n = g.include_pad ? w.Padded() : w.Count();
  return n > 0 ? C(1) / C(n) : C(0);
}

/*!
 * \brief The gradient an input value x of a window (not max) gets from the window's output y and
 *        its gradient gy; scale: PoolGradScale.
 */
template <typename C>
MXNET_XINLINE C PoolInputGrad(const PoolGeom& g, C gy, C scale, C x, C y) {
  C gx = gy * scale;
  if (g.type == kLpPool && g.pval > 1) {
    // d/dx (sum x^p)^(1/p) = x^(p-1) / y^(p-1)
    const C den = PoolPowP(y, g.pval - 1);
    gx = den != C(0) ? gy * PoolPowP(x, g.pval - 1) / den : C(0);
  }
  return gx;
}

/*! \brief The geometry of pooling channel-first data x (checks the window against x). */
PoolGeom MakePoolGeom(const NodeAttrs& attrs, const TShape& x);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_POOLING_PARAM_H_
