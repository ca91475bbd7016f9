/*!
 * \file color_math.h
 * \brief The colour transforms of the `_image_random_*` / `_image_*_lighting` operators, shared
 *        by their CPU kernels (color_ops.cc) and CUDA kernels (cuda/image_color.cu):
 *        - a ColorPlan: the steps one image goes through (kind and factor each), drawn on the
 *          host from the image's element of the op's random stream, in the draw order of
 *          MXNet 1.x's kernels;
 *        - the per-pixel math of each step (MXNET_XINLINE: host and device). Every step but
 *          contrast works pixel by pixel; contrast adds a shift made from the image's mean gray
 *          level (ContrastShift) as it stands before that step.
 *        Pixels are floats on a 0-255 scale; the output is SaturateTrunc'ed to the dtype.
 */
#ifndef MXNET_OPERATOR_IMAGE_COLOR_MATH_H_
#define MXNET_OPERATOR_IMAGE_COLOR_MATH_H_

#include <math.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/xinline.h"
#include "operator/image/image_params.h"

namespace mxnet {
namespace op {
namespace image {

// ITU-R BT.601 luma weights of R, G, B.
constexpr float kLumaR = 0.299f, kLumaG = 0.587f, kLumaB = 0.114f;

/*! \brief The gray level of an RGB pixel. */
MXNET_XINLINE float GrayOf(const float* px) { return kLumaR * px[0] + kLumaG * px[1] + kLumaB * px[2]; }

/*! \brief What contrast factor alpha adds to each value, given the gray levels' sum over count pixels. */
MXNET_XINLINE float ContrastShift(double gray_sum, int64_t count, float alpha) {
  return static_cast<float>(gray_sum / (count > 1 ? count : int64_t{1})) * (1 - alpha);
}

/*! \brief Blends an RGB pixel with its gray level: px * alpha + gray * (1 - alpha). */
MXNET_XINLINE void SaturatePixel(float* px, float alpha) {
  const float gray = GrayOf(px) * (1 - alpha);
  for (int k = 0; k < 3; ++k) px[k] = px[k] * alpha + gray;
}

MXNET_XINLINE float HlsChannel(float m1, float m2, float h) {
  h -= floorf(h);
  if (h < 1.f / 6) return m1 + (m2 - m1) * h * 6;
  if (h < 0.5f) return m2;
  if (h < 2.f / 3) return m1 + (m2 - m1) * (2.f / 3 - h) * 6;
  return m1;
}

/*! \brief Rotates an RGB pixel's hue by `turns` in HLS space (a whole number of turns: no change). */
MXNET_XINLINE void HuePixel(float* px, float turns) {
  if (turns - floorf(turns) == 0.f) return;
  const float r = px[0] / 255, g = px[1] / 255, b = px[2] / 255;
  // Largest and smallest as std::max_element / std::min_element pick them (the first on ties).
  float mx = r, mn = r;
  if (mx < g) mx = g;
  if (mx < b) mx = b;
  if (g < mn) mn = g;
  if (b < mn) mn = b;
  if (mx == mn) return;  // gray: no hue
  const float l = (mx + mn) / 2, range = mx - mn;
  const float s = l <= 0.5f ? range / (mx + mn) : range / (2 - mx - mn);
  float h;
  if (r == mx) {
    h = (g - b) / range;
  } else if (g == mx) {
    h = 2 + (b - r) / range;
  } else {
    h = 4 + (r - g) / range;
  }
  h = h / 6 + turns;
  const float m2 = l <= 0.5f ? l * (1 + s) : l + s - l * s, m1 = 2 * l - m2;
  px[0] = HlsChannel(m1, m2, h + 1.f / 3) * 255;
  px[1] = HlsChannel(m1, m2, h) * 255;
  px[2] = HlsChannel(m1, m2, h - 1.f / 3) * 255;
}

/*! \brief A transformed value stored in DType: integers saturated, then truncated (as MXNet 1.x). */
template <typename DType>
MXNET_XINLINE DType SaturateTrunc(float v) {
  if (std::is_integral<DType>::value) {
    v = std::min<float>(std::max<float>(v, float(std::numeric_limits<DType>::lowest())),
                        float(std::numeric_limits<DType>::max()));
  }
  return static_cast<DType>(v);
}

enum ColorStepKind : int { kBrightnessStep, kContrastStep, kSaturationStep, kHueStep, kLightingStep };

/*! \brief The steps one image goes through, in order (at most one of each kind). */
struct ColorPlan {
  int steps{0};
  int kind[4]{};
  float factor[4]{};
  float light[3]{};  // kLightingStep: the RGB shift
  void Add(int k, float f) {
    kind[steps] = k;
    factor[steps] = f;
    ++steps;
  }
  /*! \brief The position of the contrast step, or -1. */
  MXNET_XINLINE int ContrastAt() const {
    for (int s = 0; s < steps; ++s)
      if (kind[s] == kContrastStep) return s;
    return -1;
  }
};

/*!
 * \brief Step s of plan on one pixel of `width` values (brightness: any width; the others: RGB);
 *        contrast_shift is the ContrastShift of the image as it stands before a contrast step.
 */
MXNET_XINLINE void ApplyColorStep(const ColorPlan& plan, int s, float* px, int64_t width, float contrast_shift) {
  const float f = plan.factor[s];
  switch (plan.kind[s]) {
    case kBrightnessStep:
      for (int64_t k = 0; k < width; ++k) px[k] *= f;
      break;
    case kContrastStep:
      for (int64_t k = 0; k < width; ++k) px[k] = px[k] * f + contrast_shift;
      break;
    case kSaturationStep: SaturatePixel(px, f); break;
    case kHueStep: HuePixel(px, f); break;
    default:
      for (int k = 0; k < 3; ++k) px[k] += plan.light[k];
  }
}

// ---- Plans (host): each draws from the image's random element as MXNet 1.x's kernel does ----

inline float UniformIn(RandomStream::Element* e, float lo, float hi) { return lo + (hi - lo) * e->UniformF(); }

/*! \brief _image_random_{brightness,contrast,saturation,hue}: one factor in [min_factor, max_factor]. */
template <int kKind>
ColorPlan PlanRandomFactor(const NodeAttrs& attrs, RandomStream::Element* e) {
  const FactorRangeParam& p = attrs.get<FactorRangeParam>();
  MX_CHECK_KIND(p.min_factor <= p.max_factor, "ValueError")
      << attrs.op->name << ": min_factor " << p.min_factor << " is larger than max_factor " << p.max_factor;
  ColorPlan plan;
  // Hue factors f rotate by f turns, so the range [1-h, 1+h] of gluon's RandomHue is +-h turns.
  plan.Add(kKind, UniformIn(e, p.min_factor, p.max_factor));
  return plan;
}

/*! \brief _image_random_color_jitter: a random order of the four changes, then their factors. */
inline ColorPlan PlanColorJitter(const NodeAttrs& attrs, RandomStream::Element* e) {
  const ColorJitterParam& prm = attrs.get<ColorJitterParam>();
  int order[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) std::swap(order[i], order[e->NextU32() % (i + 1)]);
  ColorPlan plan;
  for (int k : order) {
    if (k == 0 && prm.brightness > 0)
      plan.Add(kBrightnessStep, UniformIn(e, std::max(0.f, 1 - prm.brightness), 1 + prm.brightness));
    if (k == 1 && prm.contrast > 0)
      plan.Add(kContrastStep, UniformIn(e, std::max(0.f, 1 - prm.contrast), 1 + prm.contrast));
    if (k == 2 && prm.saturation > 0)
      plan.Add(kSaturationStep, UniformIn(e, std::max(0.f, 1 - prm.saturation), 1 + prm.saturation));
    if (k == 3 && prm.hue > 0) plan.Add(kHueStep, UniformIn(e, -prm.hue, prm.hue));
  }
  return plan;
}

/*! \brief Adds the alpha-weighted ImageNet RGB principal components (AlexNet's "PCA lighting"). */
inline ColorPlan PlanLighting(const float alpha[3]) {
  // Eigenvector j is column j.
  constexpr float kEigVal[3] = {55.46f, 4.794f, 1.148f};
  constexpr float kEigVec[3][3] = {
      {-0.5675f, 0.7192f, 0.4009f}, {-0.5808f, -0.0045f, -0.8140f}, {-0.5836f, -0.6948f, 0.4203f}};
  ColorPlan plan;
  plan.Add(kLightingStep, 0.f);
  for (int c = 0; c < 3; ++c)
    plan.light[c] = kEigVec[c][0] * alpha[0] * kEigVal[0] + kEigVec[c][1] * alpha[1] * kEigVal[1] +
                    kEigVec[c][2] * alpha[2] * kEigVal[2];
  return plan;
}

/*! \brief _image_adjust_lighting: the same plan for every image. */
inline ColorPlan PlanAdjustLighting(const NodeAttrs& attrs) {
  const FloatList& a = attrs.get<AdjustLightingParam>().alpha;
  MX_CHECK_KIND(a.v.size() == 3, "ValueError")
      << attrs.op->name << ": alpha needs 3 values (one per principal component), got " << a;
  return PlanLighting(a.v.data());
}

/*! \brief _image_random_lighting: weights drawn from N(0, alpha_std). */
inline ColorPlan PlanRandomLighting(const NodeAttrs& attrs, RandomStream::Element* e) {
  const float std_dev = attrs.get<RandomLightingParam>().alpha_std;
  const float alpha[3] = {float(e->Normal() * std_dev), float(e->Normal() * std_dev), float(e->Normal() * std_dev)};
  return PlanLighting(alpha);
}

/*! \brief How an op makes the plan of image n (e: the image's random element, unused by adjust_lighting). */
using ColorPlanner = ColorPlan (*)(const NodeAttrs& attrs, RandomStream::Element* e);

/*! \brief The plans of n images from the op's random stream (none: one shared plan, adjust_lighting). */
inline std::vector<ColorPlan> ColorPlans(const NodeAttrs& attrs, const OpContext& ctx, int64_t n, ColorPlanner planner) {
  const bool random = !ctx.requested.empty() && ctx.requested[0].type == ResourceRequest::kRandom;
  std::vector<ColorPlan> plans(n);
  for (int64_t i = 0; i < n; ++i) {
    RandomStream::Element e = random ? ctx.requested[0].random.ForElement(i) : RandomStream().ForElement(i);
    plans[i] = planner(attrs, &e);
  }
  return plans;
}

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_COLOR_MATH_H_
