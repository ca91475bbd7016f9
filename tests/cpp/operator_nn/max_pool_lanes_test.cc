// MaxPool2DForward and MaxPool2DBackward on every storage they take (plain NCHW, nChw8c,
// nChw16c, NHWC with C under 8, a multiple of 8 or not) and every window arrangement (tiled,
// uncovered edge, clipped ceil-mode windows, overlapping padded windows, stride 1, a 5x5 window
// sized at run time, windows wholly in the padding), against a reference on plain NCHW data
// written out here. Values are small integers, so windows hold many ties (first maximum wins).
#include "operator/nn/max_pool_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace mxnet {
namespace op {
namespace {

struct Case {
  int64_t N, C, H, W, k, s, p;
  bool full;  // ceil mode
};

int64_t OutSize(int64_t n, int64_t k, int64_t s, int64_t p, bool full) {
  const int64_t span = n + 2 * p - k;
  return (full ? (span + s - 1) / s : span / s) + 1;
}

/*!
 * \brief Plain NCHW reference: y gets each window's maximum (the lowest float for a window with
 *        no input), dx each window's gradient at its first (row-major) maximum.
 */
void Reference(const Case& c, int64_t OH, int64_t OW, const std::vector<float>& x, const std::vector<float>& dy,
               std::vector<float>* y, std::vector<float>* dx_out) {
  std::vector<float>& dx = *dx_out;
  dx.assign(x.size(), 0.f);
  y->assign(dy.size(), std::numeric_limits<float>::lowest());
  for (int64_t nc = 0; nc < c.N * c.C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t best = -1;
        for (int64_t h = oh * c.s - c.p; h < oh * c.s - c.p + c.k; ++h)
          for (int64_t w = ow * c.s - c.p; w < ow * c.s - c.p + c.k; ++w) {
            if (h < 0 || h >= c.H || w < 0 || w >= c.W) continue;
            const int64_t at = (nc * c.H + h) * c.W + w;
            if (best < 0 || x[at] > x[best]) best = at;
          }
        if (best < 0) continue;
        dx[best] += dy[(nc * OH + oh) * OW + ow];
        (*y)[(nc * OH + oh) * OW + ow] = x[best];
      }
}

/*! \brief Offset of (n, c, h, w) in [N][Cb][H][W][B] storage (B = C, Cb = 1: NHWC). */
int64_t At(int64_t Cb, int64_t B, int64_t H, int64_t W, int64_t n, int64_t c, int64_t h, int64_t w) {
  return (((n * Cb + c / B) * H + h) * W + w) * B + c % B;
}

void Check(const Case& c, int64_t B) {
  const bool nhwc = B == 0;
  const int64_t lanes = nhwc ? c.C : B, Cb = nhwc ? 1 : (c.C + B - 1) / B;
  const int64_t OH = OutSize(c.H, c.k, c.s, c.p, c.full), OW = OutSize(c.W, c.k, c.s, c.p, c.full);
  std::mt19937 gen(static_cast<unsigned>(c.C * 131 + c.H * 7 + B));
  std::uniform_int_distribution<int> small(-2, 2);
  std::vector<float> x(c.N * c.C * c.H * c.W), dy(c.N * c.C * OH * OW);
  for (auto& v : x) v = static_cast<float>(small(gen));
  for (auto& v : dy) v = static_cast<float>(small(gen)) + 0.25f;
  std::vector<float> want_y, want;
  Reference(c, OH, OW, x, dy, &want_y, &want);
  // Blocked copies; padded channels hold zeros (as oneDNN keeps them), and must come back zero.
  std::vector<float> bx(c.N * Cb * c.H * c.W * lanes, 0.f), bdy(c.N * Cb * OH * OW * lanes, 0.f);
  std::vector<float> bdx(bx.size(), 123.f);  // garbage: the kernels must write every element
  std::vector<float> by(bdy.size(), 123.f);
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ch = 0; ch < c.C; ++ch) {
      for (int64_t h = 0; h < c.H; ++h)
        for (int64_t w = 0; w < c.W; ++w)
          bx[At(Cb, lanes, c.H, c.W, n, ch, h, w)] = x[((n * c.C + ch) * c.H + h) * c.W + w];
      for (int64_t h = 0; h < OH; ++h)
        for (int64_t w = 0; w < OW; ++w)
          bdy[At(Cb, lanes, OH, OW, n, ch, h, w)] = dy[((n * c.C + ch) * OH + h) * OW + w];
    }
  MaxPool2DGeom g;
  g.N = c.N;
  g.Cb = Cb;
  g.B = lanes;
  g.H = c.H;
  g.W = c.W;
  g.OH = OH;
  g.OW = OW;
  g.kh = g.kw = c.k;
  g.sh = g.sw = c.s;
  g.ph = g.pw = c.p;
  MaxPool2DForward(g, bx.data(), by.data());
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ch = 0; ch < Cb * lanes; ++ch)
      for (int64_t h = 0; h < OH; ++h)
        for (int64_t w = 0; w < OW; ++w) {
          const float got = by[At(Cb, lanes, OH, OW, n, ch, h, w)];
          // padded channels hold zeros in x, so their maximum is 0 (or the lowest float)
          const float exp = ch < c.C ? want_y[((n * c.C + ch) * OH + h) * OW + w]
                                     : (want_y[(n * c.C * OH + h) * OW + w] == std::numeric_limits<float>::lowest()
                                            ? std::numeric_limits<float>::lowest()
                                            : 0.f);
          ASSERT_EQ(got, exp) << "forward B=" << B << " C=" << c.C << " " << c.H << "x" << c.W << " k" << c.k << " s"
                              << c.s << " p" << c.p << (c.full ? " full" : "") << " at n" << n << " c" << ch << " oh"
                              << h << " ow" << w;
        }
  MaxPool2DBackward(g, bx.data(), bdy.data(), bdx.data());
  for (int64_t n = 0; n < c.N; ++n)
    for (int64_t ch = 0; ch < Cb * lanes; ++ch)
      for (int64_t h = 0; h < c.H; ++h)
        for (int64_t w = 0; w < c.W; ++w) {
          const float got = bdx[At(Cb, lanes, c.H, c.W, n, ch, h, w)];
          const float exp = ch < c.C ? want[((n * c.C + ch) * c.H + h) * c.W + w] : 0.f;
          ASSERT_EQ(got, exp) << "B=" << B << " C=" << c.C << " " << c.H << "x" << c.W << " k" << c.k << " s" << c.s
                              << " p" << c.p << (c.full ? " full" : "") << " at n" << n << " c" << ch << " h" << h
                              << " w" << w;
        }
}

TEST(MaxPool2DLanes, EveryLayoutAndWindowArrangementMatchesThePlainReference) {
  const std::vector<Case> cases = {
      {2, 20, 8, 8, 2, 2, 0, false},    // LeNet-like: tiled
      {2, 20, 9, 7, 2, 2, 0, false},    // last row/column in no window
      {2, 20, 9, 7, 2, 2, 0, true},     // ceil mode: clipped windows
      {1, 36, 11, 11, 3, 2, 1, false},  // ResNet stem: overlapping, padded
      {1, 16, 6, 6, 3, 1, 0, false},    // stride 1
      {1, 3, 5, 5, 2, 2, 0, false},     // fewer channels than a block
      {2, 50, 8, 8, 2, 2, 0, false},    // LeNet's second pool: 50 lanes, a partial vector
      {1, 24, 9, 9, 3, 1, 1, false},    // Inception's 3x3/1 pad 1
      {1, 12, 9, 11, 5, 2, 2, true},    // a window size the kernels take at run time
      {1, 8, 3, 3, 2, 3, 2, true},      // windows wholly in the padding
  };
  for (const Case& c : cases)
    for (int64_t B : {1, 8, 16, 0}) Check(c, B);
}

TEST(MaxPool2DLanes, RejectsAnEmptyChannelBlocking) {
  MaxPool2DGeom g{};
  g.N = 1;
  g.B = 0;
  g.Cb = 1;
  EXPECT_ANY_THROW(MaxPool2DForward(g, nullptr, nullptr));
  EXPECT_ANY_THROW(MaxPool2DBackward(g, nullptr, nullptr, nullptr));
}

}  // namespace
}  // namespace op
}  // namespace mxnet
