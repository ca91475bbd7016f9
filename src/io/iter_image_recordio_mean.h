/*!
 * \file iter_image_recordio_mean.h
 * \brief ImageRecordIter's mean_img: a per-pixel mean (c, h, w) of the augmented images,
 *        stored as an NDArray file under the name "mean_img". Loaded when the file exists,
 *        else computed over the iterator's shard and saved.
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_MEAN_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_MEAN_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "io/iter_image_recordio_plan.h"

namespace mxnet {
namespace io {

class ImageRecordDecoder;

/*! \brief The first array of the file, which must be float32 of shape (c, h, w). */
std::vector<float> LoadMeanImage(const std::string& path, int c, int h, int w);
/*! \brief Writes {"mean_img": (c, h, w) float32} atomically (temporary file, rename). */
void SaveMeanImage(const std::string& path, const std::vector<float>& mean, int c, int h, int w);

#if MXNET_USE_OPENCV
/*!
 * \brief The mean over every record of the shard (file order, epoch-independent augmentation),
 *        on `threads` threads each with its own decoder; the sums of 8-bit pixels in double are
 *        exact, so the result does not depend on the thread count.
 */
std::vector<float> ComputeMeanImage(const RecordShard& shard, int threads, int c, int h, int w, uint64_t aug_seed,
                                    const std::function<std::unique_ptr<ImageRecordDecoder>()>& make_decoder);
#endif

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_MEAN_H_
