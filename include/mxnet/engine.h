/*!
 * \file engine.h
 * \brief The dependency engine: ops are pushed with the variables they read (const) and
 *        write (mutable) and run asynchronously, in parallel where allowed and in push
 *        order where a variable requires it. Semantics follow MXNet's engine.
 */
#ifndef MXNET_ENGINE_H_
#define MXNET_ENGINE_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {

/*! \brief What an op sees while it runs: its device and, on GPUs, the streams to use. */
struct RunContext {
  Context ctx;
  void* stream{nullptr};
  void* aux_stream{nullptr};
  /*! \brief true when the op runs inside a bulk of grouped ops (no per-op sync needed). */
  bool is_bulk{false};
};

/*!
 * \brief Kind of an op; values 0..7 match MXNet's FnProperty (the C API passes them as int).
 *        kCompute is the runtime's own: an operator's computation, scheduled like kNormal,
 *        that only reads its inputs and writes its outputs and never waits on another thread,
 *        so an engine may run it on the pushing thread (ThreadedEnginePerDevice does when it
 *        has nothing else in flight, see MXNET_ENGINE_INLINE_WHEN_IDLE).
 */
enum class FnProperty : int {
  kNormal = 0,
  kCopyFromGPU = 1,
  kCopyToGPU = 2,
  kCPUPrioritized = 3,
  kAsync = 4,
  kDeleteVar = 5,
  kGPUPrioritized = 6,
  kNoSkip = 7,
  kCompute = 8
};

namespace engine {

struct Var;
struct Opr;
using VarHandle = Var*;
using OprHandle = Opr*;

/*!
 * \brief Completion token of an async op. Called exactly once when the op finishes;
 *        passing an exception_ptr marks the op as failed (its error is captured on the
 *        vars it writes).
 */
class CallbackOnComplete {
 public:
  using Fn = void (*)(void* engine, void* opr_block, std::exception_ptr error);
  CallbackOnComplete() = default;
  CallbackOnComplete(Fn fn, void* engine, void* opr_block) : fn_(fn), engine_(engine), opr_block_(opr_block) {}
  void operator()(std::exception_ptr error = nullptr) const { fn_(engine_, opr_block_, std::move(error)); }

 private:
  Fn fn_{nullptr};
  void* engine_{nullptr};
  void* opr_block_{nullptr};
};

/*! \brief Number of completed writes to var (+1 per completed write). */
uint64_t VarVersion(VarHandle var);

}  // namespace engine

class Engine {
 public:
  using SyncFn = std::function<void(RunContext)>;
  using AsyncFn = std::function<void(RunContext, engine::CallbackOnComplete)>;

  /*! \brief The process engine, chosen by MXNET_ENGINE_TYPE on first use. */
  static Engine* Get();
  virtual ~Engine();

  virtual engine::VarHandle NewVariable() = 0;
  /*! \brief Runs delete_fn after every op pushed before on var, then frees var. */
  virtual void DeleteVariable(SyncFn delete_fn, Context exec_ctx, engine::VarHandle var) = 0;
  /*! \brief A reusable op (create once, push many); vars must not repeat across lists. */
  virtual engine::OprHandle NewOperator(AsyncFn fn, const std::vector<engine::VarHandle>& const_vars,
                                        const std::vector<engine::VarHandle>& mutable_vars,
                                        FnProperty prop = FnProperty::kNormal, const char* opr_name = nullptr) = 0;
  /*! \brief Deferred until every push of op has completed. */
  virtual void DeleteOperator(engine::OprHandle op) = 0;
  virtual void Push(engine::OprHandle op, Context exec_ctx, int priority = 0) = 0;
  virtual void PushAsync(AsyncFn fn, Context exec_ctx, const std::vector<engine::VarHandle>& const_vars,
                         const std::vector<engine::VarHandle>& mutable_vars, FnProperty prop = FnProperty::kNormal,
                         int priority = 0, const char* opr_name = nullptr, bool wait = false) = 0;
  /*! \brief PushAsync of a function that completes when it returns (subject to bulking). */
  void PushSync(SyncFn fn, Context exec_ctx, const std::vector<engine::VarHandle>& const_vars,
                const std::vector<engine::VarHandle>& mutable_vars, FnProperty prop = FnProperty::kNormal,
                int priority = 0, const char* opr_name = nullptr);

  /*! \brief Blocks until every write to var pushed before has run; rethrows its error. */
  virtual void WaitForVar(engine::VarHandle var) = 0;
  /*!
   * \brief Blocks until every read and write of var pushed before has run (the caller may then
   *        write it directly); rethrows its error.
   */
  virtual void WaitToWrite(engine::VarHandle var);
  /*! \brief Blocks until every pushed op has run; rethrows pending errors. */
  virtual void WaitForAll() = 0;
  /*! \brief Throws the error captured on var, if any (without waiting). */
  virtual void Throw(engine::VarHandle var) = 0;
  /*! \brief From now on pending and new ops are skipped, except var deletions. */
  virtual void NotifyShutdown() = 0;
  /*! \brief Fork support: Stop joins the workers (after draining), Start recreates them. */
  virtual void Stop() = 0;
  virtual void Start() = 0;
  /*! \brief Per pushing thread: ops grouped into one engine op; returns the previous size. */
  virtual int set_bulk_size(int size) = 0;
  virtual int bulk_size() const = 0;

  /*! \brief Profiler hook, installed from above; no cost when null. */
  /*! \brief symbolic: the op was pushed from a graph (SymbolicPushScope), else imperatively. */
  struct OprHooks {
    void (*on_start)(const char* name, Context ctx, int worker_thread_id, bool symbolic);
    void (*on_end)(const char* name, Context ctx, int worker_thread_id, bool symbolic);
  };
  static void SetOprHooks(const OprHooks* hooks);
  /*!
   * \brief Marks ops pushed by this thread as coming from a graph (the profiler's symbolic
   *        mode bit) until the previous value is restored; returns the previous value.
   */
  static bool SetSymbolicPush(bool symbolic);
  static bool SymbolicPush();

 protected:
  /*!
   * \brief Lets an engine collect a PushSync into the pushing thread's bulk instead of
   *        pushing it; returns true when it took (moved) the function.
   */
  virtual bool TryBulk(SyncFn* fn, const Context& exec_ctx, const std::vector<engine::VarHandle>& const_vars,
                       const std::vector<engine::VarHandle>& mutable_vars, FnProperty prop, int priority,
                       const char* opr_name) {
    return false;
  }
  /*!
   * \brief Pushes a PushSync function that was not bulked. The default wraps it into an
   *        AsyncFn; engines that can run a SyncFn directly override it (one heap block less
   *        per op).
   */
  virtual void PushSyncUnbulked(SyncFn fn, Context exec_ctx, const std::vector<engine::VarHandle>& const_vars,
                                const std::vector<engine::VarHandle>& mutable_vars, FnProperty prop, int priority,
                                const char* opr_name);
};

}  // namespace mxnet

#endif  // MXNET_ENGINE_H_
