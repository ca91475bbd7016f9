/*!
 * \file image_aug_param.h
 * \brief Parameters of the default image augmenter and of the normaliser (MXNet 1.x names
 *        and defaults), and their cross-field validation.
 */
#ifndef MXNET_IO_IMAGE_AUG_PARAM_H_
#define MXNET_IO_IMAGE_AUG_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <string>

namespace mxnet {
namespace io {

/*! \brief Geometry and colour augmentation, applied to the decoded HWC image. */
struct ImageAugParam : public dmlc::Parameter<ImageAugParam> {
  int resize;
  bool rand_crop, random_resized_crop;
  int max_rotate_angle, rotate;
  float max_aspect_ratio;
  dmlc::optional<float> min_aspect_ratio;
  float max_shear_ratio;
  int max_crop_size, min_crop_size;
  float max_random_scale, min_random_scale, max_random_area, min_random_area;
  float max_img_size, min_img_size;
  float brightness, contrast, saturation, pca_noise;
  int random_h, random_s, random_l;
  int fill_value, pad, inter_method;
  DMLC_DECLARE_PARAMETER(ImageAugParam) {
    DMLC_DECLARE_FIELD(resize).set_default(-1).describe("Resize the shorter side to this size first; -1: off.");
    DMLC_DECLARE_FIELD(rand_crop).set_default(false).describe("Crop at a random position instead of the centre.");
    DMLC_DECLARE_FIELD(random_resized_crop).set_default(false)
        .describe("Crop a random area (min/max_random_area) of random aspect ratio, resized to data_shape.");
    DMLC_DECLARE_FIELD(max_rotate_angle).set_default(0).set_lower_bound(0)
        .describe("Rotate by a random angle in [-max, max] degrees.");
    DMLC_DECLARE_FIELD(rotate).set_default(-1).describe("Rotate by this angle in degrees; -1: off.");
    DMLC_DECLARE_FIELD(max_aspect_ratio).set_default(0.0f).set_lower_bound(0.0f)
        .describe("Largest aspect-ratio change (affine) or largest crop aspect ratio (random_resized_crop).");
    DMLC_DECLARE_FIELD(min_aspect_ratio).set_default(dmlc::optional<float>())
        .describe("Smallest aspect ratio; None: 1 - max_aspect_ratio.");
    DMLC_DECLARE_FIELD(max_shear_ratio).set_default(0.0f).set_lower_bound(0.0f)
        .describe("Shear by a random ratio in [-max, max].");
    DMLC_DECLARE_FIELD(max_crop_size).set_default(-1).describe("Largest square crop side; -1: off.");
    DMLC_DECLARE_FIELD(min_crop_size).set_default(-1).describe("Smallest square crop side; -1: off.");
    DMLC_DECLARE_FIELD(max_random_scale).set_default(1.0f).set_lower_bound(0.0f).describe("Largest random scale.");
    DMLC_DECLARE_FIELD(min_random_scale).set_default(1.0f).set_lower_bound(0.0f).describe("Smallest random scale.");
    DMLC_DECLARE_FIELD(max_random_area).set_default(1.0f).set_range(0.0f, 1.0f)
        .describe("Largest crop area fraction (random_resized_crop).");
    DMLC_DECLARE_FIELD(min_random_area).set_default(1.0f).set_range(0.0f, 1.0f)
        .describe("Smallest crop area fraction (random_resized_crop).");
    DMLC_DECLARE_FIELD(max_img_size).set_default(1e10f).set_lower_bound(0.0f)
        .describe("Largest side after the affine warp.");
    DMLC_DECLARE_FIELD(min_img_size).set_default(0.0f).set_lower_bound(0.0f)
        .describe("Smallest side after the affine warp.");
    DMLC_DECLARE_FIELD(brightness).set_default(0.0f).set_lower_bound(0.0f).describe("Brightness jitter.");
    DMLC_DECLARE_FIELD(contrast).set_default(0.0f).set_lower_bound(0.0f).describe("Contrast jitter.");
    DMLC_DECLARE_FIELD(saturation).set_default(0.0f).set_lower_bound(0.0f).describe("Saturation jitter.");
    DMLC_DECLARE_FIELD(pca_noise).set_default(0.0f).set_lower_bound(0.0f).describe("Std of PCA lighting noise.");
    DMLC_DECLARE_FIELD(random_h).set_default(0).set_range(0, 180).describe("Largest hue shift (HLS, 0-180).");
    DMLC_DECLARE_FIELD(random_s).set_default(0).set_range(0, 255).describe("Largest saturation shift (HLS).");
    DMLC_DECLARE_FIELD(random_l).set_default(0).set_range(0, 255).describe("Largest lightness shift (HLS).");
    DMLC_DECLARE_FIELD(fill_value).set_default(255).set_range(0, 255)
        .describe("Pixel value of borders created by the affine warp and by pad.");
    DMLC_DECLARE_FIELD(pad).set_default(0).set_lower_bound(0).describe("Border added on every side.");
    DMLC_DECLARE_FIELD(inter_method).set_default(1)
        .describe("Interpolation: 0 nearest, 1 linear, 2 cubic, 3 area, 4 lanczos4, 9 auto, 10 random.");
  }
};

/*! \brief Mirror and per-channel normalisation (float32 output; int8 uses the means). */
struct ImageNormalizeParam : public dmlc::Parameter<ImageNormalizeParam> {
  bool mirror, rand_mirror;
  std::string mean_img;
  float mean_r, mean_g, mean_b, mean_a;
  float std_r, std_g, std_b, std_a;
  float scale, max_random_contrast, max_random_illumination;
  DMLC_DECLARE_PARAMETER(ImageNormalizeParam) {
    DMLC_DECLARE_FIELD(mirror).set_default(false).describe("Flip every image horizontally.");
    DMLC_DECLARE_FIELD(rand_mirror).set_default(false).describe("Flip each image horizontally with probability 0.5.");
    DMLC_DECLARE_FIELD(mean_img).set_default("")
        .describe("File of the per-pixel mean image; computed over the data and saved when missing.");
    DMLC_DECLARE_FIELD(mean_r).set_default(0.0f).describe("Mean of the red channel.");
    DMLC_DECLARE_FIELD(mean_g).set_default(0.0f).describe("Mean of the green channel.");
    DMLC_DECLARE_FIELD(mean_b).set_default(0.0f).describe("Mean of the blue channel.");
    DMLC_DECLARE_FIELD(mean_a).set_default(0.0f).describe("Mean of the alpha channel.");
    DMLC_DECLARE_FIELD(std_r).set_default(1.0f).describe("Standard deviation of the red channel.");
    DMLC_DECLARE_FIELD(std_g).set_default(1.0f).describe("Standard deviation of the green channel.");
    DMLC_DECLARE_FIELD(std_b).set_default(1.0f).describe("Standard deviation of the blue channel.");
    DMLC_DECLARE_FIELD(std_a).set_default(1.0f).describe("Standard deviation of the alpha channel.");
    DMLC_DECLARE_FIELD(scale).set_default(1.0f).describe("Multiplies the mean-subtracted pixels.");
    DMLC_DECLARE_FIELD(max_random_contrast).set_default(0.0f).set_lower_bound(0.0f)
        .describe("Random contrast factor in [-max, max] added to 1.");
    DMLC_DECLARE_FIELD(max_random_illumination).set_default(0.0f).set_lower_bound(0.0f)
        .describe("Random illumination offset in [-max, max].");
  }
};

/*! \brief Mirror only: what the uint8/int8 iterators keep of the normalisation params. */
struct ImageMirrorParam : public dmlc::Parameter<ImageMirrorParam> {
  bool mirror, rand_mirror;
  DMLC_DECLARE_PARAMETER(ImageMirrorParam) {
    DMLC_DECLARE_FIELD(mirror).set_default(false).describe("Flip every image horizontally.");
    DMLC_DECLARE_FIELD(rand_mirror).set_default(false).describe("Flip each image horizontally with probability 0.5.");
  }
};

/*! \brief Throws ValueError naming the parameter when fields disagree (ranges across fields). */
void ValidateImageAugParam(const ImageAugParam& p, const char* iter_name);
void ValidateImageNormalizeParam(const ImageNormalizeParam& p, const char* iter_name);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_IMAGE_AUG_PARAM_H_
