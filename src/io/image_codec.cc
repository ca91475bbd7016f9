#include "io/image_codec.h"

#if MXNET_USE_OPENCV
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>

#include "common/fork_hooks.h"
#include "common/runtime_info.h"
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
  }
};
const Registrar registrar;

}  // namespace

cv::Mat DecodeImage(const void* data, size_t size, int flag, const std::string& what) {
  MX_CHECK_KIND(flag == 0 || flag == 1 || flag == -1, "ValueError")
      << "decoding " << what << ": flag must be 0 (gray), 1 (colour) or -1 (unchanged), got " << flag;
  MX_CHECK_KIND(data != nullptr && size > 0, "MXNetError")
      << "decoding " << what << ": the image buffer is empty";
  MX_CHECK_KIND(size <= static_cast<size_t>(INT32_MAX), "MXNetError")
      << "decoding " << what << ": " << size << " bytes is larger than the 2 GiB an image may be";
  const cv::Mat buf(1, static_cast<int>(size), CV_8U, const_cast<void*>(data));
  cv::Mat img;
  try {
    img = cv::imdecode(buf, flag);
  } catch (const cv::Exception& e) {
    MX_THROW("MXNetError") << "decoding " << what << ": " << e.what();
  }
  MX_CHECK_KIND(!img.empty(), "MXNetError")
      << "decoding " << what << ": not a decodable image (" << size
      << " bytes; JPEG, PNG, BMP, TIFF, WebP and PNM are read)";
  return img;
}

std::vector<uint8_t> EncodeImage(const cv::Mat& bgr, const std::string& ext, int quality) {
  MX_CHECK_KIND(!bgr.empty(), "ValueError") << "encoding an image as " << ext << ": the image is empty";
  const std::string e = Lower(ext);
  std::vector<int> params;
  if (e == ".jpg" || e == ".jpeg") {
    params = {cv::IMWRITE_JPEG_QUALITY, quality};
  } else if (e == ".png") {
    params = {cv::IMWRITE_PNG_COMPRESSION, quality};
  }
  MX_CHECK_KIND(!e.empty() && e[0] == '.' && cv::haveImageWriter("x" + e), "ValueError")
      << "cannot encode images as '" << ext << "'; use an extension such as .jpg or .png";
  std::vector<uint8_t> out;
  bool ok = false;
  try {
    ok = cv::imencode(e, bgr, out, params);
  } catch (const cv::Exception& ex) {
    MX_THROW("ValueError") << "encoding a " << bgr.rows << "x" << bgr.cols << " image with " << bgr.channels()
                           << " channels as " << ext << ": " << ex.what();
  }
  MX_CHECK_KIND(ok, "ValueError") << "encoding a " << bgr.rows << "x" << bgr.cols << " image with "
                                  << bgr.channels() << " channels as " << ext << " failed";
  return out;
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
