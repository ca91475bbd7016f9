// PNG through libpng: libpng's own transforms produce the channels and depth asked for
// (palette and low bit depths expanded, 16 bits kept or cut to their high byte, alpha kept or
// dropped, BGR or RGB order), so rows are written once, straight into the cv::Mat.
//
// libpng reports errors by longjmp. The functions that call it with setjmp armed hold no C++
// object with a destructor, so a jump skips nothing; the caller owns every resource.
#if MXNET_USE_OPENCV
#include <png.h>

#include <opencv2/core.hpp>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "io/image_formats.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {

constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

// libpng's error callback: keeps the message and jumps back to the armed setjmp.
struct PngError {
  char message[200] = "";
};

void OnPngError(png_structp png, png_const_charp msg) {
  auto* e = static_cast<PngError*>(png_get_error_ptr(png));
  std::snprintf(e->message, sizeof(e->message), "%s", msg);
  png_longjmp(png, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}  // e.g. unknown or damaged ancillary chunks

struct PngSource {
  const uint8_t* data;
  size_t size, pos;
};

void ReadFromMemory(png_structp png, png_bytep out, size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->size - src->pos) png_error(png, "the PNG data ends early (truncated?)");
  std::memcpy(out, src->data + src->pos, n);
  src->pos += n;
}

struct PngReader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  PngError error;
  PngSource source{};
  ~PngReader() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

struct PngLayout {
  png_uint_32 width = 0, height = 0;
  int channels = 0, depth = 0;
};

// Reads the header and arms the transforms for flag and order. Returns false after an error.
bool ReadPngHeader(PngReader* r, int flag, bool rgb, PngLayout* layout) {
  png_structp png = r->png;
  png_infop info = r->info;
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  png_uint_32 width = 0, height = 0;
  int depth = 0, type = 0;
  png_get_IHDR(png, info, &width, &height, &depth, &type, nullptr, nullptr, nullptr);
  const bool colour = (type & PNG_COLOR_MASK_COLOR) != 0;
  if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);  // alpha too, if tRNS has it
  if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (flag == -1) {
    // As stored: gray stays 1 channel (its tRNS ignored), gray+alpha becomes 4, colour with a
    // tRNS colour key gains an alpha channel, 16 bits stay (in host byte order).
    if (type == PNG_COLOR_TYPE_RGB && png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (depth == 16 && kLittleEndian) png_set_swap(png);
  } else {
    if (depth == 16) png_set_strip_16(png);  // the high byte
    png_set_strip_alpha(png);
    if (flag == 1 && !colour) png_set_gray_to_rgb(png);
    // BT.601 luma by libpng itself, as OpenCV's PNG reader (and so MXNet 1.x) asks it: its
    // rounding differs from cv::cvtColor's in the last bit.
    if (flag == 0 && colour) png_set_rgb_to_gray_fixed(png, PNG_ERROR_ACTION_NONE, 29900, 58700);
  }
  if (!rgb) png_set_bgr(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  layout->width = width;
  layout->height = height;
  layout->channels = png_get_channels(png, info);
  layout->depth = png_get_bit_depth(png, info);
  return true;
}

bool ReadPngRows(PngReader* r, png_bytepp rows) {
  if (setjmp(png_jmpbuf(r->png))) return false;
  png_read_image(r->png, rows);
  png_read_end(r->png, nullptr);  // the rest, to IEND: a cut or damaged file is rejected, as OpenCV does
  return true;
}

struct PngSink {
  std::vector<uint8_t>* out;
};

void WriteToVector(png_structp png, png_bytep data, size_t n) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  bool ok = true;
  try {
    sink->out->insert(sink->out->end(), data, data + n);
  } catch (const std::bad_alloc&) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory");
}

void FlushNothing(png_structp) {}

struct PngWriter {
  png_structp png = nullptr;
  png_infop info = nullptr;
  PngError error;
  ~PngWriter() { png_destroy_write_struct(&png, info ? &info : nullptr); }
};

bool WritePng(PngWriter* w, PngSink* sink, const uint8_t* const* rows, png_uint_32 width, png_uint_32 height,
              int depth, int channels, int level) {
  png_structp png = w->png;
  png_infop info = w->info;
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, sink, WriteToVector, FlushNothing);
  png_set_compression_level(png, level);
  const int type = channels == 1 ? PNG_COLOR_TYPE_GRAY : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA;
  png_set_IHDR(png, info, width, height, depth, type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (channels >= 3) png_set_bgr(png);
  if (depth == 16 && kLittleEndian) png_set_swap(png);
  png_write_image(png, const_cast<png_bytepp>(rows));
  png_write_end(png, info);
  return true;
}

}  // namespace

cv::Mat DecodePng(const uint8_t* data, size_t size, int flag, ChannelOrder order, const std::string& what,
                  const ImageAllocator& alloc) {
  PngReader r;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.error, OnPngError, OnPngWarning);
  if (r.png) r.info = png_create_info_struct(r.png);
  MX_CHECK_KIND(r.png && r.info, "MXNetError") << "decoding " << what << ": cannot start a PNG decoder";
  r.source = PngSource{data, size, 0};
  png_set_read_fn(r.png, &r.source, ReadFromMemory);
  PngLayout layout;
  MX_CHECK_KIND(ReadPngHeader(&r, flag, order == ChannelOrder::kRGB, &layout), "MXNetError")
      << "decoding " << what << ": not a valid PNG image (" << size << " bytes): " << r.error.message;
  MX_CHECK_KIND(uint64_t{layout.width} * layout.height <= kMaxImagePixels, "MXNetError")
      << "decoding " << what << ": the PNG image is " << layout.width << "x" << layout.height
      << ", more than the " << kMaxImagePixels << " pixels an image may have";
  MX_CHECK_KIND((layout.depth == 8 || layout.depth == 16) && layout.channels >= 1 && layout.channels <= 4,
                "MXNetError")
      << "decoding " << what << ": unexpected PNG layout (" << layout.channels << " channels of " << layout.depth
      << " bits)";
  cv::Mat img = AllocateImage(alloc, static_cast<int>(layout.height), static_cast<int>(layout.width),
                              CV_MAKETYPE(layout.depth == 16 ? CV_16U : CV_8U, layout.channels));
  std::vector<png_bytep> rows(layout.height);
  for (png_uint_32 y = 0; y < layout.height; ++y) rows[y] = img.ptr<uint8_t>(static_cast<int>(y));
  MX_CHECK_KIND(ReadPngRows(&r, rows.data()), "MXNetError")
      << "decoding " << what << ": a " << layout.width << "x" << layout.height
      << " PNG image failed to decode: " << r.error.message;
  return img;
}

std::vector<uint8_t> EncodePng(const cv::Mat& img, int level) {
  PngWriter w;
  w.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w.error, OnPngError, OnPngWarning);
  if (w.png) w.info = png_create_info_struct(w.png);
  MX_CHECK_KIND(w.png && w.info, "MXNetError") << "cannot start a PNG encoder";
  std::vector<const uint8_t*> rows(img.rows);
  for (int y = 0; y < img.rows; ++y) rows[y] = img.ptr<uint8_t>(y);
  std::vector<uint8_t> out;
  PngSink sink{&out};
  const bool ok = WritePng(&w, &sink, rows.data(), static_cast<png_uint_32>(img.cols),
                           static_cast<png_uint_32>(img.rows), img.depth() == CV_16U ? 16 : 8, img.channels(),
                           std::clamp(level, 0, 9));
  MX_CHECK_KIND(ok, "ValueError") << "encoding a " << img.rows << "x" << img.cols << " image with " << img.channels()
                                  << " channels as PNG: " << w.error.message;
  return out;
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
