/*!
 * \file color_ops.cc
 * \brief Colour transforms of HWC RGB images / NHWC batches (values on a 0-255 scale), the
 *        operators behind gluon's RandomBrightness ... RandomLighting transforms:
 *        `_image_random_brightness`, `_image_random_contrast`, `_image_random_saturation`,
 *        `_image_random_hue`, `_image_random_color_jitter`, `_image_adjust_lighting` and
 *        `_image_random_lighting`. Each image of a batch draws its own factors from the seeded
 *        random stream. Integer outputs are saturated, then truncated, as MXNet 1.x does.
 */
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/image/float_list.h"
#include "operator/image/image_layout.h"

namespace mxnet {
namespace op {
namespace image {

struct FactorRangeParam : public dmlc::Parameter<FactorRangeParam> {
  float min_factor, max_factor;
  DMLC_DECLARE_PARAMETER(FactorRangeParam) {
    DMLC_DECLARE_FIELD(min_factor).set_lower_bound(0.f).describe("Smallest factor.");
    DMLC_DECLARE_FIELD(max_factor).set_lower_bound(0.f).describe("Largest factor.");
  }
};
DMLC_REGISTER_PARAMETER(FactorRangeParam);

struct ColorJitterParam : public dmlc::Parameter<ColorJitterParam> {
  float brightness, contrast, saturation, hue;
  DMLC_DECLARE_PARAMETER(ColorJitterParam) {
    DMLC_DECLARE_FIELD(brightness).set_default(0.f).set_lower_bound(0.f).describe("Brightness jitter b: factor in [max(0, 1-b), 1+b].");
    DMLC_DECLARE_FIELD(contrast).set_default(0.f).set_lower_bound(0.f).describe("Contrast jitter, as brightness.");
    DMLC_DECLARE_FIELD(saturation).set_default(0.f).set_lower_bound(0.f).describe("Saturation jitter, as brightness.");
    DMLC_DECLARE_FIELD(hue).set_default(0.f).set_lower_bound(0.f).describe("Hue jitter h: rotation by up to h turns either way.");
  }
};
DMLC_REGISTER_PARAMETER(ColorJitterParam);

struct AdjustLightingParam : public dmlc::Parameter<AdjustLightingParam> {
  FloatList alpha;
  DMLC_DECLARE_PARAMETER(AdjustLightingParam) {
    DMLC_DECLARE_FIELD(alpha).describe("Weights of the three principal components of RGB pixel colour.");
  }
};
DMLC_REGISTER_PARAMETER(AdjustLightingParam);

struct RandomLightingParam : public dmlc::Parameter<RandomLightingParam> {
  float alpha_std;
  DMLC_DECLARE_PARAMETER(RandomLightingParam) {
    DMLC_DECLARE_FIELD(alpha_std).set_default(0.05f).set_lower_bound(0.f).describe(
        "Standard deviation of the normal weights of the principal components.");
  }
};
DMLC_REGISTER_PARAMETER(RandomLightingParam);

namespace {

// ImageNet's RGB principal components (AlexNet's "PCA lighting"): eigenvector j is column j.
constexpr float kEigVal[3] = {55.46f, 4.794f, 1.148f};
constexpr float kEigVec[3][3] = {{-0.5675f, 0.7192f, 0.4009f}, {-0.5808f, -0.0045f, -0.8140f}, {-0.5836f, -0.6948f, 0.4203f}};
constexpr float kLuma[3] = {0.299f, 0.587f, 0.114f};

/*! \brief One image as floats, h*w pixels of c channels. */
struct Pixels {
  std::vector<float> v;
  int64_t count{0}, c{0};
};

void Brightness(Pixels* p, float alpha) {
  for (float& x : p->v) x *= alpha;
}

void Contrast(Pixels* p, float alpha) {
  double sum = 0;
  for (int64_t i = 0; i < p->count; ++i) {
    const float* px = &p->v[i * 3];
    sum += kLuma[0] * px[0] + kLuma[1] * px[1] + kLuma[2] * px[2];
  }
  const float shift = static_cast<float>(sum / std::max<int64_t>(1, p->count)) * (1 - alpha);
  for (float& x : p->v) x = x * alpha + shift;
}

void Saturation(Pixels* p, float alpha) {
  for (int64_t i = 0; i < p->count; ++i) {
    float* px = &p->v[i * 3];
    const float gray = (kLuma[0] * px[0] + kLuma[1] * px[1] + kLuma[2] * px[2]) * (1 - alpha);
    for (int k = 0; k < 3; ++k) px[k] = px[k] * alpha + gray;
  }
}

float HlsChannel(float m1, float m2, float h) {
  h -= std::floor(h);
  if (h < 1.f / 6) return m1 + (m2 - m1) * h * 6;
  if (h < 0.5f) return m2;
  if (h < 2.f / 3) return m1 + (m2 - m1) * (2.f / 3 - h) * 6;
  return m1;
}

/*! \brief Rotates each pixel's hue by `turns` in HLS space (values on a 0-255 scale). */
void Hue(Pixels* p, float turns) {
  if (turns - std::floor(turns) == 0.f) return;
  for (int64_t i = 0; i < p->count; ++i) {
    float* px = &p->v[i * 3];
    const float r = px[0] / 255, g = px[1] / 255, b = px[2] / 255;
    const float mx = std::max({r, g, b}), mn = std::min({r, g, b});
    if (mx == mn) continue;  // gray: no hue
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
}

void Lighting(Pixels* p, const float alpha[3]) {
  float shift[3];
  for (int c = 0; c < 3; ++c)
    shift[c] = kEigVec[c][0] * alpha[0] * kEigVal[0] + kEigVec[c][1] * alpha[1] * kEigVal[1] +
               kEigVec[c][2] * alpha[2] * kEigVal[2];
  for (int64_t i = 0; i < p->count; ++i)
    for (int c = 0; c < 3; ++c) p->v[i * 3 + c] += shift[c];
}

template <typename DType>
DType SaturateTrunc(float v) {
  if (std::is_integral<DType>::value) {
    v = std::min<float>(std::max<float>(v, float(std::numeric_limits<DType>::lowest())),
                        float(std::numeric_limits<DType>::max()));
  }
  return static_cast<DType>(v);
}

/*! \brief Runs fn(&pixels, random element of image n, n) on each image of the input. */
template <typename Fn>
void ForEachImage(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out, Fn fn) {
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  const int64_t size = d.h * d.w * d.c;
  const bool random = !ctx.requested.empty();
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(d.n, [&](int64_t n) {
      Pixels p;
      p.count = d.h * d.w;
      p.c = d.c;
      p.v.resize(size);
      for (int64_t i = 0; i < size; ++i) p.v[i] = static_cast<float>(x[n * size + i]);
      RandomStream::Element e = random ? ctx.requested[0].random.ForElement(n) : RandomStream().ForElement(n);
      fn(&p, &e);
      for (int64_t i = 0; i < size; ++i) AssignReq(&y[n * size + i], req[0], SaturateTrunc<DType>(p.v[i]));
    });
  });
}

float Uniform(RandomStream::Element* e, float lo, float hi) { return lo + (hi - lo) * e->UniformF(); }

float FactorOf(const NodeAttrs& attrs, RandomStream::Element* e) {
  const FactorRangeParam& p = attrs.get<FactorRangeParam>();
  MX_CHECK_KIND(p.min_factor <= p.max_factor, "ValueError")
      << attrs.op->name << ": min_factor " << p.min_factor << " is larger than max_factor " << p.max_factor;
  return Uniform(e, p.min_factor, p.max_factor);
}

template <void (*Apply)(Pixels*, float)>
void RandomFactorCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ForEachImage(attrs, ctx, in, req, out, [&](Pixels* p, RandomStream::Element* e) { Apply(p, FactorOf(attrs, e)); });
}

// Hue factors f rotate by f turns, so the range [1-h, 1+h] of gluon's RandomHue is +-h turns.
void HueFactor(Pixels* p, float factor) { Hue(p, factor); }

void ColorJitterCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ColorJitterParam& prm = attrs.get<ColorJitterParam>();
  ForEachImage(attrs, ctx, in, req, out, [&](Pixels* p, RandomStream::Element* e) {
    int order[4] = {0, 1, 2, 3};
    for (int i = 3; i > 0; --i) std::swap(order[i], order[e->NextU32() % (i + 1)]);
    for (int k : order) {
      if (k == 0 && prm.brightness > 0) Brightness(p, Uniform(e, std::max(0.f, 1 - prm.brightness), 1 + prm.brightness));
      if (k == 1 && prm.contrast > 0) Contrast(p, Uniform(e, std::max(0.f, 1 - prm.contrast), 1 + prm.contrast));
      if (k == 2 && prm.saturation > 0) Saturation(p, Uniform(e, std::max(0.f, 1 - prm.saturation), 1 + prm.saturation));
      if (k == 3 && prm.hue > 0) Hue(p, Uniform(e, -prm.hue, prm.hue));
    }
  });
}

void AdjustLightingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const FloatList& a = attrs.get<AdjustLightingParam>().alpha;
  MX_CHECK_KIND(a.v.size() == 3, "ValueError")
      << attrs.op->name << ": alpha needs 3 values (one per principal component), got " << a;
  ForEachImage(attrs, ctx, in, req, out, [&](Pixels* p, RandomStream::Element*) { Lighting(p, a.v.data()); });
}

void RandomLightingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const float std_dev = attrs.get<RandomLightingParam>().alpha_std;
  ForEachImage(attrs, ctx, in, req, out, [&](Pixels* p, RandomStream::Element* e) {
    const float alpha[3] = {float(e->Normal() * std_dev), float(e->Normal() * std_dev), float(e->Normal() * std_dev)};
    Lighting(p, alpha);
  });
}

template <bool kNeedsRGB>
bool ColorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const ImageDims d = ChannelsLast(attrs, (*in)[0]);
  MX_CHECK_KIND(!kNeedsRGB || d.c == 3, "ValueError")
      << attrs.op->name << ": expects RGB images (3 channels last), got shape " << (*in)[0];
  AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
  return true;
}

template <typename Param, bool kNeedsRGB>
Op& ColorFamily(Op& op, const char* doc, FCompute fn, bool random) {
  op.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Image (H, W, C) or batch (N, H, W, C), RGB, 0-255 scale.")
      .add_arguments(Param::__FIELDS__())
      .set_attr_parser(ParamParser<Param>)
      .set_infer_shape(ColorShape<kNeedsRGB>)
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, fn);  // augmentation: no gradient
  if (random) op.set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom});
  return op;
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP_FAMILY(_image_random_brightness, ColorFamily<FactorRangeParam, false>,
                             "Multiplies each image by a factor drawn from [min_factor, max_factor].",
                             RandomFactorCompute<Brightness>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_contrast, ColorFamily<FactorRangeParam, true>,
                             "Blends each image with its mean gray level: x*f + mean_gray*(1-f), f drawn "
                             "from [min_factor, max_factor].",
                             RandomFactorCompute<Contrast>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_saturation, ColorFamily<FactorRangeParam, true>,
                             "Blends each pixel with its gray level (0.299 R + 0.587 G + 0.114 B): "
                             "x*f + gray*(1-f), f drawn from [min_factor, max_factor].",
                             RandomFactorCompute<Saturation>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_hue, ColorFamily<FactorRangeParam, true>,
                             "Rotates the hue (HLS) of each image by f turns, f drawn from "
                             "[min_factor, max_factor] (1 = a full turn, no change).",
                             RandomFactorCompute<HueFactor>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_color_jitter, ColorFamily<ColorJitterParam, true>,
                             "Random brightness, contrast, saturation and hue changes, applied in a "
                             "random order per image (a zero amount skips that change).",
                             ColorJitterCompute, true);
    MXNET_REGISTER_OP_FAMILY(_image_adjust_lighting, ColorFamily<AdjustLightingParam, true>,
                             "Adds alpha-weighted ImageNet RGB principal components (AlexNet-style "
                             "lighting).",
                             AdjustLightingCompute, false);
    MXNET_REGISTER_OP_FAMILY(_image_random_lighting, ColorFamily<RandomLightingParam, true>,
                             "adjust_lighting with weights drawn from N(0, alpha_std) per image.",
                             RandomLightingCompute, true);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace image
}  // namespace op
}  // namespace mxnet
