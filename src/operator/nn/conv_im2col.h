/*!
 * \file conv_im2col.h
 * \brief The plain convolution: im2col + GEMM per sample and group, the reference the
 *        oneDNN path is tested against. Deconvolution uses the same three kernels with the
 *        roles of forward and backward-data swapped.
 */
#ifndef MXNET_OPERATOR_NN_CONV_IM2COL_H_
#define MXNET_OPERATOR_NN_CONV_IM2COL_H_

#include <algorithm>
#include <cstring>

#include "operator/nn/conv_param.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

/*! \brief col (Cg*K x OutSize) from x (Cg channels of one sample). */
template <typename D>
void Im2Col(const ConvGeom& g, int64_t Cg, const D* x, D* col) {
  const int64_t K = g.KSize(), O = g.OutSize(), I = g.InSize();
  const int64_t rows = Cg * K;
#pragma omp parallel for schedule(static) if (UseParallel(rows * O))
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t c = row / K, kk = row % K;
    const int64_t kd = kk / (g.k[1] * g.k[2]), kh = (kk / g.k[2]) % g.k[1], kw = kk % g.k[2];
    const D* src = x + c * I;
    D* dst = col + row * O;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
      for (int64_t oh = 0; oh < g.out[1]; ++oh, dst += g.out[2]) {
        const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
        if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
          std::fill(dst, dst + g.out[2], D(0));
          continue;
        }
        const D* line = src + (id * g.in[1] + ih) * g.in[2];
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          const int64_t iw = ow * g.s[2] - g.p[2] + kw * g.d[2];
          dst[ow] = (iw >= 0 && iw < g.in[2]) ? line[iw] : D(0);
        }
      }
    }
  }
}

/*! \brief x (Cg channels) += col2im(col): the transpose of Im2Col. */
template <typename D>
void Col2ImAdd(const ConvGeom& g, int64_t Cg, const D* col, D* x) {
  const int64_t K = g.KSize(), O = g.OutSize(), I = g.InSize();
  // One channel per thread: rows of one channel overlap in x, channels do not.
#pragma omp parallel for schedule(static) if (UseParallel(Cg * K * O))
  for (int64_t c = 0; c < Cg; ++c) {
    D* dst = x + c * I;
    for (int64_t kk = 0; kk < K; ++kk) {
      const int64_t kd = kk / (g.k[1] * g.k[2]), kh = (kk / g.k[2]) % g.k[1], kw = kk % g.k[2];
      const D* src = col + (c * K + kk) * O;
      for (int64_t od = 0; od < g.out[0]; ++od) {
        const int64_t id = od * g.s[0] - g.p[0] + kd * g.d[0];
        for (int64_t oh = 0; oh < g.out[1]; ++oh, src += g.out[2]) {
          const int64_t ih = oh * g.s[1] - g.p[1] + kh * g.d[1];
          if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) continue;
          D* line = dst + (id * g.in[1] + ih) * g.in[2];
          for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const int64_t iw = ow * g.s[2] - g.p[2] + kw * g.d[2];
            if (iw >= 0 && iw < g.in[2]) line[iw] += src[ow];
          }
        }
      }
    }
  }
}

/*! \brief Scratch a kernel needs: one im2col matrix (none for pointwise convolutions). */
inline size_t ConvColBytes(const ConvGeom& g, size_t elem) {
  return g.IsPointwise() ? 0 : static_cast<size_t>((g.C / g.G) * g.KSize() * g.OutSize()) * elem;
}

/*! \brief y (N, F, out) under req = conv(x (N, C, in), w (F, C/G, k)). */
template <typename D>
void ConvForward(const ConvGeom& g, const D* x, const D* w, D* y, OpReqType req, D* col) {
  if (req == kNullOp) return;
  const int64_t Cg = g.C / g.G, Fg = g.F / g.G, KK = Cg * g.KSize(), O = g.OutSize(), I = g.InSize();
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t grp = 0; grp < g.G; ++grp) {
      const D* xin = x + (n * g.C + grp * Cg) * I;
      const D* cm = xin;
      if (!g.IsPointwise()) {
        Im2Col(g, Cg, xin, col);
        cm = col;
      }
      Gemm(false, false, Fg, O, KK, D(1), w + grp * Fg * KK, KK, cm, O, BetaFor<D>(req), y + (n * g.F + grp * Fg) * O,
           O);
    }
  }
}

/*! \brief dx (N, C, in) under req = conv^T(dy (N, F, out), w). */
template <typename D>
void ConvBackwardData(const ConvGeom& g, const D* dy, const D* w, D* dx, OpReqType req, D* col) {
  if (req == kNullOp) return;
  const int64_t Cg = g.C / g.G, Fg = g.F / g.G, KK = Cg * g.KSize(), O = g.OutSize(), I = g.InSize();
  if (req != kAddTo && !g.IsPointwise()) std::memset(dx, 0, sizeof(D) * g.N * g.C * I);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t grp = 0; grp < g.G; ++grp) {
      D* xg = dx + (n * g.C + grp * Cg) * I;
      const D* dyg = dy + (n * g.F + grp * Fg) * O;
      if (g.IsPointwise()) {
        Gemm(true, false, KK, O, Fg, D(1), w + grp * Fg * KK, KK, dyg, O, BetaFor<D>(req), xg, O);
      } else {
        Gemm(true, false, KK, O, Fg, D(1), w + grp * Fg * KK, KK, dyg, O, D(0), col, O);
        Col2ImAdd(g, Cg, col, xg);
      }
    }
  }
}

/*! \brief dw (F, C/G, k) under req = sum over samples of dy * im2col(x)^T. */
template <typename D>
void ConvBackwardWeight(const ConvGeom& g, const D* x, const D* dy, D* dw, OpReqType req, D* col) {
  if (req == kNullOp) return;
  const int64_t Cg = g.C / g.G, Fg = g.F / g.G, KK = Cg * g.KSize(), O = g.OutSize(), I = g.InSize();
  if (g.N == 0 && req != kAddTo) std::memset(dw, 0, sizeof(D) * g.F * KK);
  for (int64_t n = 0; n < g.N; ++n) {
    for (int64_t grp = 0; grp < g.G; ++grp) {
      const D* xin = x + (n * g.C + grp * Cg) * I;
      const D* cm = xin;
      if (!g.IsPointwise()) {
        Im2Col(g, Cg, xin, col);
        cm = col;
      }
      const D beta = (n == 0 && req != kAddTo) ? D(0) : D(1);
      Gemm(false, true, Fg, KK, O, D(1), dy + (n * g.F + grp * Fg) * O, O, cm, O, beta, dw + grp * Fg * KK, KK);
    }
  }
}

/*! \brief y (N, F, S) += bias[f]. */
template <typename D>
void AddBias(const D* bias, D* y, int64_t N, int64_t F, int64_t S) {
#pragma omp parallel for schedule(static) if (UseParallel(N * F * S))
  for (int64_t nf = 0; nf < N * F; ++nf) {
    const D b = bias[nf % F];
    D* row = y + nf * S;
    for (int64_t i = 0; i < S; ++i) row[i] += b;
  }
}

/*! \brief db (F) under req = sum of dy (N, F, S) over N and S. */
template <typename D>
void BiasGrad(const D* dy, D* db, int64_t N, int64_t F, int64_t S, OpReqType req) {
  if (req == kNullOp) return;
#pragma omp parallel for schedule(static) if (UseParallel(N * F * S))
  for (int64_t f = 0; f < F; ++f) {
    double acc = 0;
    for (int64_t n = 0; n < N; ++n) {
      const D* row = dy + (n * F + f) * S;
      for (int64_t i = 0; i < S; ++i) acc += row[i];
    }
    Store(db + f, req, acc);
  }
}

/*!
 * \brief Channel-last <-> channel-first copy of (N, S, C) <-> (N, C, S). Plain kernels work
 *        channel-first; NHWC data and OHWI weights pass through here.
 */
template <typename D>
void PermuteNSC(const D* src, D* dst, int64_t N, int64_t S, int64_t C, bool to_channel_first,
                OpReqType req = kWriteTo) {
#pragma omp parallel for schedule(static) if (UseParallel(N * S * C))
  for (int64_t n = 0; n < N; ++n) {
    const D* s = src + n * S * C;
    D* d = dst + n * S * C;
    for (int64_t i = 0; i < S; ++i)
      for (int64_t c = 0; c < C; ++c) {
        if (to_channel_first) Store(d + c * S + i, req, s[i * C + c]);
        else Store(d + i * C + c, req, s[c * S + i]);
      }
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_IM2COL_H_
