/*!
 * \file threaded_engine.h
 * \brief Dependency tracking, completion, errors, waits and bulking shared by the
 *        threaded engines; subclasses only decide which thread runs a ready op.
 */
#ifndef MXNET_ENGINE_THREADED_ENGINE_H_
#define MXNET_ENGINE_THREADED_ENGINE_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "engine/engine_config.h"
#include "engine/engine_var.h"

namespace mxnet {
namespace engine {
struct BulkState;
}  // namespace engine
}  // namespace mxnet

namespace mxnet {
namespace engine {

class ThreadedEngine : public Engine {
 public:
  explicit ThreadedEngine(const EngineConfig& config);
  ~ThreadedEngine() override;

  VarHandle NewVariable() override;
  void DeleteVariable(SyncFn delete_fn, Context exec_ctx, VarHandle var) override;
  OprHandle NewOperator(AsyncFn fn, const std::vector<VarHandle>& const_vars,
                        const std::vector<VarHandle>& mutable_vars, FnProperty prop = FnProperty::kNormal,
                        const char* opr_name = nullptr) override;
  void DeleteOperator(OprHandle op) override;
  void Push(OprHandle op, Context exec_ctx, int priority = 0) override;
  void PushAsync(AsyncFn fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                 const std::vector<VarHandle>& mutable_vars, FnProperty prop = FnProperty::kNormal, int priority = 0,
                 const char* opr_name = nullptr, bool wait = false) override;
  void WaitForVar(VarHandle var) override;
  void WaitToWrite(VarHandle var) override;
  void WaitForAll() override;
  void Throw(VarHandle var) override;
  void NotifyShutdown() override;
  void Stop() override;
  void Start() override;
  int set_bulk_size(int size) override;
  int bulk_size() const override;

  /*! \brief Pushes the calling thread's collected ops as one op (no-op when empty). */
  void FlushBulk();
  /*! \brief Pushes the given bulk's ops as one op (also used when a thread ends). */
  void FlushBulk(BulkState* bulk);
  /*! \brief Fork support, called by the atfork handlers for every live engine. */
  void BeforeFork();
  void AfterForkParent();
  void AfterForkChild();
  /*! \brief Process exit: skip what is pending, join the workers, run later pushes inline. */
  void ShutdownForExit();

 protected:
  /*! \brief Hands a ready op to a worker (or runs it inline on the pusher). */
  virtual void PushToExecute(OprBlock* block, bool pusher_thread) = 0;
  virtual void StartWorkers() = 0;
  /*! \brief Joins every worker; called only when no op is pending. */
  virtual void StopWorkers() = 0;
  /*! \brief Throws mxnet::Error for a context ops cannot run on (e.g. a missing GPU). */
  virtual void CheckContext(const Context& ctx);
  /*! \brief Waits for the op's stream at the end of a bulk (GPU); CPU: nothing. */
  virtual void SyncStream(const RunContext& rctx) {}

  void PushSyncUnbulked(SyncFn fn, Context exec_ctx, const std::vector<VarHandle>& const_vars,
                        const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
                        const char* opr_name) override;
  bool TryBulk(SyncFn* fn, const Context& exec_ctx, const std::vector<VarHandle>& const_vars,
               const std::vector<VarHandle>& mutable_vars, FnProperty prop, int priority,
               const char* opr_name) override;
  /*! \brief Runs (or skips) the op on the calling thread; its completion releases dependents. */
  void ExecuteOprBlock(RunContext rctx, OprBlock* block);
  /*! \brief Completes an op that could not run (e.g. its worker has no device) with error. */
  void FailOprBlock(OprBlock* block, std::exception_ptr error) { OnComplete(block, std::move(error)); }
  /*! \brief Marks the calling thread as a worker of this engine (waits from it would deadlock). */
  void EnterWorkerThread();
  /*! \brief Whether the op being pushed is the only one in flight (nothing queued or running). */
  bool OnlyOpInFlight() const { return pending_.load(std::memory_order_acquire) == 1; }
  /*! \brief Whether the calling thread is one of this engine's workers (or runs an op inline). */
  bool OnWorkerThread() const;
  /*!
   * \brief Runs a ready op on the pushing thread, as a worker would: waits from inside it are
   *        refused as on a worker, and OpenMP uses the workers' thread count.
   */
  void ExecuteInline(OprBlock* block);
  /*! \brief Subclasses call these at the end of their constructor / start of their destructor. */
  void RegisterLive();
  void ShutdownAndUnregister();
  DeviceBackend* backend() const { return backend_; }

  EngineConfig config_;
  /*! \brief Set in a forked child: OpenMP limited to 1 thread, CPU workers resized. */
  bool in_forked_child_{false};

 private:
  static void OnCompleteStatic(void* engine, void* block, std::exception_ptr error);
  void OnComplete(OprBlock* block, std::exception_ptr error);
  void PushBlock(Opr* opr, Context exec_ctx, int priority);
  void Dispatch(OprBlock* block);
  static void DispatchStatic(void* engine, OprBlock* block);
  void InheritException(OprBlock* block);
  void WaitUntilIdle();
  void CheckNotWorker(const char* what) const;

  DeviceBackend* backend_;
  std::atomic<int64_t> pending_{0};
  std::atomic<int> idle_waiters_{0};
  std::mutex idle_mu_;
  std::condition_variable idle_cv_;
  std::atomic<bool> shutdown_{false};
  /*! \brief After process-exit shutdown: no workers, ops run inline on the pusher. */
  std::atomic<bool> exiting_{false};
  std::atomic<bool> stopped_{false};

  std::mutex exception_mu_;
  std::vector<ExceptionRef> exceptions_;
  /*! \brief Fast path: ops skip the exception scan while no error is outstanding. */
  std::atomic<bool> has_exceptions_{false};
};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_THREADED_ENGINE_H_
