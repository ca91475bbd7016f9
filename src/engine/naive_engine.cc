// NaiveEngine: every op runs to completion inside the push, on the calling thread, so a
// failure surfaces at the push itself with a meaningful stack (the debugging engine).
#include <condition_variable>
#include <map>
#include <mutex>

#include "engine/cpu_load.h"
#include "engine/device_backend.h"
#include "engine/engine_config.h"
#include "engine/engine_var.h"
#include "engine/opr_error.h"
#include "engine/thread_policy.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {

namespace {

class NaiveEngine final : public Engine {
 public:
  explicit NaiveEngine(const EngineConfig& config)
      : backend_(config.device_backend ? config.device_backend : DefaultDeviceBackend()),
        omp_threads_(config.omp_threads_per_worker) {
    SetOmpThreadsForThisThread(config.omp_threads_per_worker);
  }
  ~NaiveEngine() override {
    for (auto& kv : streams_) backend_->DestroyStream(kv.first, kv.second);
  }

  VarHandle NewVariable() override { return new Var(); }

  void DeleteVariable(SyncFn delete_fn, Context exec_ctx, VarHandle var) override {
    // Deletions run even after shutdown was notified: they release memory.
    std::unique_ptr<Var> owned(var);
    if (delete_fn)
      Run(
          [&delete_fn](RunContext rctx, CallbackOnComplete cb) {
            delete_fn(rctx);
            cb();
          },
          exec_ctx, {}, FnProperty::kDeleteVar, "DeleteVariable");
  }

  OprHandle NewOperator(AsyncFn fn, const std::vector<VarHandle>& const_vars,
                        const std::vector<VarHandle>& mutable_vars, FnProperty prop, const char* opr_name) override {
    return NewOpr(std::move(fn), const_vars, mutable_vars, prop, opr_name);
  }
  void DeleteOperator(OprHandle op) override { delete op; }
  void Push(OprHandle op, Context exec_ctx, int priority) override {
    Run(op->fn, exec_ctx, op->mutable_vars, op->prop, op->name.c_str());
  }
  void PushAsync(AsyncFn fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                 const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority, const char* opr_name,
                 bool wait) override {
    std::vector<VarHandle> reads(const_vars), writes(mutable_vars);
    DeduplicateVars(&reads, &writes);
    Run(fn, exec_ctx, writes, prop, opr_name ? opr_name : "");
  }

  // Everything already ran at push time, and errors were thrown there.
  void WaitForVar(VarHandle var) override {}
  void WaitForAll() override {}
  void Throw(VarHandle var) override {}
  void NotifyShutdown() override { shutdown_ = true; }
  void Stop() override {}
  void Start() override {}
  // MXNet's NaiveEngine does not bulk: the size is always 0.
  int set_bulk_size(int size) override { return 0; }
  int bulk_size() const override { return 0; }

 private:
  struct Completion {
    std::mutex mu;
    std::condition_variable cv;
    bool done{false};
    std::exception_ptr error;
  };
  static void OnComplete(void*, void* state, std::exception_ptr error) {
    auto* c = static_cast<Completion*>(state);
    std::lock_guard<std::mutex> lock(c->mu);
    c->error = std::move(error);
    c->done = true;
    c->cv.notify_all();
  }

  void Run(const AsyncFn& fn, Context ctx, const std::vector<VarHandle>& mutable_vars, FnProperty prop,
           const char* name) {
    if (shutdown_ && prop != FnProperty::kDeleteVar) return;
    RunContext rctx{ctx};
    if (ctx.dev_type == Context::kGPU) rctx.stream = rctx.aux_stream = GpuStream(ctx.dev_id);
    else ApplyAdaptiveOmpThreads(omp_threads_, 1);
    const Engine::OprHooks* hooks = CurrentOprHooks();
    const bool symbolic = Engine::SymbolicPush();  // ops run on the pushing thread
    if (hooks && hooks->on_start) hooks->on_start(name, ctx, CurrentThreadId(), symbolic);
    Completion c;
    try {
      fn(rctx, CallbackOnComplete(&NaiveEngine::OnComplete, this, &c));
    } catch (...) {
      OnComplete(nullptr, &c, std::current_exception());
    }
    {
      // An async fn may complete later, from another thread.
      std::unique_lock<std::mutex> lock(c.mu);
      c.cv.wait(lock, [&c] { return c.done; });
    }
    if (!c.error && rctx.stream) {
      try {
        backend_->SyncStream(rctx.stream);
      } catch (...) {
        c.error = std::current_exception();
      }
    }
    for (Var* v : mutable_vars) v->version.fetch_add(1, std::memory_order_release);
    if (hooks && hooks->on_end) hooks->on_end(name, ctx, CurrentThreadId(), symbolic);
    if (c.error) std::rethrow_exception(WrapOprError(name, c.error));
  }

  void* GpuStream(int dev_id) {
    int count = backend_->DeviceCount();
    MX_CHECK_KIND(count > 0, "MXNetError") << "Cannot run an operation on gpu(" << dev_id
                                           << "): no GPU is available (backend " << backend_->Name() << ").";
    MX_CHECK_KIND(dev_id >= 0 && dev_id < count, "MXNetError")
        << "Cannot run an operation on gpu(" << dev_id << "): only " << count << " GPU(s) are visible.";
    std::lock_guard<std::mutex> lock(streams_mu_);
    auto it = streams_.find(dev_id);
    if (it == streams_.end()) it = streams_.emplace(dev_id, backend_->CreateStream(dev_id)).first;
    backend_->SetDevice(dev_id);
    return it->second;
  }

  DeviceBackend* backend_;
  int omp_threads_;
  std::atomic<bool> shutdown_{false};
  std::mutex streams_mu_;
  std::map<int, void*> streams_;
};

}  // namespace

std::unique_ptr<Engine> CreateNaiveEngine(const EngineConfig& config) { return std::make_unique<NaiveEngine>(config); }

}  // namespace engine
}  // namespace mxnet
