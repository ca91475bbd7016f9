/*!
 * \file conv_fwd_few_channels.cc
 * \brief See conv_fwd_few_channels.h.
 */
#include "operator/nn/conv_fwd_few_channels.h"

#include <algorithm>
#include <vector>

#include "mxnet/storage.h"

namespace mxnet {
namespace op {
namespace {

constexpr int64_t L = kFewChannelLanes;
using few_channel::Lanes;
using few_channel::Load;
using few_channel::Store;
constexpr int64_t kCols = 4;  // output columns per register block
struct Packed {
  std::vector<float> w;     // [Fb][C][kh][kw][L], lanes past F zero
  std::vector<float> bias;  // [Fb][L]
};

Packed Pack(const Conv2dGeom& g, int64_t Fb, const float* w, const float* bias) {
  const int64_t taps = g.C * g.kh * g.kw;
  Packed p{std::vector<float>(Fb * taps * L, 0.f), std::vector<float>(Fb * L, 0.f)};
  for (int64_t f = 0; f < g.F; ++f) {
    for (int64_t t = 0; t < taps; ++t) p.w[((f / L) * taps + t) * L + f % L] = w[f * taps + t];
    if (bias) p.bias[f] = bias[f];
  }
  return p;
}

/*!
 * \brief Output columns ow0 .. ow0 + kN - 1 of one row for blocks fb0 .. fb0 + kB - 1. The
 *        accumulators are indexed only by unrolled constants, so they stay in registers.
 */
template <int kB, int kN>
inline void Block(const Conv2dGeom& g, const float* w0, const float* w1, Lanes b0, Lanes b1, const float* xrow0,
                  int64_t Hp, int64_t Wp, int64_t ow0, bool relu, float* const* out) {
  Lanes a0[kN], a1[kN];
#pragma GCC unroll 4
  for (int t = 0; t < kN; ++t) {
    a0[t] = b0;
    a1[t] = b1;
  }
  const int64_t sw = g.sw, dw = g.dw;
  int64_t tap = 0;
  for (int64_t c = 0; c < g.C; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      const float* xr = xrow0 + (c * Hp + i * g.dh) * Wp + ow0 * sw;
      for (int64_t j = 0; j < g.kw; ++j, ++tap) {
        Lanes v0 = Load(w0 + tap * L), v1 = Load(w1 + tap * L);
#if defined(__AVX__)  // a 256-bit value fits an x register only with AVX
        asm("" : "+x"(v0), "+x"(v1));  // one load per weight vector, not one per FMA
#endif
        const float* xp = xr + j * dw;
#pragma GCC unroll 4
        for (int t = 0; t < kN; ++t) {
          const float v = xp[t * sw];
          a0[t] += v0 * v;
          if (kB > 1) a1[t] += v1 * v;
        }
      }
    }
  }
  const Lanes zero = {};
#pragma GCC unroll 4
  for (int t = 0; t < kN; ++t) {
    Store(out[0] + (ow0 + t) * L, relu ? (a0[t] > zero ? a0[t] : zero) : a0[t]);
    if (kB > 1) Store(out[1] + (ow0 + t) * L, relu ? (a1[t] > zero ? a1[t] : zero) : a1[t]);
  }
}

/*! \brief One output row of blocks fb0 .. fb0 + kB - 1. xpad: the zero-padded image ([C][Hp][Wp]). */
template <int kB>
void Row(const Conv2dGeom& g, const Packed& pk, int64_t fb0, int64_t oh, const float* xpad, int64_t Hp, int64_t Wp,
         bool relu, float* const* out) {
  const int64_t taps = g.C * g.kh * g.kw;
  const float* w0 = pk.w.data() + fb0 * taps * L;
  const float* w1 = kB > 1 ? w0 + taps * L : w0;
  const Lanes b0 = Load(pk.bias.data() + fb0 * L), b1 = kB > 1 ? Load(pk.bias.data() + (fb0 + 1) * L) : Lanes{};
  const float* xrow0 = xpad + oh * g.sh * Wp;
  int64_t ow0 = 0;
  for (; ow0 + kCols <= g.OW; ow0 += kCols) Block<kB, kCols>(g, w0, w1, b0, b1, xrow0, Hp, Wp, ow0, relu, out);
  for (; ow0 < g.OW; ++ow0) Block<kB, 1>(g, w0, w1, b0, b1, xrow0, Hp, Wp, ow0, relu, out);
}

}  // namespace

void FewChannelConvForward(const Conv2dGeom& g, const float* x, const float* w, const float* bias, bool relu,
                           float* y8) {
  const int64_t Fb = (g.F + L - 1) / L, Hp = g.H + 2 * g.ph, Wp = g.W + 2 * g.pw;
  const Packed pk = Pack(g, Fb, w, bias);
  const int64_t pairs = (Fb + 1) / 2, plane = g.OH * g.OW * L;
  // The padded batch comes from the pool: a fresh allocation this size (20 MB for AlexNet at
  // batch 32) would page-fault in on every call.
  const size_t pad_bytes = static_cast<size_t>(g.N * g.C * Hp * Wp) * sizeof(float);
  const Storage::Handle pad = Storage::Get()->Alloc(pad_bytes, Context::CPU());
  float* const xpad = static_cast<float*>(pad.dptr);
  few_channel::PadPlanes(g, x, g.N * g.C, xpad);
  // Every (image, block pair, output row) writes its own part of y8.
#pragma omp parallel for schedule(static)
  for (int64_t task = 0; task < g.N * pairs * g.OH; ++task) {
    const int64_t n = task / (pairs * g.OH), fb0 = (task / g.OH) % pairs * 2, oh = task % g.OH;
    const float* xn = xpad + n * g.C * Hp * Wp;
    float* out[2] = {y8 + ((n * Fb + fb0) * g.OH + oh) * g.OW * L, nullptr};
    if (fb0 + 1 < Fb) {
      out[1] = out[0] + plane;
      Row<2>(g, pk, fb0, oh, xn, Hp, Wp, relu, out);
    } else {
      Row<1>(g, pk, fb0, oh, xn, Hp, Wp, relu, out);
    }
  }
  Storage::Get()->Free(pad);
}

}  // namespace op
}  // namespace mxnet
