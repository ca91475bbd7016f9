/*!
 * \file image_aug.h
 * \brief The default image augmenter of ImageRecordIter: geometry (resize, affine warp,
 *        pad, crop; image_aug_geometry.cc) then colour (brightness/contrast/saturation,
 *        HLS jitter, PCA lighting; image_aug_color.cc). Works on decoded HWC uint8 images
 *        in OpenCV's channel order (BGR / BGRA / gray). Every random draw comes from the
 *        caller's generator, so one generator per image makes the result independent of
 *        which thread ran it.
 */
#ifndef MXNET_IO_IMAGE_AUG_H_
#define MXNET_IO_IMAGE_AUG_H_

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

#include <random>

#include "io/image_aug_param.h"

namespace mxnet {
namespace io {

// ---- geometry steps (exposed for unit tests) ----

/*! \brief Resizes so the shorter side is `size` (the longer side: long*size/short, floored). */
cv::Mat ResizeShortSide(const cv::Mat& src, int size, int inter_method, std::mt19937* rng);
/*!
 * \brief Resizes (keeping the aspect ratio, sides floored) so that the image covers h x w;
 *        returns src itself when it already does.
 */
cv::Mat UpscaleToCover(const cv::Mat& src, int h, int w, int inter_method, std::mt19937* rng);
/*! \brief The (h, w) window at (y, x); a view, not a copy. */
cv::Mat CropWindow(const cv::Mat& src, int y, int x, int h, int w);
/*!
 * \brief The affine warp around the image centre: scale x by sx and y by sy, shear, then rotate
 *        by angle_deg counter-clockwise; onto an out_h x out_w canvas whose centre the source
 *        centre maps to (uncovered pixels: fill_value).
 */
cv::Mat AffineWarp(const cv::Mat& src, float angle_deg, float shear, float sx, float sy, int out_h, int out_w,
                   int fill_value, int interpolation);

// ---- colour steps (in place on 8-bit images; only the first three channels of BGRA) ----

/*! \brief p * alpha. */
void AdjustBrightness(cv::Mat* img, float alpha);
/*! \brief p * alpha + mean(gray) * (1 - alpha). */
void AdjustContrast(cv::Mat* img, float alpha);
/*! \brief p * alpha + gray(p) * (1 - alpha); no-op for gray images. */
void AdjustSaturation(cv::Mat* img, float alpha);
/*! \brief Adds dh, ds, dl to H (wrapping in 0-179), S and L (clamped); no-op for gray images. */
void JitterHLS(cv::Mat* img, int dh, int ds, int dl);
/*! \brief Adds eigvec * (alpha .* eigval) of ImageNet's RGB covariance; no-op for gray images. */
void AddPcaLighting(cv::Mat* img, const float alpha[3]);

/*! \brief The whole default augmentation for one output shape. Thread-safe (const). */
class ImageAugmenter {
 public:
  ImageAugmenter(const ImageAugParam& param, int out_h, int out_w);
  /*! \brief An image of exactly out_h x out_w with src's channels. */
  cv::Mat Process(const cv::Mat& src, std::mt19937* rng) const;

 private:
  cv::Mat Geometry(const cv::Mat& src, std::mt19937* rng) const;
  cv::Mat Crop(const cv::Mat& src, std::mt19937* rng) const;
  cv::Mat RandomResizedCrop(const cv::Mat& src, std::mt19937* rng) const;
  void Color(cv::Mat* img, std::mt19937* rng) const;

  ImageAugParam p_;
  int out_h_, out_w_;
  float aspect_lo_, aspect_hi_;  // range of the aspect ratio draws
  bool affine_;                  // whether any affine parameter is active
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
#endif  // MXNET_IO_IMAGE_AUG_H_
