#include "engine/cpu_load.h"
#include "engine/threaded_engine.h"

#include <memory>
#include <string>
#include <utility>

#include "engine/bulk.h"
#include "engine/device_backend.h"
#include "engine/live_engines.h"
#include "engine/opr_error.h"
#include "engine/record_pool.h"
#include "engine/thread_policy.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {

namespace {

/*! \brief The engine whose worker the calling thread is (null on other threads). */
thread_local const ThreadedEngine* tls_worker_of = nullptr;

void FlushThisThreadBulk() {
  BulkState& bulk = ThisThreadBulk();
  if (bulk.count() > 0) bulk.engine->FlushBulk();
}

}  // namespace

// ---------------------------------------------------------------- life cycle

ThreadedEngine::ThreadedEngine(const EngineConfig& config)
    : config_(config), backend_(config.device_backend ? config.device_backend : DefaultDeviceBackend()) {}

ThreadedEngine::~ThreadedEngine() = default;

void ThreadedEngine::RegisterLive() { RegisterLiveEngine(this); }

void ThreadedEngine::ShutdownAndUnregister() {
  UnregisterLiveEngine(this);
  BulkState& bulk = ThisThreadBulk();
  if (bulk.engine == this) FlushBulk();
  WaitUntilIdle();
  if (!stopped_.exchange(true)) StopWorkers();
}

void ThreadedEngine::EnterWorkerThread() { tls_worker_of = this; }

bool ThreadedEngine::OnWorkerThread() const { return tls_worker_of == this; }

void ThreadedEngine::ExecuteInline(OprBlock* block) {
  ApplyAdaptiveOmpThreads(config_.omp_threads_per_worker, config_.cpu_worker_threads);
  const ThreadedEngine* outer = tls_worker_of;
  tls_worker_of = this;
  ExecuteOprBlock(RunContext{block->ctx}, block);
  tls_worker_of = outer;
}

void ThreadedEngine::CheckNotWorker(const char* what) const {
  // A worker waiting for ops queued behind it would wait forever.
  MX_CHECK(tls_worker_of != this) << what
                                  << " was called from inside an engine operation; waiting there would deadlock. "
                                     "Declare the dependency as an input of the operation instead.";
}

void ThreadedEngine::Stop() {
  if (tls_worker_of == this) return;
  WaitUntilIdle();
  if (!stopped_.exchange(true)) StopWorkers();
}

void ThreadedEngine::Start() {
  if (tls_worker_of == this) return;
  if (stopped_.exchange(false)) StartWorkers();
}

void ThreadedEngine::BeforeFork() { Stop(); }

void ThreadedEngine::AfterForkParent() { Start(); }

void ThreadedEngine::AfterForkChild() {
  // The child has one thread: CPU pools shrink to MXNET_MP_WORKER_NTHREADS and OpenMP to 1.
  in_forked_child_ = true;
  config_.cpu_worker_threads = config_.forked_cpu_worker_threads;
  config_.omp_threads_per_worker = 1;
  Start();
}

void ThreadedEngine::NotifyShutdown() { shutdown_.store(true); }

void ThreadedEngine::ShutdownForExit() {
  shutdown_.store(true);
  if (tls_worker_of == this) return;
  // Ops released from now on run inline on the releasing thread (skipped, except deletions),
  // so no worker can be started again while the process tears down its statics.
  exiting_.store(true);
  FlushThisThreadBulk();
  WaitUntilIdle();
  if (!stopped_.exchange(true)) StopWorkers();
}

// ---------------------------------------------------------------- vars and ops

VarHandle ThreadedEngine::NewVariable() { return new Var(); }

void ThreadedEngine::DeleteVariable(SyncFn delete_fn, Context exec_ctx, VarHandle var) {
  // Nothing queued on the var (the usual case: an array dropped after its last op ran) and
  // host memory: free at once. A pushed deletion op costs several allocations and a trip
  // through the queues, for every array a program drops. An op still holding the array's
  // memory holds the array too, so an idle var means no op can reach the memory any more;
  // ops in this thread's unpushed bulk are not in the var's queue yet, so then it waits.
  if (exec_ctx.dev_type != Context::kGPU && ThisThreadBulk().count() == 0 && var->Idle()) {
    if (delete_fn) delete_fn(RunContext{exec_ctx});
    delete var;
    return;
  }
  // The deletion writes the var, so it runs after every earlier op on it; the var object is
  // freed when that write completes.
  PushAsync(
      [delete_fn = std::move(delete_fn), var](RunContext rctx, CallbackOnComplete on_complete) {
        var->MarkToDelete();
        if (delete_fn) delete_fn(rctx);
        on_complete();
      },
      exec_ctx, {}, {var}, FnProperty::kDeleteVar, 0, "DeleteVariable");
}

OprHandle ThreadedEngine::NewOperator(AsyncFn fn, const std::vector<VarHandle>& const_vars,
                                      const std::vector<VarHandle>& mutable_vars, FnProperty prop,
                                      const char* opr_name) {
  return NewOpr(std::move(fn), const_vars, mutable_vars, prop, opr_name);
}

void ThreadedEngine::DeleteOperator(OprHandle op) {
  // Written to every var of the op, so it runs after every pending push of the op.
  std::vector<VarHandle> vars(op->const_vars);
  vars.insert(vars.end(), op->mutable_vars.begin(), op->mutable_vars.end());
  PushAsync(
      [op](RunContext, CallbackOnComplete on_complete) {
        delete op;
        on_complete();
      },
      Context::CPU(), {}, vars, FnProperty::kDeleteVar, 0, "DeleteOperator");
}

void ThreadedEngine::CheckContext(const Context& ctx) {
  if (ctx.dev_type == Context::kGPU) {
    int count = backend_->DeviceCount();
    if (count == 0) {
      MX_THROW("MXNetError") << "Cannot run an operation on " << ctx.ToString() << ": no GPU is available (backend "
                             << backend_->Name() << ").";
    }
    MX_CHECK_KIND(ctx.dev_id >= 0 && ctx.dev_id < count, "MXNetError")
        << "Cannot run an operation on " << ctx.ToString() << ": only " << count << " GPU(s) are visible.";
  }
}

void ThreadedEngine::Push(OprHandle op, Context exec_ctx, int priority) {
  FlushThisThreadBulk();
  CheckContext(exec_ctx);
  PushBlock(op, exec_ctx, priority);
}

void ThreadedEngine::PushAsync(AsyncFn fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                               const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
                               const char* opr_name, bool wait) {
  FlushThisThreadBulk();
  CheckContext(exec_ctx);
  Opr* opr = RecordPool<Opr>::Take();
  FillOpr(opr, std::move(fn), const_vars, mutable_vars, prop, opr_name);
  opr->temporary = true;
  opr->is_wait = wait;
  PushBlock(opr, exec_ctx, priority);
}

void ThreadedEngine::PushSyncUnbulked(SyncFn fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                                      const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
                                      const char* opr_name) {
  FlushThisThreadBulk();
  CheckContext(exec_ctx);
  Opr* opr = RecordPool<Opr>::Take();
  FillOpr(opr, AsyncFn(), const_vars, mutable_vars, prop, opr_name);
  opr->sync_fn = std::move(fn);
  opr->temporary = true;
  PushBlock(opr, exec_ctx, priority);
}

void ThreadedEngine::PushBlock(Opr* opr, Context exec_ctx, int priority) {
  OprBlock* block = RecordPool<OprBlock>::Take();
  block->hooks = nullptr;
  block->exception.reset();
  block->opr = opr;
  block->ctx = exec_ctx;
  block->priority = priority;
  // One count per var plus one held until every var has been appended, so an op whose
  // inputs complete while it is being pushed does not start (and free itself) early.
  const int total = static_cast<int>(opr->const_vars.size() + opr->mutable_vars.size()) + 1;
  block->wait.store(total, std::memory_order_relaxed);
  pending_.fetch_add(1);
  int ready = 1;
  for (Var* v : opr->const_vars) ready += v->AppendRead(block);
  for (Var* v : opr->mutable_vars) ready += v->AppendWrite(block);
  if (block->wait.fetch_sub(ready, std::memory_order_acq_rel) == ready) {
    if (opr->is_wait || exiting_.load(std::memory_order_relaxed)) {
      ExecuteOprBlock(RunContext{exec_ctx}, block);
    } else {
      PushToExecute(block, true);
    }
  }
}

void ThreadedEngine::Dispatch(OprBlock* block) {
  if (block->opr->is_wait || exiting_.load(std::memory_order_relaxed)) {
    ExecuteOprBlock(RunContext{block->ctx}, block);
  } else {
    PushToExecute(block, false);
  }
}

void ThreadedEngine::DispatchStatic(void* engine, OprBlock* block) {
  static_cast<ThreadedEngine*>(engine)->Dispatch(block);
}

// ---------------------------------------------------------------- running and completing

void ThreadedEngine::InheritException(OprBlock* block) {
  std::lock_guard<std::mutex> lock(exception_mu_);
  for (const auto* vars : {&block->opr->const_vars, &block->opr->mutable_vars}) {
    for (Var* v : *vars) {
      if (v->exception && *v->exception) {
        block->exception = v->exception;
        return;
      }
    }
  }
}

void ThreadedEngine::ExecuteOprBlock(RunContext rctx, OprBlock* block) {
  Opr* opr = block->opr;
  rctx.ctx = block->ctx;
  if (has_exceptions_.load(std::memory_order_acquire)) InheritException(block);
  const bool exempt = opr->is_wait || opr->prop == FnProperty::kDeleteVar;
  const bool skip =
      !exempt && ((block->exception && opr->prop != FnProperty::kNoSkip) || shutdown_.load(std::memory_order_relaxed));
  if (skip) {
    OnComplete(block, nullptr);
    return;
  }
  if (const Engine::OprHooks* hooks = CurrentOprHooks()) {
    block->hooks = hooks;
    if (hooks->on_start) hooks->on_start(opr->name.c_str(), block->ctx, CurrentThreadId(), opr->symbolic);
  }
  bool ran = false;
  try {
    if (opr->sync_fn) {
      opr->sync_fn(rctx);
      // A GPU op only queued its work: it is done when its stream is.
      if (rctx.stream) SyncStream(rctx);
      ran = true;
    } else {
      opr->fn(rctx, CallbackOnComplete(&ThreadedEngine::OnCompleteStatic, this, block));
    }
  } catch (...) {
    // A function that throws has not called its callback.
    OnComplete(block, std::current_exception());
  }
  if (ran) OnComplete(block, nullptr);
}

void ThreadedEngine::OnCompleteStatic(void* engine, void* block, std::exception_ptr error) {
  static_cast<ThreadedEngine*>(engine)->OnComplete(static_cast<OprBlock*>(block), std::move(error));
}

void ThreadedEngine::OnComplete(OprBlock* block, std::exception_ptr error) {
  Opr* opr = block->opr;
  // A reusable op may be deleted (by a DeleteOperator queued behind it) as soon as its last
  // write completes below: nothing of it is read after that.
  const bool temporary = opr->temporary;
  if (error) block->exception = std::make_shared<std::exception_ptr>(WrapOprError(opr->name, std::move(error)));
  if (block->hooks && block->hooks->on_end) block->hooks->on_end(opr->name.c_str(), block->ctx, CurrentThreadId(), opr->symbolic);

  for (Var* v : opr->const_vars) {
    if (OprBlock* next = v->CompleteRead()) {
      if (next->DecrWait() == 0) Dispatch(next);
    }
  }
  if (block->exception) {
    // Published before the writes complete, so every op released below sees it.
    std::lock_guard<std::mutex> lock(exception_mu_);
    for (Var* v : opr->mutable_vars) v->exception = block->exception;
    exceptions_.push_back(block->exception);
    has_exceptions_.store(true, std::memory_order_release);
  }
  for (Var* v : opr->mutable_vars) {
    if (v->CompleteWrite(&ThreadedEngine::DispatchStatic, this)) delete v;
  }
  if (temporary) {
    // The functions go now: their captured arrays must be released when the op completes.
    opr->fn = nullptr;
    opr->sync_fn = nullptr;
    RecordPool<Opr>::Give(opr);
  }
  block->exception.reset();
  RecordPool<OprBlock>::Give(block);
  if (pending_.fetch_sub(1) == 1 && idle_waiters_.load() > 0) {
    std::lock_guard<std::mutex> lock(idle_mu_);
    idle_cv_.notify_all();
  }
}

// ---------------------------------------------------------------- waiting and errors

void ThreadedEngine::WaitUntilIdle() {
  idle_waiters_.fetch_add(1);
  {
    std::unique_lock<std::mutex> lock(idle_mu_);
    idle_cv_.wait(lock, [this] { return pending_.load() == 0; });
  }
  idle_waiters_.fetch_sub(1);
}

void ThreadedEngine::WaitForVar(VarHandle var) {
  CheckNotWorker("WaitForVar");
  FlushThisThreadBulk();
  if (var->HasPendingWrite()) {
    // A read of the var queued behind its pending writes; it runs on whichever thread
    // completes the last of them and wakes us.
    struct Waiter {
      std::mutex mu;
      std::condition_variable cv;
      bool done{false};
    } waiter;
    PushAsync(
        [&waiter](RunContext, CallbackOnComplete on_complete) {
          {
            // Notified under the lock: the waiter (and this struct) outlives the notify.
            std::lock_guard<std::mutex> lock(waiter.mu);
            waiter.done = true;
            waiter.cv.notify_all();
          }
          on_complete();
        },
        Context::CPU(), {var}, {}, FnProperty::kNormal, 0, "WaitForVar", true);
    std::unique_lock<std::mutex> lock(waiter.mu);
    waiter.cv.wait(lock, [&waiter] { return waiter.done; });
  }
  Throw(var);
}

void ThreadedEngine::WaitToWrite(VarHandle var) {
  CheckNotWorker("WaitToWrite");
  FlushThisThreadBulk();
  // Nothing queued or running on var (a fresh array, the usual case): no need to go through
  // the workers, whose queue may hold unrelated work (the previous step's updates).
  if (var->Idle()) return Throw(var);
  Engine::WaitToWrite(var);
}

void ThreadedEngine::WaitForAll() {
  CheckNotWorker("WaitForAll");
  FlushThisThreadBulk();
  WaitUntilIdle();
  std::exception_ptr first;
  {
    std::lock_guard<std::mutex> lock(exception_mu_);
    for (auto& ref : exceptions_) {
      if (*ref && !first) first = *ref;
      *ref = nullptr;  // cleared for every var and op sharing it: it surfaces once
    }
    exceptions_.clear();
    has_exceptions_.store(false, std::memory_order_release);
  }
  if (first) std::rethrow_exception(first);
}

void ThreadedEngine::Throw(VarHandle var) {
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(exception_mu_);
    if (var->exception && *var->exception) {
      error = *var->exception;
      *var->exception = nullptr;
    }
  }
  if (error) std::rethrow_exception(error);
}

// ---------------------------------------------------------------- bulking

int ThreadedEngine::set_bulk_size(int size) {
  MX_CHECK_KIND(size >= 0, "ValueError") << "bulk size must be >= 0, got " << size;
  int& current = ThisThreadBulkSize();
  int previous = current;
  current = size;
  if (ThisThreadBulk().count() >= size) FlushThisThreadBulk();
  return previous;
}

int ThreadedEngine::bulk_size() const { return ThisThreadBulkSize(); }

bool ThreadedEngine::TryBulk(SyncFn* fn, const Context& exec_ctx, const std::vector<VarHandle>& const_vars,
                             const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
                             const char* opr_name) {
  const int size = ThisThreadBulkSize();
  if (size <= 0 || (prop != FnProperty::kNormal && prop != FnProperty::kCompute) || priority != 0) return false;
  BulkState& bulk = ThisThreadBulk();
  if (bulk.count() > 0 && (bulk.engine != this || bulk.ctx != exec_ctx)) FlushThisThreadBulk();
  CheckContext(exec_ctx);
  bulk.engine = this;
  bulk.ctx = exec_ctx;
  bulk.fns.emplace_back(std::move(*fn), opr_name ? opr_name : "");
  bulk.all_compute = bulk.all_compute && prop == FnProperty::kCompute;
  bulk.const_vars.insert(bulk.const_vars.end(), const_vars.begin(), const_vars.end());
  bulk.mutable_vars.insert(bulk.mutable_vars.end(), mutable_vars.begin(), mutable_vars.end());
  if (bulk.count() >= size) FlushBulk();
  return true;
}

void ThreadedEngine::FlushBulk() { FlushBulk(&ThisThreadBulk()); }

void ThreadedEngine::FlushBulk(BulkState* state) {
  BulkState& bulk = *state;
  if (bulk.count() == 0 || bulk.engine != this) return;
  const Context ctx = bulk.ctx;
  auto fns = std::make_shared<std::vector<std::pair<SyncFn, std::string>>>(std::move(bulk.fns));
  std::vector<Var*> const_vars(std::move(bulk.const_vars));
  std::vector<Var*> mutable_vars(std::move(bulk.mutable_vars));
  const FnProperty prop = bulk.all_compute ? FnProperty::kCompute : FnProperty::kNormal;
  bulk.all_compute = true;
  bulk.fns.clear();
  bulk.const_vars.clear();
  bulk.mutable_vars.clear();
  bulk.engine = nullptr;
  // Vars read by one op and written by another of the bulk are listed as written only.
  DeduplicateVars(&const_vars, &mutable_vars);
  // A graph's segment shows in the profiler as the ops it holds, as MXNet shows it.
  std::string name = "ImperativeBulk";
  if (Engine::SymbolicPush()) {
    name = "[";
    for (size_t i = 0; i < fns->size(); ++i) name += (i ? "," : "") + (*fns)[i].second;
    name += "]";
  }
  PushAsync(
      [fns, this](RunContext rctx, CallbackOnComplete on_complete) {
        rctx.is_bulk = true;
        for (auto& f : *fns) {
          try {
            f.first(rctx);
          } catch (...) {
            on_complete(WrapOprError(f.second, std::current_exception()));
            return;
          }
        }
        try {
          SyncStream(rctx);  // once per bulk instead of once per op
        } catch (...) {
          on_complete(std::current_exception());
          return;
        }
        on_complete();
      },
      ctx, const_vars, mutable_vars, prop, 0, name.c_str());
}

BulkState::~BulkState() {
  // A thread ending with collected ops pushes them, if their engine still exists.
  if (count() > 0 && engine && IsLiveEngine(engine)) engine->FlushBulk(this);
}

BulkState& ThisThreadBulk() {
  thread_local BulkState bulk;
  return bulk;
}

int& ThisThreadBulkSize() {
  thread_local int size = 0;
  return size;
}

}  // namespace engine
}  // namespace mxnet
