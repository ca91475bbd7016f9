// The image codec (TurboJPEG, libpng): decode/encode round trips, channel order, EXIF
// orientation, 16-bit and alpha PNGs, errors that name the source, the interpolation mapping,
// and OpenCV's threads in a forked child (MXNET_MP_OPENCV_NUM_THREADS).
#if MXNET_USE_OPENCV
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <opencv2/imgproc.hpp>

#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "io/image_codec.h"
#include "io/image_formats.h"
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

TEST(ImageCodec, JpegEncodeIsDeterministicAndDecodesInEitherOrder) {
  const cv::Mat img = Pattern(40, 56);
  const std::vector<uint8_t> a = EncodeImage(img, ".jpg", 90), b = EncodeImage(img, ".jpg", 90);
  EXPECT_EQ(a, b);
  const cv::Mat bgr = DecodeImage(a.data(), a.size(), 1, "x", ChannelOrder::kBGR);
  const cv::Mat rgb = DecodeImage(a.data(), a.size(), 1, "x", ChannelOrder::kRGB);
  cv::Mat swapped;
  cv::cvtColor(bgr, swapped, cv::COLOR_BGR2RGB);
  EXPECT_EQ(cv::norm(swapped, rgb, cv::NORM_INF), 0);
  // gray: the luma plane; the gray of -1 on a colour JPEG is colour
  EXPECT_EQ(DecodeImage(a.data(), a.size(), 0, "x").type(), CV_8UC1);
  EXPECT_EQ(DecodeImage(a.data(), a.size(), -1, "x").type(), CV_8UC3);
  cv::Mat plane;
  cv::extractChannel(img, plane, 1);
  const std::vector<uint8_t> g = EncodeImage(plane, ".jpeg", 90);
  EXPECT_EQ(DecodeImage(g.data(), g.size(), -1, "x").type(), CV_8UC1);
  EXPECT_EQ(DecodeImage(g.data(), g.size(), 1, "x").type(), CV_8UC3);
  // a file cut short decodes as far as its data goes (libjpeg fills the rest), as in MXNet 1.x
  EXPECT_EQ(DecodeImage(a.data(), a.size() * 2 / 3, 1, "cut.jpg").size(), bgr.size());
}

TEST(ImageCodec, JpegDecoderRecoversAfterABrokenHeader) {
  const std::vector<uint8_t> good = EncodeImage(Pattern(16, 16), ".jpg", 90);
  std::vector<uint8_t> broken = good;
  // the sample precision of the SOF0 segment (8) made 200: libjpeg gives up inside the header
  for (size_t i = 2; i + 4 < broken.size(); ++i) {
    if (broken[i] == 0xFF && broken[i + 1] == 0xC0) {
      broken[i + 4] = 200;
      break;
    }
  }
  for (int round = 0; round < 3; ++round) {
    const std::string e = ErrorOf([&] { DecodeImage(broken.data(), broken.size(), 1, "broken.jpg"); });
    EXPECT_NE(e.find("broken.jpg"), std::string::npos) << e;
    EXPECT_EQ(DecodeImage(good.data(), good.size(), 1, "good.jpg").size(), cv::Size(16, 16)) << round;
  }
}

// A JPEG with an APP1 EXIF block (little-endian TIFF) carrying `orientation`, after its SOI.
std::vector<uint8_t> WithExif(const std::vector<uint8_t>& jpeg, int orientation) {
  const uint8_t tiff[] = {'I', 'I', 42, 0, 8, 0, 0, 0,                              // header, IFD0 at 8
                          1, 0,                                                     // one entry
                          0x12, 0x01, 3, 0, 1, 0, 0, 0, uint8_t(orientation), 0, 0, 0,  // Orientation SHORT
                          0, 0, 0, 0};                                              // no next IFD
  const uint8_t app1[] = {0xFF, 0xE1, 0, uint8_t(2 + 6 + sizeof(tiff)), 'E', 'x', 'i', 'f', 0, 0};
  std::vector<uint8_t> out = {jpeg[0], jpeg[1]};
  for (uint8_t b : app1) out.push_back(b);
  for (uint8_t b : tiff) out.push_back(b);
  for (size_t i = 2; i < jpeg.size(); ++i) out.push_back(jpeg[i]);
  return out;
}

TEST(ImageCodec, ExifOrientationIsAppliedExceptUnchanged) {
  // Quality 100 and a smooth image: the decoded pixels are close enough to compare positions.
  cv::Mat img(24, 40, CV_8UC3);
  for (int r = 0; r < img.rows; ++r)
    for (int c = 0; c < img.cols; ++c) img.at<cv::Vec3b>(r, c) = cv::Vec3b(uchar(c * 6), uchar(r * 10), 128);
  const std::vector<uint8_t> plain = EncodeImage(img, ".jpg", 100);
  const cv::Mat upright = DecodeImage(plain.data(), plain.size(), 1, "x");
  for (int o = 1; o <= 8; ++o) {
    const std::vector<uint8_t> tagged = WithExif(plain, o);
    EXPECT_EQ(JpegExifOrientation(tagged.data(), tagged.size()), o);
    const cv::Mat got = DecodeImage(tagged.data(), tagged.size(), 1, "x");
    const cv::Mat want = ApplyExifOrientation(upright, o);
    ASSERT_EQ(got.size(), want.size()) << o;
    EXPECT_EQ(cv::norm(got, want, cv::NORM_INF), 0) << o;
    EXPECT_EQ(got.size(), o >= 5 ? cv::Size(24, 40) : cv::Size(40, 24)) << o;
    // flag -1 keeps the stored layout
    EXPECT_EQ(DecodeImage(tagged.data(), tagged.size(), -1, "x").size(), cv::Size(40, 24)) << o;
  }
  // Orientation 6 is a clockwise quarter turn: the stored top-left pixel ends up top-right.
  const std::vector<uint8_t> six = WithExif(plain, 6);
  const cv::Mat turned = DecodeImage(six.data(), six.size(), 1, "x");
  EXPECT_LE(cv::norm(turned.at<cv::Vec3b>(0, turned.cols - 1), upright.at<cv::Vec3b>(0, 0), cv::NORM_INF), 2);
  // 5 and 7 are the two diagonal mirrors
  const cv::Mat m(2, 3, CV_8UC1, const_cast<uchar*>(reinterpret_cast<const uchar*>("\1\2\3\4\5\6")));
  const cv::Mat t5 = ApplyExifOrientation(m, 5), t7 = ApplyExifOrientation(m, 7);
  EXPECT_EQ(std::vector<uchar>(t5.begin<uchar>(), t5.end<uchar>()), (std::vector<uchar>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(std::vector<uchar>(t7.begin<uchar>(), t7.end<uchar>()), (std::vector<uchar>{6, 3, 5, 2, 4, 1}));
  // no EXIF, a damaged one, an out-of-range value: upright
  EXPECT_EQ(JpegExifOrientation(plain.data(), plain.size()), 1);
  std::vector<uint8_t> bad = WithExif(plain, 9);
  EXPECT_EQ(JpegExifOrientation(bad.data(), bad.size()), 1);
  bad = WithExif(plain, 6);
  bad[12] = 'X';  // not a TIFF byte order
  EXPECT_EQ(JpegExifOrientation(bad.data(), bad.size()), 1);
}

TEST(ImageCodec, CmykJpegBecomesColourAndGray) {
  // A YCCK JPEG (TurboJPEG writes one from CMYK pixels), as Adobe software saves CMYK.
  cv::Mat cmyk(8, 16, CV_8UC4);
  for (int r = 0; r < cmyk.rows; ++r)
    for (int c = 0; c < cmyk.cols; ++c) cmyk.at<cv::Vec4b>(r, c) = cv::Vec4b(uchar(c * 16), uchar(r * 32), 200, 180);
  tjhandle h = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  ASSERT_EQ(tjCompress2(h, cmyk.data, cmyk.cols, 0, cmyk.rows, TJPF_CMYK, &buf, &size, TJSAMP_444, 100, 0), 0);
  const std::vector<uint8_t> jpeg(buf, buf + size);
  tjFree(buf);
  tjDestroy(h);
  const cv::Mat bgr = DecodeImage(jpeg.data(), jpeg.size(), -1, "cmyk.jpg");
  ASSERT_EQ(bgr.type(), CV_8UC3);
  // inverted CMYK: each colour about ink * k / 255; quality 100 leaves a little rounding
  const cv::Vec3b px = bgr.at<cv::Vec3b>(3, 5), ink = {200, uchar(3 * 32), uchar(5 * 16)};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(px[k], ink[k] * 180 / 255, 3) << k;
  const cv::Mat rgb = DecodeImage(jpeg.data(), jpeg.size(), 1, "cmyk.jpg", ChannelOrder::kRGB);
  cv::Mat swapped;
  cv::cvtColor(bgr, swapped, cv::COLOR_BGR2RGB);
  EXPECT_EQ(cv::norm(rgb, swapped, cv::NORM_INF), 0);
  cv::Mat gray;
  cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
  EXPECT_EQ(cv::norm(DecodeImage(jpeg.data(), jpeg.size(), 0, "cmyk.jpg"), gray, cv::NORM_INF), 0);
}

TEST(ImageCodec, PngKeeps16BitsAndAlphaWhenUnchanged) {
  cv::Mat deep(5, 7, CV_16UC3);
  for (int r = 0; r < deep.rows; ++r)
    for (int c = 0; c < deep.cols; ++c)
      deep.at<cv::Vec3w>(r, c) = cv::Vec3w(ushort(r * 9000 + c), ushort(c * 9000 + 255), ushort(65535 - r * c));
  const std::vector<uint8_t> png = EncodeImage(deep, ".png", 6);
  const cv::Mat same = DecodeImage(png.data(), png.size(), -1, "x");
  ASSERT_EQ(same.type(), CV_16UC3);
  EXPECT_EQ(cv::norm(same, deep, cv::NORM_INF), 0);
  const cv::Mat rgb = DecodeImage(png.data(), png.size(), -1, "x", ChannelOrder::kRGB);
  EXPECT_EQ(rgb.at<cv::Vec3w>(2, 3)[0], deep.at<cv::Vec3w>(2, 3)[2]);
  const cv::Mat eight = DecodeImage(png.data(), png.size(), 1, "x");
  ASSERT_EQ(eight.type(), CV_8UC3);
  EXPECT_EQ(eight.at<cv::Vec3b>(4, 6)[0], deep.at<cv::Vec3w>(4, 6)[0] >> 8);  // the high byte
  cv::Mat bgra(3, 4, CV_8UC4, cv::Scalar(10, 20, 30, 40));
  const std::vector<uint8_t> alpha = EncodeImage(bgra, ".png", 12);  // level clamped to 9
  EXPECT_EQ(cv::norm(DecodeImage(alpha.data(), alpha.size(), -1, "x"), bgra, cv::NORM_INF), 0);
  EXPECT_EQ(DecodeImage(alpha.data(), alpha.size(), 1, "x").type(), CV_8UC3);
  EXPECT_EQ(DecodeImage(alpha.data(), alpha.size(), 0, "x").type(), CV_8UC1);
  const std::string cut = ErrorOf([&] { DecodeImage(png.data(), png.size() - 20, 1, "cut.png"); });
  EXPECT_EQ(cut.rfind("MXNetError", 0), 0u) << cut;
  EXPECT_NE(cut.find("cut.png"), std::string::npos) << cut;
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
  EXPECT_NE(ext.find(".png"), std::string::npos) << ext;  // says what is supported
  // other formats are named, with the supported ones
  const char bmp[] = "BM\x36\0\0\0\0\0\0\0\x36\0\0\0";
  const std::string other = ErrorOf([&] { DecodeImage(bmp, sizeof(bmp), 1, "record 9 of b.rec"); });
  EXPECT_EQ(other.rfind("MXNetError", 0), 0u) << other;
  EXPECT_NE(other.find("record 9 of b.rec"), std::string::npos) << other;
  EXPECT_NE(other.find("BMP"), std::string::npos) << other;
  EXPECT_NE(other.find("JPEG and PNG"), std::string::npos) << other;
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
