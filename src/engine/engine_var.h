/*!
 * \file engine_var.h
 * \brief The variable and operator records shared by every engine type, and the
 *        per-variable dependency queue of the threaded engines (MXNet's ThreadedVar):
 *        consecutive reads run together, a write waits for earlier reads and writes.
 */
#ifndef MXNET_ENGINE_ENGINE_VAR_H_
#define MXNET_ENGINE_ENGINE_VAR_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mxnet/engine.h"

namespace mxnet {
namespace engine {

/*! \brief An op's captured error, shared by every var and op it spread to, so clearing it
 *         once (at a wait) clears it everywhere. */
using ExceptionRef = std::shared_ptr<std::exception_ptr>;

struct OprBlock;

/*! \brief One queued access to a var; the list always ends in an empty block (the tail). */
struct VersionedVarBlock {
  VersionedVarBlock* next{nullptr};
  OprBlock* trigger{nullptr};
  bool write{false};
};

struct Var {
  Var();
  ~Var();

  /*! \brief Writes completed so far; reads never change it. */
  std::atomic<uint64_t> version{0};
  /*! \brief Error of the last failed write; guarded by the engine's exception mutex. */
  ExceptionRef exception;

  // ---- dependency queue (threaded engines only) ----
  /*! \brief Queues a read; returns true when it may run now. */
  bool AppendRead(OprBlock* opr);
  /*! \brief Queues a write; returns true when it may run now. */
  bool AppendWrite(OprBlock* opr);
  /*! \brief A read finished; returns the write it released, if any. */
  OprBlock* CompleteRead();
  /*!
   * \brief A write finished: bumps the version and calls dispatch(ctx, op) for every op it
   *        made ready (outside the lock). Returns true when the var was marked for deletion
   *        (the caller frees it).
   */
  bool CompleteWrite(void (*dispatch)(void* ctx, OprBlock* opr), void* ctx);
  /*! \brief Whether a write is queued or running (what WaitForVar must wait for). */
  bool HasPendingWrite();
  /*! \brief Whether no read or write is queued or running. */
  bool Idle();
  /*! \brief Called by the deletion op, which holds the var's write slot. */
  void MarkToDelete();

 private:
  static constexpr int kWriteTriggered = -1;
  std::mutex mu_;
  /*! \brief Running reads, or kWriteTriggered while the pending write runs. */
  int num_pending_reads_{0};
  /*! \brief Oldest queued write; null means the var is readable now. */
  VersionedVarBlock* pending_write_{nullptr};
  /*! \brief The empty tail block new accesses are written into. */
  VersionedVarBlock* head_;
  bool to_delete_{false};
};

/*! \brief A reusable operation: function, read set, write set, kind and name. */
struct Opr {
  Engine::AsyncFn fn;
  /*! \brief Set instead of fn by PushSync: completes when it returns. */
  Engine::SyncFn sync_fn;
  std::vector<Var*> const_vars;
  std::vector<Var*> mutable_vars;
  FnProperty prop{FnProperty::kNormal};
  std::string name;
  /*! \brief Created by PushAsync for one run: freed when that run completes. */
  bool temporary{false};
  /*! \brief A WaitForVar marker: never skipped, run on whichever thread releases it. */
  bool is_wait{false};
  /*! \brief Pushed from a graph (Engine::SetSymbolicPush), for the profiler. */
  bool symbolic{false};
};

/*!
 * \brief A new Opr running fn, reading const_vars and writing mutable_vars (deduplicated as
 *        DeduplicateVars says); opr_name may be null.
 */
Opr* NewOpr(Engine::AsyncFn fn, const std::vector<Var*>& const_vars, const std::vector<Var*>& mutable_vars,
            FnProperty prop, const char* opr_name);
/*! \brief Sets every field of opr as NewOpr would (for a reused record). */
void FillOpr(Opr* opr, Engine::AsyncFn fn, const std::vector<Var*>& const_vars, const std::vector<Var*>& mutable_vars,
             FnProperty prop, const char* opr_name);

/*! \brief One scheduled run of an Opr. */
struct OprBlock {
  Opr* opr{nullptr};
  Context ctx;
  int priority{0};
  /*! \brief Vars still blocking this run, +1 held by the pusher until Push returns. */
  std::atomic<int> wait{0};
  /*! \brief Error inherited from an input or thrown by the fn. */
  ExceptionRef exception;
  /*! \brief Profiler hooks seen when it started (on_end goes to the same ones). */
  const Engine::OprHooks* hooks{nullptr};
  /*! \brief Returns the remaining count after one dependency was satisfied. */
  int DecrWait() { return wait.fetch_sub(1, std::memory_order_acq_rel) - 1; }
};

/*!
 * \brief Removes repeated vars and drops from the read set any var also written (MXNet's
 *        DeduplicateVarHandle). A repeated var would make the op wait on itself forever,
 *        and `x += x` legitimately lists x on both sides.
 */
void DeduplicateVars(std::vector<Var*>* const_vars, std::vector<Var*>* mutable_vars);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_ENGINE_VAR_H_
