/*!
 * \file iter_image_recordio_plan.h
 * \brief Which records ImageRecordIter reads, in which order, batch by batch. No pixels here:
 *        the plan is computed on the consumer's side of the pipeline and is the same whatever
 *        the thread count, which is what makes the output deterministic.
 *        - Sharding: the file's records (from the .idx, else a scan of the framing) are split
 *          by count; part k gets a contiguous run, the first (n % parts) parts one more.
 *        - Order: file order, or with shuffle a permutation seeded by (seed, epoch), drawn anew
 *          every epoch. Without an .idx the scanned offsets are shuffled the same way (MXNet
 *          only shuffled within chunks there).
 *        - Batches (round_batch): a short last batch is completed from the next epoch's order
 *          (pad = how many) and the following pass continues after them; without round_batch
 *          it holds only the remaining images (pad = how many are missing).
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_PLAN_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace io {

/*! \brief One shard of a .rec file. */
struct RecordShard {
  std::vector<uint64_t> offsets;  // record starts of this part, in file order
  uint64_t first_position = 0;    // index in the file of offsets[0]
  uint64_t file_records = 0;      // records in the whole file
};

/*!
 * \brief Reads the .idx (key \t offset per line) or, when idx_path is empty, scans the .rec;
 *        returns part part_index of num_parts. Errors name the file (and line of an .idx).
 */
RecordShard LoadRecordShard(const std::string& rec_path, const std::string& idx_path, int num_parts,
                            int part_index);

/*! \brief One image to produce: where its record is, its index in the file, its epoch. */
struct PlannedImage {
  uint64_t offset = 0;
  uint64_t position = 0;
  uint64_t epoch = 0;
};

struct PlannedBatch {
  std::vector<PlannedImage> images;  // at most batch_size; fewer only for a short last batch
  int pad = 0;
};

/*! \brief A 64-bit mix of the inputs (splitmix64 chain), for seeding per-epoch and per-image RNGs. */
uint64_t MixSeed(uint64_t a, uint64_t b, uint64_t c);

class BatchPlanner {
 public:
  /*! \brief shard must outlive the planner and hold at least batch_size records. */
  BatchPlanner(const RecordShard* shard, int batch_size, bool round_batch, bool shuffle, uint64_t shuffle_seed);
  /*! \brief The next batch of this pass; false once the pass is over. */
  bool Plan(PlannedBatch* out);
  /*!
   * \brief Starts the next pass. pass_consumed: the consumer took the pass's last batch, so a
   *        wrap-around carries over; otherwise (a reset mid-pass) the new pass starts at 0.
   */
  void BeforeFirst(bool pass_consumed);
  uint64_t epoch() const { return epoch_; }
  /*! \brief Whether the batch just planned was the pass's last. */
  bool pass_done() const { return done_; }

 private:
  const std::vector<uint32_t>& Order(uint64_t epoch);
  PlannedImage At(uint64_t epoch, size_t i);

  const RecordShard* shard_;
  size_t n_;
  size_t batch_size_;
  bool round_batch_, shuffle_;
  uint64_t seed_;
  uint64_t epoch_ = 0;
  size_t pos_ = 0;        // next index into this epoch's order
  size_t overflow_ = 0;   // images the last batch took from the next epoch
  bool done_ = false;     // the pass has produced its last batch
  // The permutations of two epochs at most are needed at once (a wrapping batch).
  uint64_t cached_epoch_[2] = {UINT64_MAX, UINT64_MAX};
  std::vector<uint32_t> cached_order_[2];
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_PLAN_H_
