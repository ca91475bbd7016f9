#if MXNET_USE_OPENCV
#include "io/iter_image_recordio_normalize.h"

#include <cmath>
#include <cstdint>

#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace io {

ImageNormalizer::ImageNormalizer(const NormalizeConfig& config) : c_(config) {
  MX_CHECK(c_.dtype == kFloat32 || c_.dtype == kUint8 || c_.dtype == kInt8)
      << "image batches are float32, uint8 or int8, not " << DTypeName(c_.dtype);
  if (c_.mean_img) {
    MX_CHECK(c_.mean_img->size() == static_cast<size_t>(c_.channels) * c_.height * c_.width)
        << "the mean image has " << c_.mean_img->size() << " values, expected " << c_.channels << "x" << c_.height
        << "x" << c_.width;
  }
}

namespace {
// out[k][y][x] = f(k, y, x, pixel value), reading column (mirror ? w-1-x : x) of img.
template <typename T, typename F>
void ForEachOutput(const cv::Mat& img, int channels, bool mirror, T* out, F f) {
  const int h = img.rows, w = img.cols;
  for (int k = 0; k < channels; ++k) {
    const int sk = ImageNormalizer::SourceChannel(k, channels);
    for (int y = 0; y < h; ++y) {
      const uint8_t* row = img.ptr<uint8_t>(y) + sk;
      T* dst = out + (static_cast<size_t>(k) * h + y) * w;
      if (mirror) {
        for (int x = 0; x < w; ++x) dst[x] = f(k, y, x, row[(w - 1 - x) * channels]);
      } else {
        for (int x = 0; x < w; ++x) dst[x] = f(k, y, x, row[x * channels]);
      }
    }
  }
}
}  // namespace

void ImageNormalizer::Write(const cv::Mat& img, std::mt19937* rng, void* out) const {
  MX_CHECK(img.depth() == CV_8U && img.channels() == c_.channels && img.rows == c_.height && img.cols == c_.width)
      << "normaliser expects a " << c_.height << "x" << c_.width << " 8-bit image with " << c_.channels
      << " channels, got " << img.rows << "x" << img.cols << " with " << img.channels();
  const bool mirror = c_.mirror || (c_.rand_mirror && std::bernoulli_distribution(0.5)(*rng));
  const int n = c_.channels;
  if (c_.dtype == kUint8) {
    ForEachOutput(img, n, mirror, static_cast<uint8_t*>(out), [](int, int, int, uint8_t v) { return v; });
    return;
  }
  if (c_.dtype == kInt8) {
    int mean[4];
    for (int k = 0; k < 4; ++k) mean[k] = static_cast<int>(std::lround(c_.mean[k]));
    ForEachOutput(img, n, mirror, static_cast<int8_t*>(out),
                  [&](int k, int, int, uint8_t v) { return cv::saturate_cast<int8_t>(static_cast<int>(v) - mean[k]); });
    return;
  }
  float contrast = c_.scale, illumination = 0.0f;
  if (c_.max_random_contrast > 0)
    contrast *= 1.0f + std::uniform_real_distribution<float>(-c_.max_random_contrast, c_.max_random_contrast)(*rng);
  if (c_.max_random_illumination > 0)
    illumination = c_.scale * std::uniform_real_distribution<float>(-c_.max_random_illumination,
                                                                    c_.max_random_illumination)(*rng);
  float mul[4], add[4];
  for (int k = 0; k < 4; ++k) {
    mul[k] = contrast / c_.std[k];
    add[k] = illumination / c_.std[k];
  }
  float* dst = static_cast<float*>(out);
  if (c_.mean_img) {
    const float* mimg = c_.mean_img->data();
    const int h = c_.height, w = c_.width;
    ForEachOutput(img, n, mirror, dst, [&](int k, int y, int x, uint8_t v) {
      return (static_cast<float>(v) - mimg[(static_cast<size_t>(k) * h + y) * w + x]) * mul[k] + add[k];
    });
  } else {
    ForEachOutput(img, n, mirror, dst,
                  [&](int k, int, int, uint8_t v) { return (static_cast<float>(v) - c_.mean[k]) * mul[k] + add[k]; });
  }
}

void ImageNormalizer::Accumulate(const cv::Mat& img, double* acc) {
  MX_CHECK(img.depth() == CV_8U) << "the mean image is accumulated from 8-bit images";
  const int n = img.channels(), h = img.rows, w = img.cols;
  for (int k = 0; k < n; ++k) {
    const int sk = SourceChannel(k, n);
    for (int y = 0; y < h; ++y) {
      const uint8_t* row = img.ptr<uint8_t>(y) + sk;
      double* dst = acc + (static_cast<size_t>(k) * h + y) * w;
      for (int x = 0; x < w; ++x) dst[x] += row[x * n];
    }
  }
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
