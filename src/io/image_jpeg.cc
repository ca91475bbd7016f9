// JPEG through libjpeg-turbo's TurboJPEG API: the decoder writes BGR, RGB or gray straight
// into the cv::Mat (no separate channel swap), and EXIF orientation is applied as OpenCV's
// imdecode does. TurboJPEG handles are not thread-safe: one per thread.
#if MXNET_USE_OPENCV
#include <turbojpeg.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>

#include "io/image_formats.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {

// One decompressor and one compressor per thread, made on first use. A handle that failed is
// dropped: after an error inside the header TurboJPEG leaves libjpeg mid-header, and every later
// header on that handle fails ("two SOI markers").
struct TjHandle {
  tjhandle handle = nullptr;
  ~TjHandle() { Drop(); }
  void Drop() {
    if (handle) tjDestroy(handle);
    handle = nullptr;
  }
};

TjHandle& ThreadDecompressor() {
  thread_local TjHandle t;
  if (!t.handle) t.handle = tjInitDecompress();
  MX_CHECK_KIND(t.handle != nullptr, "MXNetError") << "cannot start a JPEG decoder: " << tjGetErrorStr2(nullptr);
  return t;
}

TjHandle& ThreadCompressor() {
  thread_local TjHandle t;
  if (!t.handle) t.handle = tjInitCompress();
  MX_CHECK_KIND(t.handle != nullptr, "MXNetError") << "cannot start a JPEG encoder: " << tjGetErrorStr2(nullptr);
  return t;
}

// TurboJPEG reports a warning as a failure too: corrupt entropy data, or data that ends early
// (libjpeg then fills the rest of the image with gray). libjpeg decoded the image anyway, and
// MXNet 1.x (OpenCV) returns such images too, so keep it.
bool Failed(tjhandle h, int rc) { return rc != 0 && tjGetErrorCode(h) != TJERR_WARNING; }

// CMYK as Adobe writes it (inverted: 255 = no ink) to BGR or RGB: each colour is about
// c * k / 255, computed as k - (255 - c) * k / 256 (truncated), the rounding of MXNet 1.x's
// decoder, so that its pixels are reproduced exactly.
void CmykToColour(const cv::Mat& cmyk, ChannelOrder order, cv::Mat* colour) {
  cv::Mat& out = *colour;
  const int r = order == ChannelOrder::kRGB ? 0 : 2, b = 2 - r;
  for (int y = 0; y < cmyk.rows; ++y) {
    const uint8_t* s = cmyk.ptr<uint8_t>(y);
    uint8_t* d = out.ptr<uint8_t>(y);
    for (int x = 0; x < cmyk.cols; ++x, s += 4, d += 3) {
      const int k = s[3];
      d[r] = static_cast<uint8_t>(k - (((255 - s[0]) * k) >> 8));
      d[1] = static_cast<uint8_t>(k - (((255 - s[1]) * k) >> 8));
      d[b] = static_cast<uint8_t>(k - (((255 - s[2]) * k) >> 8));
    }
  }
}

// Reads a big- or little-endian TIFF field inside [t, t + n); 0 past the end.
struct TiffReader {
  const uint8_t* t;
  size_t n;
  bool little;
  uint32_t U16(size_t at) const {
    if (at + 2 > n) return 0;
    return little ? t[at] | t[at + 1] << 8 : t[at] << 8 | t[at + 1];
  }
  uint32_t U32(size_t at) const {
    if (at + 4 > n) return 0;
    return little ? U16(at) | U16(at + 2) << 16 : U16(at) << 16 | U16(at + 2);
  }
};

// The Orientation tag (0x0112, one SHORT) of IFD0 in an EXIF TIFF block; 0 when absent.
int TiffOrientation(const uint8_t* t, size_t n) {
  if (n < 8) return 0;
  TiffReader r{t, n, t[0] == 'I' && t[1] == 'I'};
  if (!r.little && !(t[0] == 'M' && t[1] == 'M')) return 0;
  if (r.U16(2) != 42) return 0;
  const size_t ifd = r.U32(4);
  if (ifd < 8 || ifd + 2 > n) return 0;
  const uint32_t count = r.U16(ifd);
  for (uint32_t i = 0; i < count; ++i) {
    const size_t entry = ifd + 2 + size_t{12} * i;
    if (entry + 12 > n) break;
    if (r.U16(entry) != 0x0112) continue;
    if (r.U16(entry + 2) != 3 || r.U32(entry + 4) != 1) return 0;  // not one SHORT
    return static_cast<int>(r.U16(entry + 8));
  }
  return 0;
}

}  // namespace

int JpegExifOrientation(const uint8_t* p, size_t n) {
  size_t i = 2;  // past SOI
  while (i + 4 <= n) {
    if (p[i] != 0xFF) return 1;
    const uint8_t marker = p[i + 1];
    if (marker == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9) return 1;  // image data (or the end) reached
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // markers without a length
      i += 2;
      continue;
    }
    const size_t length = size_t{p[i + 2]} << 8 | p[i + 3];
    if (length < 2 || i + 2 + length > n) return 1;
    if (marker == 0xE1 && length >= 8 && std::memcmp(p + i + 4, "Exif\0\0", 6) == 0) {
      const int o = TiffOrientation(p + i + 10, length - 8);
      return o >= 1 && o <= 8 ? o : 1;
    }
    i += 2 + length;
  }
  return 1;
}

cv::Mat ApplyExifOrientation(const cv::Mat& img, int orientation, const ImageAllocator& alloc) {
  if (orientation < 2 || orientation > 8) return img;
  cv::Mat out = orientation >= 5 ? AllocateImage(alloc, img.cols, img.rows, img.type())
                                 : AllocateImage(alloc, img.rows, img.cols, img.type());
  switch (orientation) {
    case 2: cv::flip(img, out, 1); break;  // mirrored left-right
    case 3: cv::rotate(img, out, cv::ROTATE_180); break;
    case 4: cv::flip(img, out, 0); break;  // mirrored top-bottom
    case 5: cv::transpose(img, out); break;  // mirrored on the main diagonal
    case 6: cv::rotate(img, out, cv::ROTATE_90_CLOCKWISE); break;
    case 7: {  // mirrored on the other diagonal
      cv::Mat t;
      cv::transpose(img, t);
      cv::rotate(t, out, cv::ROTATE_180);
      break;
    }
    default: cv::rotate(img, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;  // 8
  }
  return out;
}

cv::Mat DecodeJpeg(const uint8_t* data, size_t size, int flag, ChannelOrder order, const std::string& what,
                   const ImageAllocator& alloc) {
  TjHandle& decoder = ThreadDecompressor();
  tjhandle h = decoder.handle;
  int width = 0, height = 0, subsamp = 0, colorspace = 0;
  if (Failed(h, tjDecompressHeader3(h, data, static_cast<unsigned long>(size), &width, &height, &subsamp,
                                    &colorspace)) ||
      width <= 0 || height <= 0) {
    const std::string error = tjGetErrorStr2(h);
    decoder.Drop();
    MX_THROW("MXNetError") << "decoding " << what << ": not a valid JPEG image (" << size << " bytes): " << error;
  }
  MX_CHECK_KIND(static_cast<uint64_t>(width) * height <= kMaxImagePixels, "MXNetError")
      << "decoding " << what << ": the JPEG image is " << width << "x" << height << ", more than the "
      << kMaxImagePixels << " pixels an image may have";
  const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
  const bool gray_out = flag == 0 || (flag == -1 && colorspace == TJCS_GRAY);
  const int orientation = flag == -1 ? 1 : JpegExifOrientation(data, size);
  // Decoded straight into the caller's matrix unless a conversion or a turn comes after.
  const bool direct = !cmyk && orientation == 1;
  const int type = gray_out ? CV_8UC1 : CV_8UC3;
  cv::Mat img = direct ? AllocateImage(alloc, height, width, type) : cv::Mat(height, width, cmyk ? CV_8UC4 : type);
  int pixel_format = TJPF_CMYK;  // libjpeg cannot convert CMYK: done below
  if (!cmyk) pixel_format = gray_out ? TJPF_GRAY : order == ChannelOrder::kRGB ? TJPF_RGB : TJPF_BGR;
  // TJPF_GRAY of a colour JPEG is its luma plane, which is how OpenCV reads one as gray.
  const int rc = tjDecompress2(h, data, static_cast<unsigned long>(size), img.data, width,
                               static_cast<int>(img.step), height, pixel_format, 0);
  if (Failed(h, rc)) {
    const std::string error = tjGetErrorStr2(h);
    decoder.Drop();
    MX_THROW("MXNetError") << "decoding " << what << ": a " << width << "x" << height
                           << " JPEG image failed to decode: " << error;
  }
  if (cmyk) {
    const ImageAllocator none;
    const ImageAllocator& last = orientation == 1 ? alloc : none;  // the final matrix, if this is the last step
    cv::Mat colour = gray_out ? cv::Mat(height, width, CV_8UC3) : AllocateImage(last, height, width, CV_8UC3);
    CmykToColour(img, order, &colour);
    img = colour;
    if (gray_out) {
      cv::Mat gray = AllocateImage(last, height, width, CV_8UC1);
      cv::cvtColor(colour, gray, order == ChannelOrder::kRGB ? cv::COLOR_RGB2GRAY : cv::COLOR_BGR2GRAY);
      img = gray;
    }
  }
  return ApplyExifOrientation(img, orientation, alloc);
}

std::vector<uint8_t> EncodeJpeg(const cv::Mat& img, int quality) {
  const int c = img.channels();
  const int pixel_format = c == 1 ? TJPF_GRAY : c == 3 ? TJPF_BGR : TJPF_BGRX;
  const int subsamp = c == 1 ? TJSAMP_GRAY : TJSAMP_420;  // libjpeg's default, as OpenCV writes
  TjHandle& encoder = ThreadCompressor();
  tjhandle h = encoder.handle;
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  // The accurate DCT, as libjpeg (and so OpenCV) uses by default; TurboJPEG would pick the fast
  // one below quality 96.
  const int rc = tjCompress2(h, img.data, img.cols, static_cast<int>(img.step), img.rows, pixel_format, &buf, &size,
                             subsamp, std::clamp(quality, 1, 100), TJFLAG_ACCURATEDCT);
  std::vector<uint8_t> out;
  if (rc == 0) out.assign(buf, buf + size);
  const std::string error = rc == 0 ? "" : tjGetErrorStr2(h);
  tjFree(buf);
  if (rc != 0) encoder.Drop();
  MX_CHECK_KIND(rc == 0, "ValueError") << "encoding a " << img.rows << "x" << img.cols << " image with " << c
                                       << " channels as JPEG: " << error;
  return out;
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
