// The colour half of the default augmenter. Images are 8-bit BGR, BGRA or gray; every step
// rounds and saturates back to 8 bits, and leaves an alpha channel alone.
#if MXNET_USE_OPENCV
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "io/image_aug.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {
// BT.601 luma weights in BGR order, as OpenCV's BGR2GRAY.
constexpr float kGrayB = 0.114f, kGrayG = 0.587f, kGrayR = 0.299f;

void CheckEightBit(const cv::Mat& img) {
  MX_CHECK(img.depth() == CV_8U && img.channels() >= 1 && img.channels() <= 4)
      << "colour augmentation needs an 8-bit image with 1-4 channels";
}

// Applies f(pixel pointer) to every pixel.
template <typename F>
void ForEachPixel(cv::Mat* img, F f) {
  const int c = img->channels();
  for (int y = 0; y < img->rows; ++y) {
    uint8_t* row = img->ptr<uint8_t>(y);
    for (int x = 0; x < img->cols; ++x) f(row + x * c);
  }
}

float Gray(const uint8_t* p) { return kGrayB * p[0] + kGrayG * p[1] + kGrayR * p[2]; }
}  // namespace

void AdjustBrightness(cv::Mat* img, float alpha) {
  CheckEightBit(*img);
  const int n = std::min(img->channels(), 3);
  ForEachPixel(img, [&](uint8_t* p) {
    for (int k = 0; k < n; ++k) p[k] = cv::saturate_cast<uint8_t>(p[k] * alpha);
  });
}

void AdjustContrast(cv::Mat* img, float alpha) {
  CheckEightBit(*img);
  const int n = std::min(img->channels(), 3);
  if (img->rows == 0 || img->cols == 0) return;
  double sum = 0.0;
  ForEachPixel(img, [&](uint8_t* p) { sum += n == 3 ? Gray(p) : p[0]; });
  const float offset = static_cast<float>(sum / (static_cast<double>(img->rows) * img->cols)) * (1.0f - alpha);
  ForEachPixel(img, [&](uint8_t* p) {
    for (int k = 0; k < n; ++k) p[k] = cv::saturate_cast<uint8_t>(p[k] * alpha + offset);
  });
}

void AdjustSaturation(cv::Mat* img, float alpha) {
  CheckEightBit(*img);
  if (img->channels() < 3) return;
  ForEachPixel(img, [&](uint8_t* p) {
    const float offset = Gray(p) * (1.0f - alpha);
    for (int k = 0; k < 3; ++k) p[k] = cv::saturate_cast<uint8_t>(p[k] * alpha + offset);
  });
}

void JitterHLS(cv::Mat* img, int dh, int ds, int dl) {
  CheckEightBit(*img);
  if (img->channels() < 3 || (dh == 0 && ds == 0 && dl == 0)) return;
  cv::Mat bgr, hls;
  if (img->channels() == 4) {
    cv::cvtColor(*img, bgr, cv::COLOR_BGRA2BGR);
  } else {
    bgr = *img;
  }
  cv::cvtColor(bgr, hls, cv::COLOR_BGR2HLS);
  ForEachPixel(&hls, [&](uint8_t* p) {
    // 8-bit hue is degrees / 2, in [0, 180): it wraps around; lightness and saturation clamp.
    p[0] = static_cast<uint8_t>(((p[0] + dh) % 180 + 180) % 180);
    p[1] = cv::saturate_cast<uint8_t>(p[1] + dl);
    p[2] = cv::saturate_cast<uint8_t>(p[2] + ds);
  });
  cv::cvtColor(hls, bgr, cv::COLOR_HLS2BGR);
  // Write back channel by channel so an alpha channel and a cropped view's parent stay intact.
  for (int y = 0; y < img->rows; ++y) {
    uint8_t* dst = img->ptr<uint8_t>(y);
    const uint8_t* src = bgr.ptr<uint8_t>(y);
    const int c = img->channels();
    for (int x = 0; x < img->cols; ++x)
      for (int k = 0; k < 3; ++k) dst[x * c + k] = src[x * 3 + k];
  }
}

void AddPcaLighting(cv::Mat* img, const float alpha[3]) {
  CheckEightBit(*img);
  if (img->channels() < 3) return;
  // Eigen-decomposition of the RGB covariance of ImageNet pixels (AlexNet's lighting noise).
  static const float kEigval[3] = {55.46f, 4.794f, 1.148f};
  static const float kEigvec[3][3] = {{-0.5675f, 0.7192f, 0.4009f},
                                      {-0.5808f, -0.0045f, -0.8140f},
                                      {-0.5836f, -0.6948f, 0.4203f}};
  float rgb[3];
  for (int i = 0; i < 3; ++i) {
    rgb[i] = 0.0f;
    for (int j = 0; j < 3; ++j) rgb[i] += kEigvec[i][j] * alpha[j] * kEigval[j];
  }
  const float bgr[3] = {rgb[2], rgb[1], rgb[0]};
  ForEachPixel(img, [&](uint8_t* p) {
    for (int k = 0; k < 3; ++k) p[k] = cv::saturate_cast<uint8_t>(p[k] + bgr[k]);
  });
}

void ImageAugmenter::Color(cv::Mat* img, std::mt19937* rng) const {
  auto jitter = [&](float range) { return 1.0f + std::uniform_real_distribution<float>(-range, range)(*rng); };
  if (p_.brightness > 0 || p_.contrast > 0 || p_.saturation > 0) {
    // The three jitters in a random order (each is applied only when its range is set).
    std::array<int, 3> order = {0, 1, 2};
    std::shuffle(order.begin(), order.end(), *rng);
    for (int step : order) {
      if (step == 0 && p_.brightness > 0) AdjustBrightness(img, jitter(p_.brightness));
      if (step == 1 && p_.contrast > 0) AdjustContrast(img, jitter(p_.contrast));
      if (step == 2 && p_.saturation > 0) AdjustSaturation(img, jitter(p_.saturation));
    }
  }
  if (p_.random_h > 0 || p_.random_s > 0 || p_.random_l > 0) {
    auto shift = [&](int range) { return range > 0 ? std::uniform_int_distribution<int>(-range, range)(*rng) : 0; };
    const int dh = shift(p_.random_h), ds = shift(p_.random_s), dl = shift(p_.random_l);
    JitterHLS(img, dh, ds, dl);
  }
  if (p_.pca_noise > 0) {
    std::normal_distribution<float> normal(0.0f, p_.pca_noise);
    const float alpha[3] = {normal(*rng), normal(*rng), normal(*rng)};
    AddPcaLighting(img, alpha);
  }
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
