/*!
 * \file image_formats.h
 * \brief The per-format codecs behind image_codec.h (JPEG: image_jpeg.cc on TurboJPEG; PNG:
 *        image_png.cc on libpng). Callers use DecodeImage / EncodeImage, which check the
 *        arguments and pick the format; these functions trust them.
 */
#ifndef MXNET_IO_IMAGE_FORMATS_H_
#define MXNET_IO_IMAGE_FORMATS_H_

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/image_codec.h"

namespace mxnet {
namespace io {

/*! \brief alloc(rows, cols, type), checked, or a new cv::Mat when alloc is empty. */
cv::Mat AllocateImage(const ImageAllocator& alloc, int rows, int cols, int type);

/*! \brief flag as for DecodeImage; errors name `what`. EXIF orientation applied for flag 0/1. */
cv::Mat DecodeJpeg(const uint8_t* data, size_t size, int flag, ChannelOrder order, const std::string& what,
                   const ImageAllocator& alloc);
/*! \brief 8-bit gray, BGR or BGRA (alpha dropped); 4:2:0 chroma for colour, quality 1-100. */
std::vector<uint8_t> EncodeJpeg(const cv::Mat& img, int quality);

/*!
 * \brief The EXIF orientation (1-8) in a JPEG's first APP1 "Exif" segment before its image
 *        data; 1 when there is none or it is not a valid value.
 */
int JpegExifOrientation(const uint8_t* data, size_t size);
/*! \brief img turned upright for EXIF orientation 1-8 (flips, transpose, rotations). */
cv::Mat ApplyExifOrientation(const cv::Mat& img, int orientation, const ImageAllocator& alloc = nullptr);

/*! \brief flag as for DecodeImage; errors name `what`. */
cv::Mat DecodePng(const uint8_t* data, size_t size, int flag, ChannelOrder order, const std::string& what,
                  const ImageAllocator& alloc);
/*! \brief 8- or 16-bit gray, BGR or BGRA; zlib level 0-9. */
std::vector<uint8_t> EncodePng(const cv::Mat& img, int level);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
#endif  // MXNET_IO_IMAGE_FORMATS_H_
