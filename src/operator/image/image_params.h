/*!
 * \file image_params.h
 * \brief Parameters of the `_image_*` operators, shared by their CPU kernels (to_tensor.cc,
 *        color_ops.cc, resize_crop.cc) and CUDA kernels (cuda/image_ops.cu, cuda/image_color.cu).
 *        Each .cc file registers the parameters of its operators (DMLC_REGISTER_PARAMETER).
 */
#ifndef MXNET_OPERATOR_IMAGE_IMAGE_PARAMS_H_
#define MXNET_OPERATOR_IMAGE_IMAGE_PARAMS_H_

#include <dmlc/parameter.h>

#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/image/float_list.h"

namespace mxnet {
namespace op {
namespace image {

struct NormalizeParam : public dmlc::Parameter<NormalizeParam> {
  FloatList mean, std;
  DMLC_DECLARE_PARAMETER(NormalizeParam) {
    FloatList zero, one;
    zero.v = {0.f};
    one.v = {1.f};
    DMLC_DECLARE_FIELD(mean).set_default(zero).describe(
        "Mean of each channel (one value for all channels, or one per channel).");
    DMLC_DECLARE_FIELD(std).set_default(one).describe(
        "Standard deviation of each channel (one value, or one per channel).");
  }
};

/*! \brief _image_normalize's mean and std expanded to one value per channel; checks the counts. */
inline void ChannelStats(const NodeAttrs& attrs, int64_t channels, std::vector<float>* mean,
                         std::vector<float>* stdv) {
  const NormalizeParam& p = attrs.get<NormalizeParam>();
  auto expand = [&](const std::vector<float>& v, const char* what, std::vector<float>* outv) {
    MX_CHECK_KIND(v.size() == 1 || static_cast<int64_t>(v.size()) == channels, "ValueError")
        << attrs.op->name << ": " << what << " has " << v.size() << " values for " << channels
        << " channels (give 1 or " << channels << ")";
    outv->resize(channels);
    for (int64_t c = 0; c < channels; ++c) (*outv)[c] = v.size() == 1 ? v[0] : v[c];
  };
  expand(p.mean.v, "mean", mean);
  expand(p.std.v, "std", stdv);
  for (float s : *stdv) MX_CHECK_KIND(s != 0.f, "ValueError") << attrs.op->name << ": std must not be 0";
}

/*! \brief Whether _image_random_flip_* mirrors image n: probability 1/2 from the image's random element. */
inline bool RandomFlipOf(const RandomStream& rs, int64_t n) { return rs.ForElement(n).UniformF() < 0.5f; }

struct FactorRangeParam : public dmlc::Parameter<FactorRangeParam> {
  float min_factor, max_factor;
  DMLC_DECLARE_PARAMETER(FactorRangeParam) {
    DMLC_DECLARE_FIELD(min_factor).set_lower_bound(0.f).describe("Smallest factor.");
    DMLC_DECLARE_FIELD(max_factor).set_lower_bound(0.f).describe("Largest factor.");
  }
};

struct ColorJitterParam : public dmlc::Parameter<ColorJitterParam> {
  float brightness, contrast, saturation, hue;
  DMLC_DECLARE_PARAMETER(ColorJitterParam) {
    DMLC_DECLARE_FIELD(brightness).set_default(0.f).set_lower_bound(0.f).describe("Brightness jitter b: factor in [max(0, 1-b), 1+b].");
    DMLC_DECLARE_FIELD(contrast).set_default(0.f).set_lower_bound(0.f).describe("Contrast jitter, as brightness.");
    DMLC_DECLARE_FIELD(saturation).set_default(0.f).set_lower_bound(0.f).describe("Saturation jitter, as brightness.");
    DMLC_DECLARE_FIELD(hue).set_default(0.f).set_lower_bound(0.f).describe("Hue jitter h: rotation by up to h turns either way.");
  }
};

struct AdjustLightingParam : public dmlc::Parameter<AdjustLightingParam> {
  FloatList alpha;
  DMLC_DECLARE_PARAMETER(AdjustLightingParam) {
    DMLC_DECLARE_FIELD(alpha).describe("Weights of the three principal components of RGB pixel colour.");
  }
};

struct RandomLightingParam : public dmlc::Parameter<RandomLightingParam> {
  float alpha_std;
  DMLC_DECLARE_PARAMETER(RandomLightingParam) {
    DMLC_DECLARE_FIELD(alpha_std).set_default(0.05f).set_lower_bound(0.f).describe(
        "Standard deviation of the normal weights of the principal components.");
  }
};

struct ResizeParam : public dmlc::Parameter<ResizeParam> {
  TShape size;
  bool keep_ratio;
  int interp;
  DMLC_DECLARE_PARAMETER(ResizeParam) {
    DMLC_DECLARE_FIELD(size).set_default(TShape()).describe(
        "Output size: w or (w, h). A single value with keep_ratio scales the shorter side to it.");
    DMLC_DECLARE_FIELD(keep_ratio).set_default(false).describe(
        "With a single size, keep the aspect ratio (shorter side = size).");
    DMLC_DECLARE_FIELD(interp).set_default(1).describe(
        "Interpolation: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos (2-4 need OpenCV).");
  }
};

struct CropParam : public dmlc::Parameter<CropParam> {
  int x, y, width, height;
  DMLC_DECLARE_PARAMETER(CropParam) {
    DMLC_DECLARE_FIELD(x).set_lower_bound(0).describe("Left column of the window.");
    DMLC_DECLARE_FIELD(y).set_lower_bound(0).describe("Top row of the window.");
    DMLC_DECLARE_FIELD(width).set_lower_bound(1).describe("Window width.");
    DMLC_DECLARE_FIELD(height).set_lower_bound(1).describe("Window height.");
  }
};

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_IMAGE_PARAMS_H_
