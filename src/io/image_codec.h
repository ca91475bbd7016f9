/*!
 * \file image_codec.h
 * \brief Image decoding and encoding (JPEG through libjpeg-turbo's TurboJPEG API, PNG through
 *        libpng; image_jpeg.cc, image_png.cc) into OpenCV matrices, and the choice of resize
 *        interpolation. mx.image, the image operators and the record iterators all decode
 *        through here, so errors read the same everywhere.
 */
#ifndef MXNET_IO_IMAGE_CODEC_H_
#define MXNET_IO_IMAGE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

namespace mxnet {
namespace io {

/*! \brief Order of the colour channels of a decoded 3- or 4-channel image (OpenCV's is BGR). */
enum class ChannelOrder { kBGR, kRGB };

/*! \brief The most pixels a decoded image may have (OpenCV's limit too): 2^30. */
constexpr uint64_t kMaxImagePixels = uint64_t{1} << 30;

/*!
 * \brief Where a decoder puts an image of rows x cols pixels of cv type `type`: a matrix of
 *        exactly that size and type, typically a header over memory the caller owns, so the
 *        pixels are written once. Called at most once per decode, for the matrix returned (an
 *        error may come after it). Empty: a new cv::Mat.
 */
using ImageAllocator = std::function<cv::Mat(int rows, int cols, int type)>;

/*!
 * \brief Decodes a JPEG or PNG image (the format is told by its first bytes). flag: 0 gray
 *        (1 channel, 8-bit), 1 colour (3 channels, 8-bit), -1 as stored (1, 3 or 4 channels;
 *        PNG may be 16-bit). Colour channels come in `order`, written by the decoder itself.
 *        With flag 0 or 1 a JPEG's EXIF orientation is applied (as OpenCV's imdecode does).
 *        Throws MXNetError naming `what` (e.g. "record 17 of /x/train.rec") when the buffer
 *        is empty, in another format, or not decodable; ValueError for another flag.
 */
cv::Mat DecodeImage(const void* data, size_t size, int flag, const std::string& what,
                    ChannelOrder order = ChannelOrder::kBGR, const ImageAllocator& alloc = nullptr);

/*!
 * \brief Encodes an image (BGR, BGRA or gray; 8-bit, PNG also 16-bit) as `ext` (".jpg",
 *        ".jpeg" or ".png", any case). quality: JPEG quality (clamped to 1-100; BGRA loses its
 *        alpha), or the PNG compression level (clamped to 0-9). ValueError on an empty image,
 *        another channel count or depth, or another extension.
 */
std::vector<uint8_t> EncodeImage(const cv::Mat& bgr, const std::string& ext, int quality);

/*!
 * \brief MXNet's interpolation codes as cv::INTER_*: 0 nearest, 1 bilinear, 2 bicubic,
 *        3 area, 4 Lanczos (the same numbers); 9 picks by direction (bicubic to enlarge, area
 *        to shrink, bilinear otherwise); 10 picks one of 0-4 at random from `rng` (a
 *        thread-local engine when null). Any other value is a ValueError.
 */
int InterpolationFlag(int inter_method, int src_w, int src_h, int dst_w, int dst_h, std::mt19937* rng);

/*! \brief OpenCV's worker threads for this process (cv::setNumThreads; 0 = single-threaded). */
void SetCodecThreads(int n);
/*! \brief The threads OpenCV uses: 0 after SetCodecThreads(0), else cv::getNumThreads(). */
int CodecThreads();

/*! \brief cv depth (CV_8U, CV_32F, ...) of an mxnet dtype; ValueError naming `what` if none. */
int CvDepthOf(int mxnet_dtype, const std::string& what);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
#endif  // MXNET_IO_IMAGE_CODEC_H_
