/*!
 * \file iter_image_recordio_decoder.h
 * \brief One image of ImageRecordIter from its record: read, parse header and labels, decode,
 *        augment, normalise into the batch slot. One decoder per worker thread (it owns a file
 *        reader); the shared configuration is read-only.
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_DECODER_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_DECODER_H_

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "io/image_aug.h"
#include "io/iter_image_recordio_pipeline.h"
#include "io/iter_image_recordio_lst.h"
#include "io/iter_image_recordio_normalize.h"
#include "io/recordio.h"

namespace mxnet {
namespace io {

struct ImageDecodeConfig {
  std::string rec_path;
  int channels = 3;
  int label_width = 1;
  uint64_t aug_seed = 0;  // with the image's epoch and position, seeds its RNG
  std::shared_ptr<const ImageLabelList> label_list;  // null: labels from the records
  std::shared_ptr<const ImageAugmenter> augmenter;
  std::shared_ptr<const ImageNormalizer> normalizer;  // null: Load only (mean image pass)
};

class ImageRecordDecoder : public SlotFiller {
 public:
  explicit ImageRecordDecoder(std::shared_ptr<const ImageDecodeConfig> config);
  /*! \brief Load, then normalise into data. */
  void Fill(const PlannedImage& image, void* data, float* label) override;
  /*!
   * \brief The augmented image (out_h x out_w, 8-bit, OpenCV channel order) and, when label is
   *        not null, its label_width labels. *rng is seeded for the image. Errors name the
   *        record, its offset and the file.
   */
  cv::Mat Load(const PlannedImage& image, float* label, std::mt19937* rng);
  /*! \brief The generator an image's augmentation draws from. */
  static std::mt19937 ImageRng(uint64_t aug_seed, const PlannedImage& image);

 private:
  void Labels(uint64_t image_id, const std::vector<float>& labels, float header_label, uint32_t flag, float* out,
              const std::string& what) const;

  std::shared_ptr<const ImageDecodeConfig> c_;
  std::unique_ptr<RecordIOReader> reader_;
  std::string record_;
  std::vector<float> labels_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_DECODER_H_
