// ThreadedEngine (pooled): one FIFO queue served by a fixed pool for every device, plus an
// IO thread for host<->GPU copies. GPU ops get a stream from a small per-device set,
// assigned round robin, as MXNet's stream manager does.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/device_backend.h"
#include "engine/thread_policy.h"
#include "engine/threaded_engine.h"
#include "engine/worker_pool.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {

namespace {

constexpr int kMaxGPUs = 16;
constexpr int kStreamsPerGPU = 16;

/*! \brief Compute streams per GPU (created on first use) and one IO stream per GPU. */
class StreamManager {
 public:
  explicit StreamManager(DeviceBackend* backend) : backend_(backend) {}
  ~StreamManager() {
    for (int d = 0; d < kMaxGPUs; ++d) {
      for (void* s : compute_[d]) backend_->DestroyStream(d, s);
      if (io_[d]) backend_->DestroyStream(d, io_[d]);
    }
  }
  RunContext Compute(const Context& ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& streams = compute_[ctx.dev_id];
    if (streams.empty()) {
      for (int i = 0; i < kStreamsPerGPU; ++i) streams.push_back(backend_->CreateStream(ctx.dev_id));
    }
    void* s = streams[next_[ctx.dev_id]++ % kStreamsPerGPU];
    return RunContext{ctx, s, s};
  }
  RunContext IO(const Context& ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!io_[ctx.dev_id]) io_[ctx.dev_id] = backend_->CreateStream(ctx.dev_id);
    return RunContext{ctx, io_[ctx.dev_id], io_[ctx.dev_id]};
  }

 private:
  DeviceBackend* backend_;
  std::mutex mu_;
  std::array<std::vector<void*>, kMaxGPUs> compute_;
  std::array<void*, kMaxGPUs> io_{};
  std::array<unsigned, kMaxGPUs> next_{};
};

class ThreadedEnginePooled final : public ThreadedEngine {
 public:
  explicit ThreadedEnginePooled(const EngineConfig& config) : ThreadedEngine(config), streams_(backend()) {
    StartWorkers();
    RegisterLive();
  }
  ~ThreadedEnginePooled() override { ShutdownAndUnregister(); }

 protected:
  void CheckContext(const Context& ctx) override {
    ThreadedEngine::CheckContext(ctx);
    if (ctx.dev_type == Context::kGPU) {
      MX_CHECK_KIND(ctx.dev_id < kMaxGPUs, "MXNetError")
          << "Cannot run an operation on " << ctx.ToString() << ": ThreadedEngine supports up to " << kMaxGPUs
          << " GPUs; use ThreadedEnginePerDevice.";
    }
  }

  void PushToExecute(OprBlock* block, bool pusher_thread) override {
    const FnProperty prop = block->opr->prop;
    if (pusher_thread && prop == FnProperty::kAsync) {
      if (block->ctx.dev_type == Context::kGPU) backend()->SetDevice(block->ctx.dev_id);
      ExecuteOprBlock(RunContext{block->ctx}, block);
      return;
    }
    bool io = prop == FnProperty::kCopyFromGPU || prop == FnProperty::kCopyToGPU;
    Pools()[io ? 1 : 0]->Push(block);
  }

  void StartWorkers() override { Pools(); }

  void StopWorkers() override {
    std::lock_guard<std::mutex> lock(mu_);
    delete workers_.exchange(nullptr);
    delete io_workers_.exchange(nullptr);
  }

  void SyncStream(const RunContext& rctx) override {
    if (rctx.ctx.dev_type == Context::kGPU && rctx.stream) backend()->SyncStream(rctx.stream);
  }

 private:
  /*! \brief {compute pool, IO pool}, (re)created on first use after a Stop. */
  std::array<WorkerPool*, 2> Pools() {
    WorkerPool* w = workers_.load(std::memory_order_acquire);
    WorkerPool* io = io_workers_.load(std::memory_order_acquire);
    if (w && io) return {w, io};
    std::lock_guard<std::mutex> lock(mu_);
    if (!workers_.load()) {
      workers_.store(new WorkerPool(config_.pooled_worker_threads, false,
                                    [this](int, TaskQueue<OprBlock*>* q) { Worker(q, false); }));
    }
    if (!io_workers_.load()) {
      io_workers_.store(
          new WorkerPool(config_.pooled_io_threads, false, [this](int, TaskQueue<OprBlock*>* q) { Worker(q, true); }));
    }
    return {workers_.load(), io_workers_.load()};
  }

  void Worker(TaskQueue<OprBlock*>* queue, bool io) {
    EnterWorkerThread();
    SetOmpThreadsForThisThread(config_.omp_threads_per_worker);
    OprBlock* block;
    while (queue->Pop(&block)) {
      const Context& ctx = block->ctx;
      if (ctx.dev_type != Context::kGPU) {
        ExecuteOprBlock(RunContext{ctx}, block);
        continue;
      }
      RunContext rctx;
      try {
        backend()->SetDevice(ctx.dev_id);
        rctx = io ? streams_.IO(ctx) : streams_.Compute(ctx);
      } catch (...) {
        FailOprBlock(block, std::current_exception());
        continue;
      }
      ExecuteOprBlock(rctx, block);
    }
  }

  StreamManager streams_;
  std::mutex mu_;
  std::atomic<WorkerPool*> workers_{nullptr};
  std::atomic<WorkerPool*> io_workers_{nullptr};
};

}  // namespace

std::unique_ptr<Engine> CreateThreadedEnginePooled(const EngineConfig& config) {
  return std::make_unique<ThreadedEnginePooled>(config);
}

}  // namespace engine
}  // namespace mxnet
