// ThreadedEnginePerDevice (the default): worker pools per device and kind of work, each
// created on first use: CPU workers per CPU device, one CPU priority pool, and per GPU a
// compute pool, a priority pool and a copy pool whose threads each own their streams.
#include <array>
#include <mutex>

#include "engine/cpu_load.h"
#include "engine/device_backend.h"
#include "engine/thread_policy.h"
#include "engine/threaded_engine.h"
#include "engine/worker_pool.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {

namespace {

constexpr int kMaxDevices = 64;

class ThreadedEnginePerDevice final : public ThreadedEngine {
 public:
  explicit ThreadedEnginePerDevice(const EngineConfig& config) : ThreadedEngine(config) {
    StartWorkers();
    RegisterLive();
  }
  ~ThreadedEnginePerDevice() override { ShutdownAndUnregister(); }

 protected:
  void CheckContext(const Context& ctx) override {
    ThreadedEngine::CheckContext(ctx);
    MX_CHECK_KIND(ctx.dev_id >= 0 && ctx.dev_id < kMaxDevices, "MXNetError")
        << "Cannot run an operation on " << ctx.ToString() << ": device ids range from 0 to " << kMaxDevices - 1 << ".";
  }

  void PushToExecute(OprBlock* block, bool pusher_thread) override {
    const Context& ctx = block->ctx;
    const FnProperty prop = block->opr->prop;
    // Async launches and deletions are cheap: when ready at push time they run right here.
    if (pusher_thread && (prop == FnProperty::kAsync || prop == FnProperty::kDeleteVar)) {
      RunContext rctx{ctx};
      if (ctx.dev_type == Context::kGPU) backend()->SetDevice(ctx.dev_id);
      ExecuteOprBlock(rctx, block);
      return;
    }
    // An operator's computation on the CPU, ready, with nothing else in flight: handing it to
    // a worker would only add a thread switch each way and leave the pusher competing with
    // the worker's OpenMP team for the cores (LeNet's training step on 2 cores: 14.9 ms
    // through the worker against 13.3 ms here). Ops pushed while others are in flight still
    // queue, so a frontend that runs ahead keeps overlapping its work with theirs.
    if (pusher_thread && ctx.dev_type != Context::kGPU && prop == FnProperty::kCompute &&
        config_.run_idle_cpu_ops_inline && !OnWorkerThread() && OnlyOpInFlight()) {
      ExecuteInline(block);
      return;
    }
    if (ctx.dev_type != Context::kGPU) {
      if (prop == FnProperty::kCPUPrioritized) {
        Pool(&cpu_priority_, 0, Kind::kCPUPriority)->Push(block);
      } else {
        Pool(&cpu_normal_[ctx.dev_id], ctx.dev_id, Kind::kCPU)->Push(block);
      }
    } else if (prop == FnProperty::kCopyFromGPU || prop == FnProperty::kCopyToGPU) {
      Pool(&gpu_copy_[ctx.dev_id], ctx.dev_id, Kind::kGPUCopy)->Push(block);
    } else if (prop == FnProperty::kGPUPrioritized) {
      Pool(&gpu_priority_[ctx.dev_id], ctx.dev_id, Kind::kGPUPriority)->Push(block);
    } else {
      Pool(&gpu_normal_[ctx.dev_id], ctx.dev_id, Kind::kGPU)->Push(block);
    }
  }

  void StartWorkers() override {
    // MXNet creates the CPU priority pool at start; the others on first use.
    Pool(&cpu_priority_, 0, Kind::kCPUPriority);
  }

  void StopWorkers() override {
    std::lock_guard<std::mutex> lock(create_mu_);
    auto stop = [](std::atomic<WorkerPool*>* slot) { delete slot->exchange(nullptr); };
    stop(&cpu_priority_);
    for (int i = 0; i < kMaxDevices; ++i) {
      stop(&cpu_normal_[i]);
      stop(&gpu_normal_[i]);
      stop(&gpu_priority_[i]);
      stop(&gpu_copy_[i]);
    }
  }

  void SyncStream(const RunContext& rctx) override {
    if (rctx.ctx.dev_type == Context::kGPU && rctx.stream) backend()->SyncStream(rctx.stream);
  }

 private:
  enum class Kind { kCPU, kCPUPriority, kGPU, kGPUPriority, kGPUCopy };

  WorkerPool* Pool(std::atomic<WorkerPool*>* slot, int dev_id, Kind kind) {
    WorkerPool* pool = slot->load(std::memory_order_acquire);
    if (pool) return pool;
    std::lock_guard<std::mutex> lock(create_mu_);
    pool = slot->load(std::memory_order_relaxed);
    if (!pool) {
      pool = MakePool(dev_id, kind);
      slot->store(pool, std::memory_order_release);
    }
    return pool;
  }

  WorkerPool* MakePool(int dev_id, Kind kind) {
    switch (kind) {
      case Kind::kCPU:
        return new WorkerPool(config_.cpu_worker_threads, false,
                              [this](int, TaskQueue<OprBlock*>* q) { CPUWorker(q, config_.omp_threads_per_worker); });
      case Kind::kCPUPriority:
        return new WorkerPool(config_.cpu_priority_threads, true,
                              [this](int, TaskQueue<OprBlock*>* q) { CPUWorker(q, config_.omp_threads_per_worker); });
      case Kind::kGPU:
        return new WorkerPool(config_.gpu_worker_threads, false, [this, dev_id](int, TaskQueue<OprBlock*>* q) {
          GPUWorker(q, dev_id, config_.gpu_worker_streams);
        });
      case Kind::kGPUPriority:
        return new WorkerPool(config_.gpu_worker_threads, true, [this, dev_id](int, TaskQueue<OprBlock*>* q) {
          GPUWorker(q, dev_id, config_.gpu_worker_streams);
        });
      case Kind::kGPUCopy:
        return new WorkerPool(config_.gpu_copy_threads, true,
                              [this, dev_id](int, TaskQueue<OprBlock*>* q) { GPUWorker(q, dev_id, 0); });
    }
    return nullptr;
  }

  void CPUWorker(TaskQueue<OprBlock*>* queue, int omp_threads) {
    EnterWorkerThread();
    SetOmpThreadsForThisThread(omp_threads);
    RunContext rctx{Context::CPU()};
    OprBlock* block;
    while (queue->Pop(&block)) {
      ApplyAdaptiveOmpThreads(omp_threads, config_.cpu_worker_threads);
      ExecuteOprBlock(rctx, block);
    }
  }

  /*! \brief streams: 1 or 2 for compute workers (2 = separate aux stream), 0 for copy workers. */
  void GPUWorker(TaskQueue<OprBlock*>* queue, int dev_id, int streams) {
    EnterWorkerThread();
    // GPU ops keep the host threads free for the CPU pools.
    SetOmpThreadsForThisThread(1);
    RunContext rctx{Context::GPU(dev_id)};
    OprBlock* block;
    try {
      backend()->SetDevice(dev_id);
      rctx.stream = backend()->CreateStream(dev_id);
      rctx.aux_stream = streams >= 2 ? backend()->CreateStream(dev_id) : rctx.stream;
    } catch (...) {
      // No usable device: every op sent here fails with the reason instead of hanging.
      std::exception_ptr error = std::current_exception();
      while (queue->Pop(&block)) FailOprBlock(block, error);
      if (rctx.stream) backend()->DestroyStream(dev_id, rctx.stream);
      return;
    }
    while (queue->Pop(&block)) ExecuteOprBlock(rctx, block);
    if (rctx.aux_stream != rctx.stream) backend()->DestroyStream(dev_id, rctx.aux_stream);
    backend()->DestroyStream(dev_id, rctx.stream);
  }

  std::mutex create_mu_;
  std::atomic<WorkerPool*> cpu_priority_{nullptr};
  std::array<std::atomic<WorkerPool*>, kMaxDevices> cpu_normal_{};
  std::array<std::atomic<WorkerPool*>, kMaxDevices> gpu_normal_{};
  std::array<std::atomic<WorkerPool*>, kMaxDevices> gpu_priority_{};
  std::array<std::atomic<WorkerPool*>, kMaxDevices> gpu_copy_{};
};

}  // namespace

std::unique_ptr<Engine> CreateThreadedEnginePerDevice(const EngineConfig& config) {
  return std::make_unique<ThreadedEnginePerDevice>(config);
}

}  // namespace engine
}  // namespace mxnet
