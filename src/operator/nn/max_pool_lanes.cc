/*!
 * \file max_pool_lanes.cc
 * \brief 2-D float32 max pooling over lane-stored data (max_pool_lanes.h). The lanes of one
 *        position are contiguous, so a window is a few vector loads and compares; the code is
 *        written with vector types because -O2 leaves the equivalent lane loops scalar.
 */
#include "operator/nn/max_pool_lanes.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "mxnet/error.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

/*! \brief V lanes as one vector (V = 8: one AVX2 register; V = 1: a scalar tail). */
template <int V>
struct LaneVec {
  typedef float F __attribute__((vector_size(V * sizeof(float))));
  typedef int32_t I __attribute__((vector_size(V * sizeof(int32_t))));
  static F Load(const float* p) {
    F v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(float* p, F v) { std::memcpy(p, &v, sizeof(v)); }
};

constexpr int kVector = 8;

/*! \brief The input rows [h0, h1) and columns [w0, w1) of output (oh, ow), clipped to x. */
struct Window {
  int64_t h0, h1, w0, w1;
  Window(const MaxPool2DGeom& g, int64_t oh, int64_t ow) {
    const int64_t hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
    h0 = std::max<int64_t>(hs, 0);
    h1 = std::min(hs + g.kh, g.H);
    w0 = std::max<int64_t>(ws, 0);
    w1 = std::min(ws + g.kw, g.W);
  }
  bool Empty() const { return h0 >= h1 || w0 >= w1; }
};

/*!
 * \brief Calls fn(std::integral_constant<int, V>, l0) for lane groups covering [0, L): vectors
 *        of 8, then the rest either as one vector ending at L (overlapping lanes already done,
 *        for writes that give those lanes the same values again) or lane by lane.
 */
template <typename Fn>
void ForEachLaneGroup(int64_t L, bool may_overlap, Fn&& fn) {
  int64_t l0 = 0;
  for (; l0 + kVector <= L; l0 += kVector) fn(std::integral_constant<int, kVector>(), l0);
  if (l0 == L) return;
  if (may_overlap && L >= kVector) return fn(std::integral_constant<int, kVector>(), L - kVector);
  for (; l0 < L; ++l0) fn(std::integral_constant<int, 1>(), l0);
}

/*!
 * \brief The window loops of one plane ([H][W][L]) at lanes [l0, l0 + V) for a KH x KW window
 *        (0: the geometry's, at run time). The geometry is a by-value copy so that stores through
 *        the float pointers cannot make the compiler reload it. A window wholly inside x runs
 *        fixed-size loops at fixed offsets; clipped windows (padding, a partial last window) take
 *        the general path.
 */
template <int V, int KH, int KW>
struct PlaneLoops {
  using Vec = LaneVec<V>;
  using F = typename Vec::F;
  using I = typename Vec::I;

  const MaxPool2DGeom g;
  const int64_t L, l0, kh, kw;

  PlaneLoops(const MaxPool2DGeom& geom, int64_t l0_)
      : g(geom), L(geom.B), l0(l0_), kh(KH ? KH : geom.kh), kw(KW ? KW : geom.kw) {}

  bool Inside(int64_t oh, int64_t ow) const {
    const int64_t hs = oh * g.sh - g.ph, ws = ow * g.sw - g.pw;
    return hs >= 0 && ws >= 0 && hs + kh <= g.H && ws + kw <= g.W;
  }
  const float* Corner(const float* x, int64_t oh, int64_t ow) const {
    return x + ((oh * g.sh - g.ph) * g.W + ow * g.sw - g.pw) * L + l0;
  }

  /*! \brief Maximum and, per lane, the row-major index within the window of the first element
   *         holding it (strict compare: a later equal value, or a NaN after the first element,
   *         does not move it). Window wholly inside x. */
  void ArgMaxInside(const float* corner, F* best, I* at) const {
    F m = Vec::Load(corner);
    I a{};
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j) {
        const F v = Vec::Load(corner + (i * g.W + j) * L);
        const I more = v > m;
        m = more ? v : m;
        a = more ? I{} + static_cast<int32_t>(i * kw + j) : a;
      }
    *best = m;
    *at = a;
  }
  /*! \brief The same over a clipped window; indices count the window's positions inside x. */
  void ArgMaxClipped(const float* x, const Window& w, F* best, I* at) const {
    F m = Vec::Load(x + (w.h0 * g.W + w.w0) * L + l0);
    I a{};
    int32_t k = 0;
    for (int64_t h = w.h0; h < w.h1; ++h)
      for (int64_t c = w.w0; c < w.w1; ++c, ++k) {
        const F v = Vec::Load(x + (h * g.W + c) * L + l0);
        const I more = v > m;
        m = more ? v : m;
        a = more ? I{} + k : a;
      }
    *best = m;
    *at = a;
  }

  void ForwardRow(const float* x, float* y, int64_t oh) const {
    for (int64_t ow = 0; ow < g.OW; ++ow) {
      F m{};
      if (Inside(oh, ow)) {
        const float* corner = Corner(x, oh, ow);
        m = Vec::Load(corner);
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            const F v = Vec::Load(corner + (i * g.W + j) * L);
            m = v > m ? v : m;
          }
      } else {
        const Window w(g, oh, ow);
        m += std::numeric_limits<float>::lowest();
        if (!w.Empty()) {
          I at;
          ArgMaxClipped(x, w, &m, &at);
        }
      }
      Vec::Store(y + (oh * g.OW + ow) * L + l0, m);
    }
  }

  /*!
   * \brief Window (oh, ow)'s gradient into dx: stored (kAccumulate false: windows that tile x,
   *        each writing its inputs once) or added (overlapping or padded windows, dx zeroed).
   */
  template <bool kAccumulate>
  void BackwardWindow(const float* x, const float* dy, float* dx, int64_t oh, int64_t ow) const {
    auto put = [](float* p, F v) { Vec::Store(p, kAccumulate ? Vec::Load(p) + v : v); };
    const F gy = Vec::Load(dy + (oh * g.OW + ow) * L + l0);
    F best;
    I at;
    if (Inside(oh, ow)) {
      ArgMaxInside(Corner(x, oh, ow), &best, &at);
      float* corner = dx + (Corner(x, oh, ow) - x);
      for (int64_t i = 0; i < kh; ++i)
        for (int64_t j = 0; j < kw; ++j)
          put(corner + (i * g.W + j) * L, at == static_cast<int32_t>(i * kw + j) ? gy : F{});
      return;
    }
    const Window w(g, oh, ow);
    if (w.Empty()) return;  // a window wholly in the padding has no input
    ArgMaxClipped(x, w, &best, &at);
    int32_t k = 0;
    for (int64_t h = w.h0; h < w.h1; ++h)
      for (int64_t c = w.w0; c < w.w1; ++c, ++k) put(dx + (h * g.W + c) * L + l0, at == k ? gy : F{});
  }

  /*! \brief Windows that tile x: output row oh (rows write disjoint parts of dx). */
  void BackwardTiledRow(const float* x, const float* dy, float* dx, int64_t oh) const {
    for (int64_t ow = 0; ow < g.OW; ++ow) BackwardWindow<false>(x, dy, dx, oh, ow);
  }

  /*! \brief Overlapping or padded windows: the whole plane, dx zeroed first by the caller. */
  void BackwardAccumulate(const float* x, const float* dy, float* dx) const {
    for (int64_t oh = 0; oh < g.OH; ++oh)
      for (int64_t ow = 0; ow < g.OW; ++ow) BackwardWindow<true>(x, dy, dx, oh, ow);
  }
};

/*!
 * \brief fn(loops) with the PlaneLoops of lanes [l0, l0 + V), sized at compile time for the
 *        common 2x2 and 3x3 windows.
 */
template <int V, typename Fn>
void WithLoops(const MaxPool2DGeom& g, int64_t l0, Fn&& fn) {
  if (g.kh == 2 && g.kw == 2) return fn(PlaneLoops<V, 2, 2>(g, l0));
  if (g.kh == 3 && g.kw == 3) return fn(PlaneLoops<V, 3, 3>(g, l0));
  fn(PlaneLoops<V, 0, 0>(g, l0));
}

void CheckGeom(const MaxPool2DGeom& g, const char* what) {
  MX_CHECK_KIND(g.B >= 1 && g.Cb >= 1, "ValueError")
      << "max-pooling " << what << ": bad channel blocking " << g.Cb << " x " << g.B;
}

/*! \brief fn(i) for i in [0, n) units of work, in parallel when the pass touches `elements`. */
template <typename Fn>
void ForUnits(int64_t n, int64_t elements, Fn&& fn) {
  if (UseParallel(elements)) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) fn(i);
  } else {
    for (int64_t i = 0; i < n; ++i) fn(i);
  }
}

}  // namespace

void MaxPool2DForward(const MaxPool2DGeom& g, const float* x, float* y) {
  CheckGeom(g, "forward");
  const int64_t L = g.B, in_plane = g.H * g.W * L, out_plane = g.OH * g.OW * L;
  // One unit per output row of a plane: batch-1 NHWC has a single plane.
  ForUnits(g.N * g.Cb * g.OH, g.N * g.Cb * in_plane, [&](int64_t i) {
    const int64_t plane = i / g.OH, oh = i % g.OH;
    ForEachLaneGroup(L, true, [&](auto v, int64_t l0) {
      WithLoops<decltype(v)::value>(
          g, l0, [&](const auto& loops) { loops.ForwardRow(x + plane * in_plane, y + plane * out_plane, oh); });
    });
  });
}

void MaxPool2DBackward(const MaxPool2DGeom& g, const float* x, const float* dy, float* dx) {
  CheckGeom(g, "backward");
  // Windows partition the input when they neither overlap nor leave rows/columns uncovered.
  const bool tiled = g.sh == g.kh && g.sw == g.kw && g.ph == 0 && g.pw == 0 && g.OH * g.kh >= g.H && g.OW * g.kw >= g.W;
  const int64_t L = g.B, in_plane = g.H * g.W * L, out_plane = g.OH * g.OW * L;
  const int64_t planes = g.N * g.Cb;
  if (tiled) {
    // Output rows write disjoint input rows, so they are independent units.
    return ForUnits(planes * g.OH, planes * in_plane, [&](int64_t i) {
      const int64_t plane = i / g.OH, oh = i % g.OH;
      ForEachLaneGroup(L, true, [&](auto v, int64_t l0) {
        WithLoops<decltype(v)::value>(g, l0, [&](const auto& loops) {
          loops.BackwardTiledRow(x + plane * in_plane, dy + plane * out_plane, dx + plane * in_plane, oh);
        });
      });
    });
  }
  ForUnits(planes, planes * in_plane, [&](int64_t plane) {
    float* dxp = dx + plane * in_plane;
    std::fill(dxp, dxp + in_plane, 0.f);
    ForEachLaneGroup(L, false, [&](auto v, int64_t l0) {
      WithLoops<decltype(v)::value>(g, l0, [&](const auto& loops) {
        loops.BackwardAccumulate(x + plane * in_plane, dy + plane * out_plane, dxp);
      });
    });
  });
}

}  // namespace op
}  // namespace mxnet
