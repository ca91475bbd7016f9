/*!
 * \file iter_image_recordio_param.h
 * \brief The non-augmentation parameters of ImageRecordIter (names and defaults as in
 *        MXNet 1.x): where the records are, how they are batched, and how batches are
 *        prefetched. Augmentation and normalisation parameters are in image_aug_param.h.
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_PARAM_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <string>

#include "mxnet/op.h"  // dmlc::Parameter support for TShape fields
#include "mxnet/tensor.h"

namespace mxnet {
namespace io {

/*! \brief Source files, sharding, threads and per-image seeding. */
struct ImageRecParserParam : public dmlc::Parameter<ImageRecParserParam> {
  std::string path_imgrec, path_imglist, path_imgidx, aug_seq;
  int label_width;
  TShape data_shape;
  int preprocess_threads;
  bool verbose;
  int num_parts, part_index, device_id;
  int64_t shuffle_chunk_size;
  int shuffle_chunk_seed;
  dmlc::optional<int> seed_aug;
  DMLC_DECLARE_PARAMETER(ImageRecParserParam) {
    DMLC_DECLARE_FIELD(path_imgrec).describe("The RecordIO (.rec) file of packed images.");
    DMLC_DECLARE_FIELD(path_imglist).set_default("")
        .describe("Optional .lst file (index, labels..., path per line) whose labels replace the records' own.");
    DMLC_DECLARE_FIELD(path_imgidx).set_default("")
        .describe("Optional .idx file with each record's offset; without it the .rec is scanned once.");
    DMLC_DECLARE_FIELD(aug_seq).set_default("aug_default").describe("Augmenter list; only aug_default exists.");
    DMLC_DECLARE_FIELD(label_width).set_default(1).set_lower_bound(1).describe("Number of labels per image.");
    DMLC_DECLARE_FIELD(data_shape).describe("Output image shape (channels, height, width); channels 1, 3 or 4.");
    DMLC_DECLARE_FIELD(preprocess_threads).set_default(4).set_lower_bound(1)
        .describe("Threads decoding and augmenting images.");
    DMLC_DECLARE_FIELD(verbose).set_default(true).describe("Log what the iterator set up.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).set_lower_bound(1).describe("Number of shards of the records.");
    DMLC_DECLARE_FIELD(part_index).set_default(0).set_lower_bound(0).describe("Which shard this iterator reads.");
    DMLC_DECLARE_FIELD(device_id).set_default(0).set_lower_bound(-1)
        .describe("GPU whose pinned host memory holds the batches (-1: plain cpu memory).");
    DMLC_DECLARE_FIELD(shuffle_chunk_size).set_default(0).set_lower_bound(0)
        .describe("Accepted for compatibility: a value > 0 shuffles the records (see shuffle).");
    DMLC_DECLARE_FIELD(shuffle_chunk_seed).set_default(0).describe("Seed of the shuffle_chunk_size shuffle.");
    DMLC_DECLARE_FIELD(seed_aug).set_default(dmlc::optional<int>())
        .describe("Seed of the random augmentation; None derives it from seed.");
  }
};

/*! \brief Record order and batching. */
struct ImageRecordParam : public dmlc::Parameter<ImageRecordParam> {
  bool shuffle;
  int seed;
  int batch_size;
  bool round_batch;
  DMLC_DECLARE_PARAMETER(ImageRecordParam) {
    DMLC_DECLARE_FIELD(shuffle).set_default(false).describe("Visit the records in a new random order every epoch.");
    DMLC_DECLARE_FIELD(seed).set_default(0).describe("Seed of the shuffle (and of augmentation unless seed_aug).");
    DMLC_DECLARE_FIELD(batch_size).set_lower_bound(1).describe("Images per batch.");
    DMLC_DECLARE_FIELD(round_batch).set_default(true)
        .describe("Fill the last batch by wrapping to the start (pad = images wrapped).");
  }
};

/*! \brief Output type, memory and prefetch depth. */
struct ImageRecPrefetchParam : public dmlc::Parameter<ImageRecPrefetchParam> {
  int prefetch_buffer;
  int ctx;
  dmlc::optional<int> dtype;
  DMLC_DECLARE_PARAMETER(ImageRecPrefetchParam) {
    DMLC_DECLARE_FIELD(prefetch_buffer).set_default(4).set_lower_bound(1).describe("Batches prepared ahead.");
    DMLC_DECLARE_FIELD(ctx).add_enum("cpu", 0).add_enum("gpu", 1).set_default(1)
        .describe("Where the batches go next: gpu puts them in pinned host memory.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float32", kFloat32).add_enum("uint8", kUint8).add_enum("int8", kInt8)
        .set_default(dmlc::optional<int>())
        .describe("Output data type; None is float32.");
  }
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_PARAM_H_
