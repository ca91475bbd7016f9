/*!
 * \file iter_image_recordio_pipeline.h
 * \brief The threads behind ImageRecordIter: a pool of std::threads fills planned batches slot
 *        by slot, straight into the batch's own arrays, and keeps up to `prefetch` batches
 *        ahead of the consumer.
 *
 *        Why std::thread rather than OpenMP: the pool must outlive one call (it prefetches while
 *        the caller trains), stop and join at any moment (reset, destruction, MXNotifyShutdown),
 *        and work in a process forked from one that used OpenMP (a DataLoader worker), where
 *        GNU OpenMP's inherited pool is unusable.
 *
 *        - Planning (which records, in which order) happens under the lock from a BatchPlanner,
 *          so batch contents never depend on thread timing; the filler must make each slot's
 *          result depend only on its PlannedImage (one RNG per image).
 *        - Workers claim slots of the oldest unfinished batch first, so the head of the queue
 *          completes first.
 *        - Every batch gets new arrays (pooled storage recycles the memory); a batch the caller
 *          holds is never written again (data_iter.h).
 *        - An exception thrown for a slot is re-thrown by the Next() that returns its batch
 *          (the lowest failing slot's, so the message is the same for any thread count).
 *        - BeforeFirst() drops what was read ahead without waiting: slots in flight finish into
 *          arrays nobody will see. The destructor joins the workers after their current slot.
 *        - fork(): the workers finish their slot and park before the fork (no lock of the
 *          storage pool or a codec is held by a thread the child will not have), and resume
 *          in the parent. In the child the pipeline refuses to run.
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_PIPELINE_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_PIPELINE_H_

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "io/data_iter.h"
#include "io/iter_image_recordio_plan.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace io {

/*! \brief Produces one image into its slot; one per worker thread (need not be thread-safe). */
class SlotFiller {
 public:
  virtual ~SlotFiller() = default;
  /*! \brief data: the slot's first element (dtype of the batch); label: label_width floats. */
  virtual void Fill(const PlannedImage& image, void* data, float* label) = 0;
};

struct BatchLayout {
  TShape data_shape;   // (batch, c, h, w)
  int dtype = 0;
  TShape label_shape;  // (batch,) or (batch, label_width)
  Context ctx;
};

class ImageBatchPipeline {
 public:
  using FillerFactory = std::function<std::unique_ptr<SlotFiller>()>;
  /*! \brief Starts `threads` workers; the planner (and what it points to) must outlive this. */
  ImageBatchPipeline(const BatchLayout& layout, BatchPlanner* planner, int threads, int prefetch,
                     FillerFactory make_filler);
  ~ImageBatchPipeline();
  ImageBatchPipeline(const ImageBatchPipeline&) = delete;
  ImageBatchPipeline& operator=(const ImageBatchPipeline&) = delete;

  /*! \brief The next batch into *out; false at the end of the pass. Blocks until it is ready. */
  bool Next(DataBatch* out);
  /*! \brief Drops read-ahead batches and starts the planner's next pass. */
  void BeforeFirst();
  int threads() const { return static_cast<int>(workers_.size()); }

  /*! \brief Stops every live pipeline (MXNotifyShutdown). */
  static void StopAll();
  /*! \brief pthread_atfork handlers: park every live pipeline's workers, release them. */
  static void PrepareFork();
  static void AfterForkParent();
  static void AfterForkChild();

 private:
  struct Pending {
    PlannedBatch plan;
    bool last = false;      // the pass's last batch
    bool writable = false;  // arrays allocated: slots may be claimed
    NDArray data, label;
    uint8_t* data_ptr = nullptr;
    float* label_ptr = nullptr;
    size_t claimed = 0, done = 0;
    std::exception_ptr error;
    size_t error_slot = SIZE_MAX;
    bool complete() const { return writable && done == plan.images.size(); }
  };
  void Work();
  void Allocate(Pending* p) const;
  void Stop();
  void CheckSameProcess() const;

  BatchLayout layout_;
  size_t slot_bytes_, label_width_;
  BatchPlanner* planner_;
  size_t prefetch_;
  FillerFactory make_filler_;
  pid_t owner_pid_;

  std::mutex mu_;
  std::condition_variable work_cv_;   // workers: a slot to claim, room to plan, or stop
  std::condition_variable ready_cv_;  // consumer: head batch complete, pass over, or stop
  std::condition_variable idle_cv_;   // PrepareFork: no worker outside the lock
  std::deque<std::shared_ptr<Pending>> queue_;  // planned, not yet returned, in order
  uint64_t generation_ = 0;  // bumped by BeforeFirst: older slots are discarded
  bool exhausted_ = false;   // the planner has no more batches this pass
  bool pass_consumed_ = false;
  bool stop_ = false;
  bool shut_down_ = false;
  bool fork_paused_ = false;  // between PrepareFork and AfterForkParent
  int busy_ = 0;              // workers filling a slot or allocating, outside the lock
  std::vector<std::thread> workers_;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_PIPELINE_H_
