#include "io/image_codec.h"

#if MXNET_USE_OPENCV
#include <png.h>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>

#include "common/fork_hooks.h"
#include "common/runtime_info.h"
#include "io/image_formats.h"
#include "mxnet/base.h"
#include "mxnet/env.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace io {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Whether threading was turned off (0): OpenCV's TBB backend then runs serially but still
// reports its arena size from cv::getNumThreads().
std::atomic<bool> g_threads_off{false};

void ApplyThreads(int n) {
  cv::setNumThreads(n);
  g_threads_off.store(n == 0, std::memory_order_relaxed);
}

// A forked DataLoader worker decodes on its own: OpenCV's pool did not survive the fork, and
// N workers each starting a pool of all cores would oversubscribe the machine.
void ResetThreadsInForkedChild() {
  ApplyThreads(static_cast<int>(env::GetInt(env::Var::MXNET_MP_OPENCV_NUM_THREADS)));
}

struct Registrar {
  Registrar() {
    common::AddAfterForkChildHook(ResetThreadsInForkedChild);
    common::SetRuntimeInfo("opencv_version", CV_VERSION);
    common::SetRuntimeInfo("libpng_version", PNG_LIBPNG_VER_STRING);
  }
};
const Registrar registrar;

enum class Format { kJpeg, kPng, kOther };

Format Sniff(const uint8_t* p, size_t n) {
  if (n >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return Format::kJpeg;
  if (n >= 8 && std::memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return Format::kPng;
  return Format::kOther;
}

// The name of a format recognised but not decoded, for the error message; "" if unknown.
std::string OtherFormatName(const uint8_t* p, size_t n) {
  auto starts = [&](const char* magic, size_t len) { return n >= len && std::memcmp(p, magic, len) == 0; };
  if (starts("BM", 2)) return "BMP";
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return "TIFF";
  if (n >= 12 && starts("RIFF", 4) && std::memcmp(p + 8, "WEBP", 4) == 0) return "WebP";
  if (starts("GIF87a", 6) || starts("GIF89a", 6)) return "GIF";
  if (n >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7') return "PNM";
  if (starts("\0\0\0\x0cjP  ", 8) || starts("\xff\x4f\xff\x51", 4)) return "JPEG 2000";
  if (starts("\x76\x2f\x31\x01", 4)) return "OpenEXR";
  if (starts("#?RADIANCE", 10) || starts("#?RGBE", 6)) return "Radiance HDR";
  if (n >= 12 && std::memcmp(p + 4, "ftyp", 4) == 0) return "ISO media (HEIF, AVIF, ...)";
  return "";
}

}  // namespace

cv::Mat AllocateImage(const ImageAllocator& alloc, int rows, int cols, int type) {
  if (!alloc) return cv::Mat(rows, cols, type);
  cv::Mat m = alloc(rows, cols, type);
  MX_CHECK(m.rows == rows && m.cols == cols && m.type() == type && !m.empty())
      << "the image allocator returned a matrix of the wrong size or type";
  return m;
}

cv::Mat DecodeImage(const void* data, size_t size, int flag, const std::string& what, ChannelOrder order,
                    const ImageAllocator& alloc) {
  MX_CHECK_KIND(flag == 0 || flag == 1 || flag == -1, "ValueError")
      << "decoding " << what << ": flag must be 0 (gray), 1 (colour) or -1 (unchanged), got " << flag;
  MX_CHECK_KIND(data != nullptr && size > 0, "MXNetError")
      << "decoding " << what << ": the image buffer is empty";
  const auto* p = static_cast<const uint8_t*>(data);
  switch (Sniff(p, size)) {
    case Format::kJpeg: return DecodeJpeg(p, size, flag, order, what, alloc);
    case Format::kPng: return DecodePng(p, size, flag, order, what, alloc);
    case Format::kOther: break;
  }
  const std::string name = OtherFormatName(p, size);
  MX_THROW("MXNetError") << "decoding " << what << ": " << (name.empty() ? "not a JPEG or PNG image" : "a " + name + " image")
                         << " (" << size << " bytes); only JPEG and PNG images are decoded";
  return cv::Mat();  // not reached: the line above throws
}

std::vector<uint8_t> EncodeImage(const cv::Mat& bgr, const std::string& ext, int quality) {
  MX_CHECK_KIND(!bgr.empty(), "ValueError") << "encoding an image as " << ext << ": the image is empty";
  const std::string e = Lower(ext);
  const bool jpeg = e == ".jpg" || e == ".jpeg", png = e == ".png";
  MX_CHECK_KIND(jpeg || png, "ValueError")
      << "cannot encode images as '" << ext << "'; .jpg, .jpeg and .png are supported";
  const int c = bgr.channels();
  MX_CHECK_KIND(c == 1 || c == 3 || c == 4, "ValueError")
      << "encoding a " << bgr.rows << "x" << bgr.cols << " image as " << ext << ": expected 1 (gray), 3 (BGR) or 4 "
      << "(BGRA) channels, got " << c;
  MX_CHECK_KIND(bgr.depth() == CV_8U || (png && bgr.depth() == CV_16U), "ValueError")
      << "encoding a " << bgr.rows << "x" << bgr.cols << " image as " << ext << ": expected 8-bit"
      << (png ? " or 16-bit" : "") << " pixels";
  return jpeg ? EncodeJpeg(bgr, quality) : EncodePng(bgr, quality);
}

int InterpolationFlag(int inter_method, int src_w, int src_h, int dst_w, int dst_h, std::mt19937* rng) {
  if (inter_method >= 0 && inter_method <= 4) return inter_method;  // MXNet's codes are OpenCV's
  if (inter_method == 9) {
    if (dst_w > src_w && dst_h > src_h) return cv::INTER_CUBIC;
    if (dst_w < src_w && dst_h < src_h) return cv::INTER_AREA;
    return cv::INTER_LINEAR;
  }
  if (inter_method == 10) {
    thread_local std::mt19937 fallback{std::random_device{}()};
    std::uniform_int_distribution<int> pick(0, 4);
    return pick(rng ? *rng : fallback);
  }
  MX_THROW("ValueError") << "interpolation method " << inter_method
                         << " is not supported; use 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area), "
                            "4 (Lanczos), 9 (auto) or 10 (random)";
  return cv::INTER_LINEAR;  // not reached: the line above throws
}

void SetCodecThreads(int n) {
  MX_CHECK_KIND(n >= 0, "ValueError") << "OpenCV thread count must be >= 0, got " << n;
  ApplyThreads(n);
}

int CodecThreads() { return g_threads_off.load(std::memory_order_relaxed) ? 0 : cv::getNumThreads(); }

int CvDepthOf(int mxnet_dtype, const std::string& what) {
  switch (mxnet_dtype) {
    case kUint8: return CV_8U;
    case kInt8: return CV_8S;
    case kInt32: return CV_32S;
    case kFloat32: return CV_32F;
    case kFloat64: return CV_64F;
    default: break;
  }
  MX_THROW("ValueError") << what << ": images of dtype " << DTypeName(mxnet_dtype)
                         << " are not supported; use uint8, int8, int32, float32 or float64";
  return -1;  // not reached: the line above throws
}

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
