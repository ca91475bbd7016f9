// Image decoding and encoding for mx.image (see the images block of c_api.h).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/error.h"
#include "mxnet/ndarray.h"

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

#include "io/image_codec.h"
#endif

namespace {

#if MXNET_USE_OPENCV
struct EncodedTag;

// A decoded cv::Mat (already in the channel order asked for) copied into a new CPU NDArray.
mxnet::NDArray ToNDArray(const cv::Mat& img) {
  using mxnet::TShape;
  const int depth = img.depth();
  MX_CHECK(depth == CV_8U || depth == CV_16U) << "decoded images are 8- or 16-bit, got OpenCV depth " << depth;
  const int dtype = depth == CV_8U ? mxnet::kUint8 : mxnet::kInt32;
  const int c = img.channels();
  mxnet::NDArray out(TShape{img.rows, img.cols, c}, mxnet::Context::CPU(), false, dtype);
  void* dptr = out.data().dptr_;
  if (depth == CV_16U) {  // 16-bit PNG read with flag -1: widened, as NDArray has no uint16
    cv::Mat wide(img.rows, img.cols, CV_MAKETYPE(CV_32S, c), dptr);
    img.convertTo(wide, CV_MAKETYPE(CV_32S, c));
    return out;
  }
  cv::Mat dst(img.rows, img.cols, img.type(), dptr);
  img.copyTo(dst);
  return out;
}

// Decodes into a new NDArray: 8-bit images are written by the decoder straight into the
// NDArray's memory; 16-bit ones are widened to int32 after.
mxnet::NDArray Decode(const void* buf, size_t size, int flag, int to_rgb, const std::string& what) {
  std::unique_ptr<mxnet::NDArray> direct;
  auto alloc = [&](int rows, int cols, int type) {
    if (CV_MAT_DEPTH(type) != CV_8U) return cv::Mat(rows, cols, type);
    direct = std::make_unique<mxnet::NDArray>(mxnet::TShape{rows, cols, CV_MAT_CN(type)}, mxnet::Context::CPU(),
                                              false, mxnet::kUint8);
    return cv::Mat(rows, cols, type, direct->data().dptr_);
  };
  const cv::Mat img = mxnet::io::DecodeImage(
      buf, size, flag, what, to_rgb ? mxnet::io::ChannelOrder::kRGB : mxnet::io::ChannelOrder::kBGR, alloc);
  if (direct && img.data == direct->data().dptr_) return *direct;
  return ToNDArray(img);
}
#endif

#if !MXNET_USE_OPENCV
[[noreturn]] void NoOpenCV(const char* what) {
  MX_THROW("MXNetError") << what << " needs OpenCV, and this library was built without it (USE_OPENCV=OFF)";
  throw;  // not reached: the line above throws
}
#endif

}  // namespace

int MXImageDecode(const void* buf, size_t size, int flag, int to_rgb, NDArrayHandle* out) {
  API_BEGIN();
#if MXNET_USE_OPENCV
  *out = new mxnet::NDArray(Decode(buf, size, flag, to_rgb, "an image buffer of " + std::to_string(size) + " bytes"));
#else
  NoOpenCV("image decoding");
#endif
  API_END();
}

int MXImageRead(const char* filename, int flag, int to_rgb, NDArrayHandle* out) {
  API_BEGIN();
#if MXNET_USE_OPENCV
  MX_CHECK_KIND(filename != nullptr, "ValueError") << "MXImageRead: filename is null";
  std::ifstream f(filename, std::ios::binary | std::ios::ate);
  MX_CHECK_KIND(f.good(), "MXNetError") << "cannot open image file '" << filename << "': " << std::strerror(errno);
  const std::streamsize size = f.tellg();
  f.seekg(0);
  std::vector<char> bytes(static_cast<size_t>(std::max<std::streamsize>(size, 0)));
  MX_CHECK_KIND(size >= 0 && f.read(bytes.data(), size), "MXNetError") << "cannot read image file '" << filename << "'";
  *out = new mxnet::NDArray(Decode(bytes.data(), bytes.size(), flag, to_rgb, std::string("'") + filename + "'"));
#else
  NoOpenCV("image reading");
#endif
  API_END();
}

int MXImageEncode(const void* data, int height, int width, int channels, int dtype, const char* ext, int quality,
                  const char** out_buf, size_t* out_size) {
  API_BEGIN();
#if MXNET_USE_OPENCV
  MX_CHECK_KIND(data != nullptr && height > 0 && width > 0, "ValueError")
      << "encoding an image: expected a non-empty (H, W, C) image, got " << height << "x" << width;
  MX_CHECK_KIND(channels == 1 || channels == 3 || channels == 4, "ValueError")
      << "encoding an image: expected 1, 3 (BGR) or 4 (BGRA) channels, got " << channels;
  MX_CHECK_KIND(dtype == mxnet::kUint8, "ValueError")
      << "encoding an image: expected uint8 pixels, got " << mxnet::DTypeName(dtype);
  const cv::Mat img(height, width, CV_MAKETYPE(CV_8U, channels), const_cast<void*>(data));
  auto& ret = mxnet::capi::ThreadLocalReturn<EncodedTag, std::vector<uint8_t>>();
  ret = mxnet::io::EncodeImage(img, ext ? ext : "", quality);
  *out_buf = reinterpret_cast<const char*>(ret.data());
  *out_size = ret.size();
#else
  NoOpenCV("image encoding");
#endif
  API_END();
}

int MXImageSetNumThreads(int num_threads) {
  API_BEGIN();
#if MXNET_USE_OPENCV
  mxnet::io::SetCodecThreads(num_threads);
#else
  NoOpenCV("MXImageSetNumThreads");
#endif
  API_END();
}

int MXImageGetNumThreads(int* out) {
  API_BEGIN();
#if MXNET_USE_OPENCV
  *out = mxnet::io::CodecThreads();
#else
  NoOpenCV("MXImageGetNumThreads");
#endif
  API_END();
}
