// The geometric half of the default augmenter: resize, affine warp, pad and crop.
#if MXNET_USE_OPENCV
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include "io/image_aug.h"
#include "io/image_codec.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {
float UniformF(std::mt19937* rng, float lo, float hi) {
  if (!(hi > lo)) return lo;
  return std::uniform_real_distribution<float>(lo, hi)(*rng);
}
int UniformI(std::mt19937* rng, int lo, int hi) {
  if (hi <= lo) return lo;
  return std::uniform_int_distribution<int>(lo, hi)(*rng);
}
cv::Mat Resize(const cv::Mat& src, int w, int h, int inter_method, std::mt19937* rng) {
  if (w == src.cols && h == src.rows) return src;
  cv::Mat out;
  cv::resize(src, out, cv::Size(w, h), 0, 0, InterpolationFlag(inter_method, src.cols, src.rows, w, h, rng));
  return out;
}
}  // namespace

cv::Mat ResizeShortSide(const cv::Mat& src, int size, int inter_method, std::mt19937* rng) {
  // Integer arithmetic, so the long side is floored exactly as MXNet's iterator does.
  int w, h;
  if (src.rows > src.cols) {
    w = size;
    h = static_cast<int>(static_cast<int64_t>(src.rows) * size / src.cols);
  } else {
    h = size;
    w = static_cast<int>(static_cast<int64_t>(src.cols) * size / src.rows);
  }
  return Resize(src, std::max(w, 1), std::max(h, 1), inter_method, rng);
}

cv::Mat UpscaleToCover(const cv::Mat& src, int h, int w, int inter_method, std::mt19937* rng) {
  if (src.rows >= h && src.cols >= w) return src;
  // The side that needs the larger factor reaches its target exactly; the other is floored,
  // which still covers its target (cols*h >= w*rows implies floor(cols*h/rows) >= w).
  int nw, nh;
  if (static_cast<int64_t>(h) * src.cols >= static_cast<int64_t>(w) * src.rows) {
    nh = h;
    nw = static_cast<int>(static_cast<int64_t>(src.cols) * h / src.rows);
  } else {
    nw = w;
    nh = static_cast<int>(static_cast<int64_t>(src.rows) * w / src.cols);
  }
  return Resize(src, nw, nh, inter_method, rng);
}

cv::Mat CropWindow(const cv::Mat& src, int y, int x, int h, int w) {
  MX_CHECK(y >= 0 && x >= 0 && h > 0 && w > 0 && y + h <= src.rows && x + w <= src.cols)
      << "crop window (" << y << ", " << x << ", " << h << ", " << w << ") outside a " << src.rows << "x"
      << src.cols << " image";
  return src(cv::Rect(x, y, w, h));
}

cv::Mat AffineWarp(const cv::Mat& src, float angle_deg, float shear, float sx, float sy, int out_h, int out_w,
                   int fill_value, int interpolation) {
  // Forward map d = A (s - c_src) + c_dst with A = R(angle) * [[1, shear], [0, 1]] * diag(sx, sy),
  // R = [[cos, sin], [-sin, cos]]: with y pointing down, a positive angle turns the picture
  // counter-clockwise (as MXNet's rotate does). warpAffine inverts A itself.
  const double t = angle_deg * M_PI / 180.0;
  const double c = std::cos(t), s = std::sin(t);
  const double a00 = c * sx, a01 = (c * shear + s) * sy;
  const double a10 = -s * sx, a11 = (c - s * shear) * sy;
  const double cx = (src.cols - 1) * 0.5, cy = (src.rows - 1) * 0.5;
  const double dx = (out_w - 1) * 0.5, dy = (out_h - 1) * 0.5;
  cv::Mat m = (cv::Mat_<double>(2, 3) << a00, a01, dx - (a00 * cx + a01 * cy), a10, a11, dy - (a10 * cx + a11 * cy));
  cv::Mat out;
  cv::warpAffine(src, out, m, cv::Size(out_w, out_h), interpolation, cv::BORDER_CONSTANT, cv::Scalar::all(fill_value));
  return out;
}

ImageAugmenter::ImageAugmenter(const ImageAugParam& param, int out_h, int out_w)
    : p_(param), out_h_(out_h), out_w_(out_w) {
  // Without min_aspect_ratio the ratio is drawn around 1 (MXNet's convention); a range reaching
  // zero or below is clamped, since a ratio must stay positive.
  if (p_.min_aspect_ratio.has_value()) {
    aspect_lo_ = p_.min_aspect_ratio.value();
    aspect_hi_ = p_.max_aspect_ratio;
  } else {
    aspect_lo_ = 1.0f - p_.max_aspect_ratio;
    aspect_hi_ = 1.0f + p_.max_aspect_ratio;
  }
  aspect_lo_ = std::max(aspect_lo_, 0.01f);
  aspect_hi_ = std::max(aspect_hi_, aspect_lo_);
  const bool rotation_or_shear = p_.max_rotate_angle > 0 || p_.rotate > 0 || p_.max_shear_ratio > 0;
  // Under random_resized_crop the scale and aspect parameters drive the crop, not the warp.
  const bool scale_or_aspect = !p_.random_resized_crop &&
                               (p_.min_random_scale != 1.0f || p_.max_random_scale != 1.0f || aspect_lo_ != 1.0f ||
                                aspect_hi_ != 1.0f || p_.min_img_size > 0.0f || p_.max_img_size < 1e10f);
  affine_ = rotation_or_shear || scale_or_aspect;
}

cv::Mat ImageAugmenter::Process(const cv::Mat& src, std::mt19937* rng) const {
  cv::Mat img = Geometry(src, rng);
  MX_CHECK(img.rows == out_h_ && img.cols == out_w_)
      << "augmentation produced a " << img.rows << "x" << img.cols << " image, expected " << out_h_ << "x" << out_w_;
  const bool color = p_.brightness > 0 || p_.contrast > 0 || p_.saturation > 0 || p_.random_h > 0 ||
                     p_.random_s > 0 || p_.random_l > 0 || p_.pca_noise > 0;
  // Colour steps work in place: never on the caller's pixels.
  if (color && img.datastart == src.datastart) img = img.clone();
  if (color) Color(&img, rng);
  return img;
}

cv::Mat ImageAugmenter::Geometry(const cv::Mat& src, std::mt19937* rng) const {
  cv::Mat img = src;
  if (p_.resize > 0) img = ResizeShortSide(img, p_.resize, p_.inter_method, rng);
  if (affine_) {
    const float angle = p_.rotate > 0 ? static_cast<float>(p_.rotate)
                                      : UniformF(rng, -static_cast<float>(p_.max_rotate_angle),
                                                 static_cast<float>(p_.max_rotate_angle));
    const float shear = UniformF(rng, -p_.max_shear_ratio, p_.max_shear_ratio);
    float sx = 1.0f, sy = 1.0f;
    int w = img.cols, h = img.rows;
    if (!p_.random_resized_crop) {
      const float scale = UniformF(rng, p_.min_random_scale, p_.max_random_scale);
      const float ratio = UniformF(rng, aspect_lo_, aspect_hi_);
      // Area grows by scale^2 (for ratio 1) while width/height changes by `ratio`.
      sy = 2.0f * scale / (1.0f + ratio);
      sx = ratio * sy;
      auto clamp_side = [&](float v) {
        return std::max(1, static_cast<int>(std::min(p_.max_img_size, std::max(p_.min_img_size, v))));
      };
      w = clamp_side(scale * img.cols);
      h = clamp_side(scale * img.rows);
    }
    const int interp = InterpolationFlag(p_.inter_method, img.cols, img.rows, w, h, rng);
    img = AffineWarp(img, angle, shear, sx, sy, h, w, p_.fill_value, interp);
  }
  if (p_.pad > 0) {
    cv::Mat padded;
    cv::copyMakeBorder(img, padded, p_.pad, p_.pad, p_.pad, p_.pad, cv::BORDER_CONSTANT, cv::Scalar::all(p_.fill_value));
    img = padded;
  }
  return Crop(img, rng);
}

cv::Mat ImageAugmenter::Crop(const cv::Mat& src, std::mt19937* rng) const {
  if (p_.random_resized_crop) return RandomResizedCrop(src, rng);
  if (p_.max_crop_size != -1 || p_.min_crop_size != -1) {
    // A square of random side, then resized to the output shape.
    const int lo = p_.min_crop_size == -1 ? p_.max_crop_size : p_.min_crop_size;
    const int hi = p_.max_crop_size == -1 ? p_.min_crop_size : p_.max_crop_size;
    const int side = std::max(1, std::min({UniformI(rng, lo, hi), src.rows, src.cols}));
    const int y = p_.rand_crop ? UniformI(rng, 0, src.rows - side) : (src.rows - side) / 2;
    const int x = p_.rand_crop ? UniformI(rng, 0, src.cols - side) : (src.cols - side) / 2;
    return Resize(CropWindow(src, y, x, side, side), out_w_, out_h_, p_.inter_method, rng);
  }
  cv::Mat img = UpscaleToCover(src, out_h_, out_w_, p_.inter_method, rng);
  const int y = p_.rand_crop ? UniformI(rng, 0, img.rows - out_h_) : (img.rows - out_h_) / 2;
  const int x = p_.rand_crop ? UniformI(rng, 0, img.cols - out_w_) : (img.cols - out_w_) / 2;
  return CropWindow(img, y, x, out_h_, out_w_);
}

cv::Mat ImageAugmenter::RandomResizedCrop(const cv::Mat& src, std::mt19937* rng) const {
  const double area = static_cast<double>(src.rows) * src.cols;
  const float log_lo = std::log(aspect_lo_), log_hi = std::log(aspect_hi_);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = UniformF(rng, p_.min_random_area, p_.max_random_area) * area;
    const double ratio = std::exp(UniformF(rng, log_lo, log_hi));  // width / height
    const int w = static_cast<int>(std::lround(std::sqrt(target * ratio)));
    const int h = static_cast<int>(std::lround(std::sqrt(target / ratio)));
    if (w < 1 || h < 1 || w > src.cols || h > src.rows) continue;
    const int y = UniformI(rng, 0, src.rows - h);
    const int x = UniformI(rng, 0, src.cols - w);
    return Resize(CropWindow(src, y, x, h, w), out_w_, out_h_, p_.inter_method, rng);
  }
  // No draw fitted: a centred window of the output's size, shrunk (keeping its aspect) to fit.
  double w = out_w_, h = out_h_;
  if (h > src.rows) {
    w = w * src.rows / h;
    h = src.rows;
  }
  if (w > src.cols) {
    h = h * src.cols / w;
    w = src.cols;
  }
  const int cw = std::max(1, static_cast<int>(w)), ch = std::max(1, static_cast<int>(h));
  return Resize(CropWindow(src, (src.rows - ch) / 2, (src.cols - cw) / 2, ch, cw), out_w_, out_h_, p_.inter_method,
                rng);
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
