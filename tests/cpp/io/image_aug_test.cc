// ImageRecordIter's augmenter and normaliser pieces, on small synthetic images where the
// expected pixels can be written down.
#if MXNET_USE_OPENCV
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "io/image_aug.h"
#include "io/iter_image_recordio_normalize.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace io {
namespace {

cv::Mat Pattern(int h, int w, int channels = 3) {
  cv::Mat m(h, w, CV_8UC(channels));
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c)
      for (int k = 0; k < channels; ++k) m.ptr<uint8_t>(r)[c * channels + k] = uint8_t(r * 11 + c * 5 + k * 70);
  return m;
}

ImageAugParam DefaultAug(const std::vector<std::pair<std::string, std::string>>& kv = {}) {
  ImageAugParam p;
  p.Init(kv);
  return p;
}

double MaxDiff(const cv::Mat& a, const cv::Mat& b) { return cv::norm(a, b, cv::NORM_INF); }

TEST(ImageAugGeometry, ResizeShortSideFloorsTheLongSide) {
  std::mt19937 rng(0);
  cv::Mat a = ResizeShortSide(Pattern(21, 31), 17, 1, &rng);
  EXPECT_EQ(a.rows, 17);
  EXPECT_EQ(a.cols, 25);  // 31 * 17 / 21 = 25.09
  cv::Mat b = ResizeShortSide(Pattern(33, 19), 17, 1, &rng);
  EXPECT_EQ(b.rows, 29);  // 33 * 17 / 19 = 29.5
  EXPECT_EQ(b.cols, 17);
  cv::Mat expect;
  cv::resize(Pattern(21, 31), expect, cv::Size(25, 17), 0, 0, cv::INTER_LINEAR);
  EXPECT_EQ(MaxDiff(a, expect), 0);
}

TEST(ImageAugGeometry, UpscaleKeepsAspectAndCovers) {
  std::mt19937 rng(0);
  const cv::Mat src = Pattern(21, 31);
  cv::Mat up = UpscaleToCover(src, 24, 24, 1, &rng);
  EXPECT_EQ(up.rows, 24);
  EXPECT_EQ(up.cols, 35);  // 31 * 24 / 21 = 35.4
  cv::Mat tall = UpscaleToCover(Pattern(33, 19), 24, 24, 1, &rng);
  EXPECT_EQ(tall.cols, 24);
  EXPECT_EQ(tall.rows, 41);
  cv::Mat same = UpscaleToCover(src, 20, 30, 1, &rng);
  EXPECT_EQ(same.data, src.data);  // already covers: untouched
}

TEST(ImageAugGeometry, CropWindowChecksBounds) {
  const cv::Mat src = Pattern(10, 12);
  cv::Mat c = CropWindow(src, 2, 3, 4, 5);
  EXPECT_EQ(c.at<cv::Vec3b>(0, 0), src.at<cv::Vec3b>(2, 3));
  EXPECT_THROW(CropWindow(src, 8, 0, 4, 4), Error);
}

TEST(ImageAugGeometry, IdentityWarpIsExactAndRotationIsCounterClockwise) {
  const cv::Mat src = Pattern(16, 16);
  EXPECT_EQ(MaxDiff(AffineWarp(src, 0, 0, 1, 1, 16, 16, 255, cv::INTER_LINEAR), src), 0);
  cv::Mat ccw;
  cv::rotate(src, ccw, cv::ROTATE_90_COUNTERCLOCKWISE);
  EXPECT_LE(MaxDiff(AffineWarp(src, 90, 0, 1, 1, 16, 16, 255, cv::INTER_NEAREST), ccw), 0);
  // Scaling down by 2 leaves a fill_value border.
  cv::Mat small = AffineWarp(src, 0, 0, 0.5f, 0.5f, 16, 16, 7, cv::INTER_LINEAR);
  EXPECT_EQ(small.at<cv::Vec3b>(0, 0), cv::Vec3b(7, 7, 7));
}

TEST(ImageAugmenter, CentreCropAndPad) {
  std::mt19937 rng(0);
  const cv::Mat src = Pattern(20, 30);
  ImageAugmenter crop(DefaultAug(), 10, 12);
  cv::Mat out = crop.Process(src, &rng);
  EXPECT_EQ(MaxDiff(out, src(cv::Rect(9, 5, 12, 10))), 0);
  ImageAugmenter pad(DefaultAug({{"pad", "2"}, {"fill_value", "9"}}), 24, 34);
  cv::Mat padded = pad.Process(src, &rng);
  EXPECT_EQ(padded.at<cv::Vec3b>(0, 0), cv::Vec3b(9, 9, 9));
  EXPECT_EQ(MaxDiff(padded(cv::Rect(2, 2, 30, 20)), src), 0);
}

TEST(ImageAugmenter, SameGeneratorSameResultAndInputUntouched) {
  const cv::Mat src = Pattern(40, 50);
  const cv::Mat copy = src.clone();
  ImageAugmenter aug(DefaultAug({{"rand_crop", "1"}, {"max_rotate_angle", "20"}, {"brightness", "0.3"},
                                 {"contrast", "0.3"}, {"saturation", "0.3"}, {"random_h", "10"},
                                 {"pca_noise", "0.1"}, {"max_random_scale", "1.2"}, {"min_random_scale", "0.9"}}),
                     24, 24);
  std::mt19937 r1(5), r2(5), r3(6);
  cv::Mat a = aug.Process(src, &r1), b = aug.Process(src, &r2), c = aug.Process(src, &r3);
  EXPECT_EQ(MaxDiff(a, b), 0);
  EXPECT_GT(MaxDiff(a, c), 0);
  EXPECT_EQ(MaxDiff(src, copy), 0);
  EXPECT_EQ(a.rows, 24);
  EXPECT_EQ(a.cols, 24);
}

TEST(ImageAugmenter, RandomResizedCropFullAreaOnSquareIsAResize) {
  const cv::Mat src = Pattern(32, 32);
  ImageAugmenter aug(DefaultAug({{"random_resized_crop", "1"}, {"min_random_area", "1"}}), 16, 16);
  std::mt19937 rng(1);
  cv::Mat out = aug.Process(src, &rng);
  cv::Mat expect;
  cv::resize(src, expect, cv::Size(16, 16), 0, 0, cv::INTER_LINEAR);
  EXPECT_EQ(MaxDiff(out, expect), 0);
  // A small area gives crops of varying position: two draws differ.
  ImageAugmenter small(DefaultAug({{"random_resized_crop", "1"}, {"min_random_area", "0.1"},
                                   {"max_random_area", "0.3"}, {"min_aspect_ratio", "0.75"},
                                   {"max_aspect_ratio", "1.33"}}),
                       16, 16);
  std::mt19937 r1(1), r2(2);
  EXPECT_GT(MaxDiff(small.Process(src, &r1), small.Process(src, &r2)), 0);
}

TEST(ImageAugmenter, SquareCropSizeRangeResizesToOutput) {
  const cv::Mat src = Pattern(40, 40);
  ImageAugmenter aug(DefaultAug({{"min_crop_size", "20"}, {"max_crop_size", "20"}}), 10, 10);
  std::mt19937 rng(0);
  cv::Mat expect;
  cv::resize(src(cv::Rect(10, 10, 20, 20)), expect, cv::Size(10, 10), 0, 0, cv::INTER_LINEAR);
  EXPECT_EQ(MaxDiff(aug.Process(src, &rng), expect), 0);
}

TEST(ImageAugColor, NeutralFactorsChangeNothing) {
  const cv::Mat src = Pattern(8, 9);
  cv::Mat img = src.clone();
  AdjustBrightness(&img, 1.0f);
  AdjustContrast(&img, 1.0f);
  AdjustSaturation(&img, 1.0f);
  JitterHLS(&img, 0, 0, 0);
  const float zero[3] = {0, 0, 0};
  AddPcaLighting(&img, zero);
  EXPECT_EQ(MaxDiff(img, src), 0);
}

TEST(ImageAugColor, ExtremeFactors) {
  const cv::Mat src = Pattern(8, 9);
  cv::Mat dark = src.clone();
  AdjustBrightness(&dark, 0.0f);
  EXPECT_EQ(cv::countNonZero(dark.reshape(1)), 0);
  // Saturation 0: every pixel becomes its own gray level.
  cv::Mat gray_img = src.clone();
  AdjustSaturation(&gray_img, 0.0f);
  cv::Mat gray;
  cv::cvtColor(src, gray, cv::COLOR_BGR2GRAY);
  for (int k = 0; k < 3; ++k) {
    cv::Mat ch;
    cv::extractChannel(gray_img, ch, k);
    EXPECT_LE(MaxDiff(ch, gray), 1);
  }
  // Contrast 0: every pixel becomes the image's mean gray level.
  cv::Mat flat = src.clone();
  AdjustContrast(&flat, 0.0f);
  const double mean = cv::mean(gray)[0];
  for (int k = 0; k < 3; ++k) {
    double lo, hi;
    cv::Mat ch;
    cv::extractChannel(flat, ch, k);
    cv::minMaxLoc(ch, &lo, &hi);
    EXPECT_NEAR(lo, mean, 1.0);
    EXPECT_NEAR(hi, mean, 1.0);
  }
}

TEST(ImageAugColor, PcaLightingAddsOneOffsetPerChannel) {
  cv::Mat img(4, 4, CV_8UC3, cv::Scalar(100, 100, 100));
  const float alpha[3] = {0.1f, 0, 0};
  AddPcaLighting(&img, alpha);
  // First eigenvector (R, G, B) = (-0.5675, -0.5808, -0.5836) times 0.1 * 55.46.
  const cv::Vec3b p = img.at<cv::Vec3b>(2, 2);
  EXPECT_EQ(p[2], 100 - 3);  // R: -3.15
  EXPECT_EQ(p[1], 100 - 3);  // G: -3.22
  EXPECT_EQ(p[0], 100 - 3);  // B: -3.24
  EXPECT_EQ(img.at<cv::Vec3b>(0, 0), p);
}

TEST(ImageAugColor, AlphaChannelIsLeftAlone) {
  cv::Mat img = Pattern(5, 5, 4);
  const cv::Mat src = img.clone();
  AdjustBrightness(&img, 0.5f);
  JitterHLS(&img, 30, 10, 10);
  std::vector<cv::Mat> a, b;
  cv::split(img, a);
  cv::split(src, b);
  EXPECT_EQ(MaxDiff(a[3], b[3]), 0);
  EXPECT_GT(MaxDiff(a[0], b[0]), 0);
}

// ---- normaliser

NormalizeConfig Config(int dtype, int c, int h, int w) {
  NormalizeConfig n;
  n.dtype = dtype;
  n.channels = c;
  n.height = h;
  n.width = w;
  return n;
}

TEST(ImageNormalizer, FloatIsChwRgbWithMeanStdScale) {
  const cv::Mat img = Pattern(3, 4);
  NormalizeConfig cfg = Config(kFloat32, 3, 3, 4);
  cfg.mean[0] = 10;
  cfg.mean[1] = 20;
  cfg.mean[2] = 30;
  cfg.std[0] = 2;
  cfg.std[1] = 4;
  cfg.std[2] = 8;
  cfg.scale = 0.5f;
  std::vector<float> out(3 * 3 * 4);
  std::mt19937 rng(0);
  ImageNormalizer(cfg).Write(img, &rng, out.data());
  for (int k = 0; k < 3; ++k)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 4; ++x) {
        const float p = img.at<cv::Vec3b>(y, x)[2 - k];  // RGB from BGR
        EXPECT_FLOAT_EQ(out[(k * 3 + y) * 4 + x], (p - cfg.mean[k]) * 0.5f / cfg.std[k]);
      }
}

TEST(ImageNormalizer, MirrorUint8Int8GrayAndAlpha) {
  const cv::Mat img = Pattern(2, 5);
  std::mt19937 rng(0);
  NormalizeConfig cfg = Config(kUint8, 3, 2, 5);
  cfg.mirror = true;
  std::vector<uint8_t> u8(30);
  ImageNormalizer(cfg).Write(img, &rng, u8.data());
  EXPECT_EQ(u8[0], img.at<cv::Vec3b>(0, 4)[2]);
  EXPECT_EQ(u8[(2 * 2 + 1) * 5 + 1], img.at<cv::Vec3b>(1, 3)[0]);

  cv::Mat bright(1, 2, CV_8UC3, cv::Scalar(250, 5, 128));
  NormalizeConfig i8 = Config(kInt8, 3, 1, 2);
  i8.mean[0] = 0.6f;  // rounds to 1
  std::vector<int8_t> s8(6);
  ImageNormalizer(i8).Write(bright, &rng, s8.data());
  EXPECT_EQ(s8[0], 127);  // R 128 - 1 = 127
  EXPECT_EQ(s8[2], 5);    // G
  EXPECT_EQ(s8[4], 127);  // B 250 saturates

  cv::Mat gray(2, 2, CV_8UC1, cv::Scalar(77));
  std::vector<float> g(4);
  NormalizeConfig gc = Config(kFloat32, 1, 2, 2);
  gc.mean[0] = 7;
  ImageNormalizer(gc).Write(gray, &rng, g.data());
  EXPECT_FLOAT_EQ(g[3], 70.0f);

  cv::Mat bgra(1, 1, CV_8UC4, cv::Scalar(1, 2, 3, 4));
  std::vector<uint8_t> rgba(4);
  ImageNormalizer(Config(kUint8, 4, 1, 1)).Write(bgra, &rng, rgba.data());
  EXPECT_EQ(rgba, (std::vector<uint8_t>{3, 2, 1, 4}));
  EXPECT_THROW(ImageNormalizer(Config(kUint8, 3, 1, 1)).Write(bgra, &rng, rgba.data()), Error);
}

TEST(ImageNormalizer, RandomMirrorFlipsAboutHalf) {
  const cv::Mat img = Pattern(1, 6);
  NormalizeConfig cfg = Config(kUint8, 3, 1, 6);
  cfg.rand_mirror = true;
  ImageNormalizer norm(cfg);
  int flipped = 0;
  std::vector<uint8_t> out(18);
  for (uint32_t s = 0; s < 400; ++s) {
    std::mt19937 rng(s);
    norm.Write(img, &rng, out.data());
    flipped += out[0] == img.at<cv::Vec3b>(0, 5)[2];
  }
  EXPECT_GT(flipped, 150);
  EXPECT_LT(flipped, 250);
}

TEST(ImageNormalizer, MeanImageAndAccumulate) {
  const cv::Mat img = Pattern(2, 3);
  std::vector<double> acc(18, 0.0);
  ImageNormalizer::Accumulate(img, acc.data());
  ImageNormalizer::Accumulate(img, acc.data());
  std::vector<float> mean(18);
  for (size_t i = 0; i < 18; ++i) mean[i] = static_cast<float>(acc[i] / 2);
  NormalizeConfig cfg = Config(kFloat32, 3, 2, 3);
  cfg.mean_img = std::make_shared<const std::vector<float>>(mean);
  std::vector<float> out(18, 1.0f);
  std::mt19937 rng(0);
  ImageNormalizer(cfg).Write(img, &rng, out.data());
  for (float v : out) EXPECT_FLOAT_EQ(v, 0.0f);  // the image minus its own mean
}

}  // namespace
}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
