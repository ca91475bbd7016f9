/*!
 * \file image_codec.h
 * \brief Image decoding, encoding and the choice of resize interpolation, on OpenCV. The one
 *        place the runtime calls OpenCV's codecs: mx.image, the image operators and the
 *        record iterators all decode through here, so errors read the same everywhere.
 */
#ifndef MXNET_IO_IMAGE_CODEC_H_
#define MXNET_IO_IMAGE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

namespace mxnet {
namespace io {

/*!
 * \brief Decodes an encoded image (JPEG, PNG, BMP, ...). flag: 0 gray (1 channel), 1 colour
 *        (3 channels, BGR), -1 as stored (may be 16-bit or have alpha). Throws mxnet::Error
 *        naming `what` (e.g. "record 17 of /x/train.rec") when the buffer is empty or not a
 *        decodable image; ValueError for another flag.
 */
cv::Mat DecodeImage(const void* data, size_t size, int flag, const std::string& what);

/*!
 * \brief Encodes an image (BGR or gray, 8-bit; PNG also 16-bit) as `ext` (".jpg", ".jpeg",
 *        ".png", or any other extension OpenCV writes). quality: JPEG quality 0-100, or the
 *        PNG compression level 0-9 (OpenCV clamps larger values). ValueError on an empty image
 *        or an extension OpenCV cannot write.
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
