// The image codec on OpenCV: decode/encode round trips, errors that name the source, the
// interpolation mapping, and OpenCV's threads in a forked child (MXNET_MP_OPENCV_NUM_THREADS).
#if MXNET_USE_OPENCV
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <opencv2/imgproc.hpp>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "io/image_codec.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {
namespace {

cv::Mat Pattern(int h, int w) {
  cv::Mat m(h, w, CV_8UC3);
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) m.at<cv::Vec3b>(r, c) = cv::Vec3b(uchar(r * 7 + c), uchar(c * 3), uchar(r * 5));
  return m;
}

TEST(ImageCodec, PngRoundTripIsExactInColourAndGray) {
  const cv::Mat img = Pattern(13, 17);
  const std::vector<uint8_t> png = EncodeImage(img, ".png", 3);
  const cv::Mat back = DecodeImage(png.data(), png.size(), 1, "test png");
  ASSERT_EQ(back.type(), CV_8UC3);
  EXPECT_EQ(cv::norm(img, back, cv::NORM_INF), 0);
  const cv::Mat gray = DecodeImage(png.data(), png.size(), 0, "test png");
  ASSERT_EQ(gray.type(), CV_8UC1);
  cv::Mat expect;
  cv::cvtColor(img, expect, cv::COLOR_BGR2GRAY);
  EXPECT_LE(cv::norm(expect, gray, cv::NORM_INF), 1);
}

TEST(ImageCodec, JpegQualityChangesSizeAndDecodesClose) {
  const cv::Mat img = Pattern(64, 48);
  const std::vector<uint8_t> hi = EncodeImage(img, ".JPG", 95), lo = EncodeImage(img, ".jpeg", 10);
  EXPECT_GT(hi.size(), lo.size());
  const cv::Mat back = DecodeImage(hi.data(), hi.size(), -1, "test jpeg");
  EXPECT_EQ(back.rows, 64);
  EXPECT_EQ(back.cols, 48);
  EXPECT_LT(cv::norm(img, back, cv::NORM_L1) / img.total() / 3, 6.0);
}

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return std::string(e.kind()) + ": " + e.what();
  }
  return "";
}

TEST(ImageCodec, ErrorsNameTheSource) {
  const std::string empty = ErrorOf([] { DecodeImage(nullptr, 0, 1, "record 17 of /x/train.rec"); });
  EXPECT_NE(empty.find("record 17 of /x/train.rec"), std::string::npos) << empty;
  EXPECT_NE(empty.find("empty"), std::string::npos) << empty;
  const char junk[] = "definitely not an image";
  const std::string bad = ErrorOf([&] { DecodeImage(junk, sizeof(junk), 1, "record 3 of a.rec"); });
  EXPECT_EQ(bad.rfind("MXNetError", 0), 0u) << bad;
  EXPECT_NE(bad.find("record 3 of a.rec"), std::string::npos) << bad;
  const std::string flag = ErrorOf([&] { DecodeImage(junk, sizeof(junk), 2, "x"); });
  EXPECT_EQ(flag.rfind("ValueError", 0), 0u) << flag;
  const std::string ext = ErrorOf([] { EncodeImage(Pattern(2, 2), ".nope", 95); });
  EXPECT_EQ(ext.rfind("ValueError", 0), 0u) << ext;
  const std::string none = ErrorOf([] { EncodeImage(cv::Mat(), ".png", 3); });
  EXPECT_EQ(none.rfind("ValueError", 0), 0u) << none;
}

TEST(ImageCodec, InterpolationCodes) {
  for (int i = 0; i <= 4; ++i) EXPECT_EQ(InterpolationFlag(i, 10, 10, 5, 5, nullptr), i);
  EXPECT_EQ(InterpolationFlag(9, 10, 10, 20, 20, nullptr), cv::INTER_CUBIC);
  EXPECT_EQ(InterpolationFlag(9, 10, 10, 5, 5, nullptr), cv::INTER_AREA);
  EXPECT_EQ(InterpolationFlag(9, 10, 10, 20, 5, nullptr), cv::INTER_LINEAR);
  std::mt19937 rng(7);
  std::vector<int> seen(5, 0);
  for (int i = 0; i < 200; ++i) {
    const int f = InterpolationFlag(10, 10, 10, 5, 5, &rng);
    ASSERT_GE(f, 0);
    ASSERT_LE(f, 4);
    ++seen[f];
  }
  for (int count : seen) EXPECT_GT(count, 0);
  for (int bad : {-1, 5, 8, 11}) {
    const std::string e = ErrorOf([&] { InterpolationFlag(bad, 1, 1, 1, 1, nullptr); });
    EXPECT_EQ(e.rfind("ValueError", 0), 0u) << bad << ": " << e;
  }
}

TEST(ImageCodec, ForkedChildUsesMpOpencvThreads) {
  SetCodecThreads(2);
  ASSERT_EQ(CodecThreads(), 2);
  const int expected = static_cast<int>(env::GetInt(env::Var::MXNET_MP_OPENCV_NUM_THREADS));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(CodecThreads() == expected ? 0 : 1);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child did not switch to MXNET_MP_OPENCV_NUM_THREADS=" << expected;
  EXPECT_EQ(CodecThreads(), 2);  // the parent keeps its setting
}

}  // namespace
}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
