#include "io/iter_image_recordio_pipeline.h"

#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <system_error>

#include "common/shutdown.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {
// Live pipelines, so MXNotifyShutdown can join their threads before the engine goes.
std::mutex g_live_mu;
std::set<ImageBatchPipeline*>* LiveSet() {
  static auto* live = new std::set<ImageBatchPipeline*>();  // never destroyed: outlives every pipeline
  return live;
}
void RegisterHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    common::RegisterShutdownHandler(&ImageBatchPipeline::StopAll);
    pthread_atfork(&ImageBatchPipeline::PrepareFork, &ImageBatchPipeline::AfterForkParent,
                   &ImageBatchPipeline::AfterForkChild);
  });
}
}  // namespace

ImageBatchPipeline::ImageBatchPipeline(const BatchLayout& layout, BatchPlanner* planner, int threads, int prefetch,
                                       FillerFactory make_filler)
    : layout_(layout),
      planner_(planner),
      prefetch_(static_cast<size_t>(std::max(1, prefetch))),
      make_filler_(std::move(make_filler)),
      owner_pid_(getpid()) {
  MX_CHECK(layout_.data_shape.ndim() >= 1 && layout_.label_shape.ndim() >= 1 &&
           layout_.data_shape[0] == layout_.label_shape[0])
      << "batch layout: data " << layout_.data_shape << " and label " << layout_.label_shape
      << " must share the batch size";
  const int64_t batch = layout_.data_shape[0];
  slot_bytes_ = static_cast<size_t>(layout_.data_shape.Size() / batch) * DTypeSize(layout_.dtype);
  label_width_ = static_cast<size_t>(layout_.label_shape.Size() / batch);
  RegisterHandlersOnce();
  {
    std::lock_guard<std::mutex> lk(g_live_mu);
    LiveSet()->insert(this);
  }
  workers_.reserve(static_cast<size_t>(std::max(1, threads)));
  try {
    for (int i = 0; i < std::max(1, threads); ++i) workers_.emplace_back([this] { Work(); });
  } catch (const std::system_error& e) {
    // Out of threads: join the ones started, so the failed construction leaves nothing behind.
    Stop();
    std::lock_guard<std::mutex> lk(g_live_mu);
    LiveSet()->erase(this);
    MX_THROW("MXNetError") << "cannot start " << threads << " image decoding threads: " << e.what();
  }
}

ImageBatchPipeline::~ImageBatchPipeline() {
  {
    std::lock_guard<std::mutex> lk(g_live_mu);
    LiveSet()->erase(this);
  }
  if (getpid() != owner_pid_) {
    // A forked child has none of these threads; joining the parent's would be undefined.
    new std::vector<std::thread>(std::move(workers_));  // leaked on purpose
    return;
  }
  Stop();
}

void ImageBatchPipeline::StopAll() {
  std::lock_guard<std::mutex> lk(g_live_mu);
  for (ImageBatchPipeline* p : *LiveSet()) {
    if (getpid() != p->owner_pid_) continue;
    {
      std::lock_guard<std::mutex> plk(p->mu_);
      p->shut_down_ = true;
    }
    p->Stop();
  }
}

void ImageBatchPipeline::PrepareFork() {
  // g_live_mu stays locked across fork(), so no pipeline starts or ends meanwhile; both sides
  // unlock it (in the child the forking thread is the only thread, and it holds the lock).
  g_live_mu.lock();
  for (ImageBatchPipeline* p : *LiveSet()) {
    if (getpid() != p->owner_pid_) continue;
    std::unique_lock<std::mutex> lk(p->mu_);
    p->fork_paused_ = true;
    p->idle_cv_.wait(lk, [p] { return p->busy_ == 0; });
  }
}

void ImageBatchPipeline::AfterForkParent() {
  for (ImageBatchPipeline* p : *LiveSet()) {
    if (getpid() != p->owner_pid_) continue;
    {
      std::lock_guard<std::mutex> lk(p->mu_);
      p->fork_paused_ = false;
    }
    p->work_cv_.notify_all();
  }
  g_live_mu.unlock();
}

void ImageBatchPipeline::AfterForkChild() { g_live_mu.unlock(); }

void ImageBatchPipeline::Stop() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
    queue_.clear();
  }
  work_cv_.notify_all();
  ready_cv_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
  workers_.clear();
}

void ImageBatchPipeline::CheckSameProcess() const {
  MX_CHECK(getpid() == owner_pid_) << "an ImageRecordIter cannot be used in a process forked from the one that "
                                      "created it; create the iterator in this process";
}

void ImageBatchPipeline::Allocate(Pending* p) const {
  const int64_t batch = layout_.data_shape[0];
  p->data = NDArray(layout_.data_shape, layout_.ctx, false, layout_.dtype);
  p->label = NDArray(layout_.label_shape, layout_.ctx, false, kFloat32);
  p->data_ptr = static_cast<uint8_t*>(p->data.data().dptr_);
  p->label_ptr = static_cast<float*>(p->label.data().dptr_);
  // A short last batch (round_batch off): the missing rows are zeros, not stale memory.
  const size_t n = p->plan.images.size();
  if (n < static_cast<size_t>(batch)) {
    std::memset(p->data_ptr + n * slot_bytes_, 0, (batch - n) * slot_bytes_);
    std::memset(p->label_ptr + n * label_width_, 0, (batch - n) * label_width_ * sizeof(float));
  }
}

void ImageBatchPipeline::Work() {
  std::unique_ptr<SlotFiller> filler;
  std::unique_lock<std::mutex> lk(mu_);
  while (!stop_) {
    if (fork_paused_) {
      work_cv_.wait(lk);
      continue;
    }
    // 1. A slot of the oldest batch that has one left.
    std::shared_ptr<Pending> job;
    size_t slot = 0;
    for (const auto& p : queue_) {
      if (p->writable && p->claimed < p->plan.images.size()) {
        job = p;
        slot = p->claimed++;
        break;
      }
    }
    if (job) {
      const uint64_t gen = generation_;
      ++busy_;
      lk.unlock();
      std::exception_ptr error;
      try {
        if (!filler) filler = make_filler_();
        filler->Fill(job->plan.images[slot], job->data_ptr + slot * slot_bytes_, job->label_ptr + slot * label_width_);
      } catch (...) {
        error = std::current_exception();
      }
      lk.lock();
      if (--busy_ == 0) idle_cv_.notify_all();
      if (error && slot < job->error_slot) {
        job->error = error;
        job->error_slot = slot;
      }
      ++job->done;
      if (gen == generation_ && job->complete()) ready_cv_.notify_all();
      continue;
    }
    // 2. Room ahead of the consumer: plan the next batch (under the lock, so the order is the
    //    planner's alone), then allocate its arrays outside it.
    if (!exhausted_ && queue_.size() < prefetch_) {
      auto p = std::make_shared<Pending>();
      if (!planner_->Plan(&p->plan)) {
        exhausted_ = true;
        ready_cv_.notify_all();
        continue;
      }
      p->last = planner_->pass_done();
      exhausted_ = p->last;  // nothing follows the pass's last batch
      queue_.push_back(p);
      const uint64_t gen = generation_;
      ++busy_;
      lk.unlock();
      std::exception_ptr error;
      try {
        Allocate(p.get());
      } catch (...) {
        error = std::current_exception();
      }
      lk.lock();
      if (--busy_ == 0) idle_cv_.notify_all();
      if (error) {
        // No slot can be filled: the batch completes at once and reports the failure.
        p->error = error;
        p->error_slot = 0;
        p->claimed = p->done = p->plan.images.size();
      }
      p->writable = true;
      if (gen == generation_) {
        work_cv_.notify_all();
        if (p->complete()) ready_cv_.notify_all();
      }
      continue;
    }
    work_cv_.wait(lk);
  }
}

bool ImageBatchPipeline::Next(DataBatch* out) {
  CheckSameProcess();
  std::shared_ptr<Pending> p;
  {
    std::unique_lock<std::mutex> lk(mu_);
    MX_CHECK(!shut_down_) << "the runtime has shut down (MXNotifyShutdown); data iterators no longer run";
    ready_cv_.wait(lk, [&] { return stop_ || (!queue_.empty() && queue_.front()->complete()) || (queue_.empty() && exhausted_); });
    MX_CHECK(!stop_) << "the ImageRecordIter pipeline was stopped";
    if (queue_.empty()) {
      pass_consumed_ = true;
      return false;
    }
    p = queue_.front();
    queue_.pop_front();
    if (p->last) pass_consumed_ = true;
  }
  work_cv_.notify_all();  // room to plan one more
  if (p->error) std::rethrow_exception(p->error);
  out->data.assign(1, p->data);
  out->label.assign(1, p->label);
  out->index.clear();
  out->num_batch_padd = p->plan.pad;
  return true;
}

void ImageBatchPipeline::BeforeFirst() {
  CheckSameProcess();
  {
    std::lock_guard<std::mutex> lk(mu_);
    MX_CHECK(!shut_down_) << "the runtime has shut down (MXNotifyShutdown); data iterators no longer run";
    // Slots in flight keep their own reference to their batch and finish into it unseen.
    queue_.clear();
    ++generation_;
    planner_->BeforeFirst(pass_consumed_);
    pass_consumed_ = false;
    exhausted_ = false;
  }
  work_cv_.notify_all();
}

}  // namespace io
}  // namespace mxnet
