/*!
 * \file iter_image_recordio.h
 * \brief ImageRecordIter (and the uint8/int8 variants): batches of decoded, augmented images
 *        from a RecordIO file. The pieces, each in its own file:
 *        - iter_image_recordio_param.h / image_aug_param.h: parameters;
 *        - iter_image_recordio_plan.h: sharding, per-epoch order, round_batch (the batch plan);
 *        - iter_image_recordio_pipeline.h: worker threads, bounded prefetch queue;
 *        - iter_image_recordio_decoder.h: record -> labels + decoded image -> slot;
 *        - iter_image_recordio_lst.h: labels from a .lst;
 *        - image_aug.h: augmentation; iter_image_recordio_normalize.h, iter_image_recordio_mean.h:
 *          normalisation and the mean image;
 *        - iter_image_recordio_threads.h: how many decode threads.
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_H_

#include <memory>
#include <string>

#include "io/data_iter.h"
#include "io/iter_image_recordio_pipeline.h"
#include "io/iter_image_recordio_plan.h"

namespace mxnet {
namespace io {

class ImageRecordIter : public DataIter {
 public:
  /*!
   * \brief forced_dtype < 0: the dtype parameter decides and the normalisation parameters are
   *        accepted (ImageRecordIter); kUint8 / kInt8: the deprecated fixed-type iterators,
   *        which take no normalisation parameters but mirror and rand_mirror.
   */
  ImageRecordIter(const char* name, int forced_dtype);
  ~ImageRecordIter() override;
  void Init(const IterKwargs& kwargs) override;
  void BeforeFirst() override;
  bool Next() override;
  const DataBatch& Value() const override { return out_; }
  /*! \brief Decode threads in use (0 before Init). */
  int threads() const { return pipeline_ ? pipeline_->threads() : 0; }

 private:
  std::string name_;
  int forced_dtype_;
  RecordShard shard_;
  std::unique_ptr<BatchPlanner> planner_;
  std::unique_ptr<ImageBatchPipeline> pipeline_;  // after planner_: destroyed (joined) first
  DataBatch out_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_H_
