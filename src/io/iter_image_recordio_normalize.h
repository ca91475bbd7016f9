/*!
 * \file iter_image_recordio_normalize.h
 * \brief The last step per image: mirror, BGR(A) -> RGB(A), HWC -> CHW, and the dtype's
 *        normalisation, written straight into the image's slot of the batch array.
 *        float32: (p - mean_c) * C / std_c + I / std_c, C = (1 + U(+-max_random_contrast)) * scale,
 *                 I = U(+-max_random_illumination) * scale; mean_c is the per-pixel mean image
 *                 when one is given;
 *        uint8:   p;
 *        int8:    saturate(p - round(mean_c)).
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_NORMALIZE_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_NORMALIZE_H_

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

#include <memory>
#include <random>
#include <vector>

namespace mxnet {
namespace io {

struct NormalizeConfig {
  int dtype = 0;  // kFloat32, kUint8 or kInt8
  int channels = 3, height = 0, width = 0;
  bool mirror = false, rand_mirror = false;
  float mean[4] = {0, 0, 0, 0};  // R, G, B, A (gray uses mean[0])
  float std[4] = {1, 1, 1, 1};
  float scale = 1.0f, max_random_contrast = 0.0f, max_random_illumination = 0.0f;
  std::shared_ptr<const std::vector<float>> mean_img;  // (channels, height, width) RGB; float32 only
};

class ImageNormalizer {
 public:
  explicit ImageNormalizer(const NormalizeConfig& config);
  /*!
   * \brief img: height x width, 8-bit, `channels` channels in OpenCV order. Writes
   *        channels*height*width elements of the dtype at out. Draws from rng in a fixed order
   *        (mirror coin, contrast, illumination), each only when its parameter is set.
   */
  void Write(const cv::Mat& img, std::mt19937* rng, void* out) const;
  /*! \brief Adds the image as CHW RGB(A) values to acc (channels*height*width), unmirrored. */
  static void Accumulate(const cv::Mat& img, double* acc);
  /*! \brief Channel of an OpenCV-ordered image that output channel k reads (BGR -> RGB). */
  static int SourceChannel(int k, int channels) { return channels >= 3 && k < 3 ? 2 - k : k; }

 private:
  NormalizeConfig c_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_NORMALIZE_H_
