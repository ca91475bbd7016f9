// dmlc::optional fields: GCC flags optional<T>::swap inside dmlc::Parameter parsing as
// maybe-uninitialized, a false positive of dmlc/optional.h reported where parsing is instantiated.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "io/image_aug_param.h"

#include "mxnet/error.h"

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(ImageAugParam);
DMLC_REGISTER_PARAMETER(ImageNormalizeParam);
DMLC_REGISTER_PARAMETER(ImageMirrorParam);

void ValidateImageAugParam(const ImageAugParam& p, const char* iter_name) {
// The iterator's name first, as every parameter error of the data iterators reads.
#define MX_AUG_FAIL() MX_THROW("ValueError") << iter_name << ": "
  if (p.min_random_scale > p.max_random_scale)
    MX_AUG_FAIL() << "min_random_scale (" << p.min_random_scale << ") is larger than max_random_scale ("
           << p.max_random_scale << ")";
  if (p.min_random_area > p.max_random_area)
    MX_AUG_FAIL() << "min_random_area (" << p.min_random_area << ") is larger than max_random_area (" << p.max_random_area
           << ")";
  if (p.random_resized_crop && p.min_random_area <= 0.0f)
    MX_AUG_FAIL() << "min_random_area must be > 0 with random_resized_crop, got " << p.min_random_area;
  if (p.min_img_size > p.max_img_size)
    MX_AUG_FAIL() << "min_img_size (" << p.min_img_size << ") is larger than max_img_size (" << p.max_img_size << ")";
  if (p.min_aspect_ratio.has_value()) {
    if (p.min_aspect_ratio.value() <= 0.0f)
      MX_AUG_FAIL() << "min_aspect_ratio must be > 0, got " << p.min_aspect_ratio.value();
    if (p.min_aspect_ratio.value() > p.max_aspect_ratio)
      MX_AUG_FAIL() << "min_aspect_ratio (" << p.min_aspect_ratio.value() << ") is larger than max_aspect_ratio ("
             << p.max_aspect_ratio << ")";
  }
  if (p.max_crop_size != -1 && p.max_crop_size < 1)
    MX_AUG_FAIL() << "max_crop_size must be -1 (off) or >= 1, got " << p.max_crop_size;
  if (p.min_crop_size != -1 && p.min_crop_size < 1)
    MX_AUG_FAIL() << "min_crop_size must be -1 (off) or >= 1, got " << p.min_crop_size;
  if (p.max_crop_size != -1 && p.min_crop_size != -1 && p.min_crop_size > p.max_crop_size)
    MX_AUG_FAIL() << "min_crop_size (" << p.min_crop_size << ") is larger than max_crop_size (" << p.max_crop_size << ")";
  if (p.random_resized_crop && (p.max_crop_size != -1 || p.min_crop_size != -1))
    MX_AUG_FAIL() << "random_resized_crop cannot be combined with min_crop_size/max_crop_size";
  const int m = p.inter_method;
  if (!((m >= 0 && m <= 4) || m == 9 || m == 10))
    MX_AUG_FAIL() << "inter_method must be 0 (nearest), 1 (linear), 2 (cubic), 3 (area), 4 (lanczos4), 9 (auto) or "
              "10 (random), got "
           << m;
#undef MX_AUG_FAIL
}

void ValidateImageNormalizeParam(const ImageNormalizeParam& p, const char* iter_name) {
  const float stds[4] = {p.std_r, p.std_g, p.std_b, p.std_a};
  const char* names[4] = {"std_r", "std_g", "std_b", "std_a"};
  for (int i = 0; i < 4; ++i) {
    MX_CHECK_KIND(stds[i] != 0.0f, "ValueError") << iter_name << ": " << names[i] << " must not be 0";
  }
}

}  // namespace io
}  // namespace mxnet
