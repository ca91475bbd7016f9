#include "engine/engine_var.h"

#include "engine/record_pool.h"

#include <algorithm>
#include <utility>

namespace mxnet {
namespace engine {

namespace {
VersionedVarBlock* NewBlock() {
  VersionedVarBlock* b = RecordPool<VersionedVarBlock>::Take();
  *b = VersionedVarBlock();
  return b;
}
void FreeBlock(VersionedVarBlock* b) { RecordPool<VersionedVarBlock>::Give(b); }
}  // namespace

Var::Var() : head_(NewBlock()) {}

Var::~Var() {
  // Only the empty tail remains once every access has completed.
  FreeBlock(head_);
}

bool Var::AppendRead(OprBlock* opr) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_write_ == nullptr) {
    ++num_pending_reads_;
    return true;
  }
  auto* tail = NewBlock();
  head_->next = tail;
  head_->trigger = opr;
  head_ = tail;
  return false;
}

bool Var::AppendWrite(OprBlock* opr) {
  auto* tail = NewBlock();
  std::lock_guard<std::mutex> lock(mu_);
  head_->next = tail;
  head_->trigger = opr;
  head_->write = true;
  bool ready = false;
  if (pending_write_ == nullptr) {
    pending_write_ = head_;
    if (num_pending_reads_ == 0) {
      num_pending_reads_ = kWriteTriggered;
      ready = true;
    }
  }
  head_ = tail;
  return ready;
}

OprBlock* Var::CompleteRead() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--num_pending_reads_ == 0 && pending_write_ != nullptr) {
    num_pending_reads_ = kWriteTriggered;
    return pending_write_->trigger;
  }
  return nullptr;
}

bool Var::CompleteWrite(void (*dispatch)(void* ctx, OprBlock* opr), void* ctx) {
  VersionedVarBlock* done;
  VersionedVarBlock* end_of_reads;
  OprBlock* next_write = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    version.fetch_add(1, std::memory_order_release);
    if (to_delete_) {
      FreeBlock(pending_write_);
      pending_write_ = nullptr;
      return true;
    }
    done = pending_write_;
    // Reads queued right after the finished write run now, up to the next write.
    end_of_reads = done->next;
    num_pending_reads_ = 0;
    while (end_of_reads != head_ && !end_of_reads->write) {
      ++num_pending_reads_;
      end_of_reads = end_of_reads->next;
    }
    if (end_of_reads == head_) {
      pending_write_ = nullptr;
    } else {
      pending_write_ = end_of_reads;
      if (num_pending_reads_ == 0) {
        num_pending_reads_ = kWriteTriggered;
        next_write = end_of_reads->trigger;
      }
    }
  }
  // The released blocks are no longer reachable from the var, so they are walked and
  // freed without the lock; `end_of_reads` itself is only compared, never read.
  VersionedVarBlock* cur = done->next;
  FreeBlock(done);
  while (cur != end_of_reads) {
    OprBlock* reader = cur->trigger;
    VersionedVarBlock* next = cur->next;
    FreeBlock(cur);
    cur = next;
    if (reader->DecrWait() == 0) dispatch(ctx, reader);
  }
  if (next_write && next_write->DecrWait() == 0) dispatch(ctx, next_write);
  return false;
}

bool Var::HasPendingWrite() {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_write_ != nullptr;
}

bool Var::Idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_write_ == nullptr && num_pending_reads_ == 0;
}

void Var::MarkToDelete() {
  std::lock_guard<std::mutex> lock(mu_);
  to_delete_ = true;
}

uint64_t VarVersion(VarHandle var) { return var->version.load(std::memory_order_acquire); }

void FillOpr(Opr* opr, Engine::AsyncFn fn, const std::vector<Var*>& const_vars, const std::vector<Var*>& mutable_vars,
             FnProperty prop, const char* opr_name) {
  opr->fn = std::move(fn);
  opr->sync_fn = nullptr;
  opr->const_vars = const_vars;  // assigned: a reused record keeps its lists' capacity
  opr->mutable_vars = mutable_vars;
  DeduplicateVars(&opr->const_vars, &opr->mutable_vars);
  opr->prop = prop;
  if (opr_name) {
    opr->name = opr_name;
  } else {
    opr->name.clear();
  }
  opr->temporary = false;
  opr->is_wait = false;
  opr->symbolic = Engine::SymbolicPush();
}

Opr* NewOpr(Engine::AsyncFn fn, const std::vector<Var*>& const_vars, const std::vector<Var*>& mutable_vars,
            FnProperty prop, const char* opr_name) {
  auto* opr = new Opr();
  FillOpr(opr, std::move(fn), const_vars, mutable_vars, prop, opr_name);
  return opr;
}

void DeduplicateVars(std::vector<Var*>* const_vars, std::vector<Var*>* mutable_vars) {
  auto unique = [](std::vector<Var*>* v) {
    if (v->size() > 32) {
      std::sort(v->begin(), v->end());
      v->erase(std::unique(v->begin(), v->end()), v->end());
      return;
    }
    for (size_t i = 1; i < v->size(); ++i) {
      if (std::find(v->begin(), v->begin() + i, (*v)[i]) != v->begin() + i) {
        // Rare: fall back to sort+unique once a repeat is seen.
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
        return;
      }
    }
  };
  unique(const_vars);
  unique(mutable_vars);
  if (mutable_vars->empty() || const_vars->empty()) return;
  if (mutable_vars->size() > 32) {
    std::vector<Var*> written(*mutable_vars);
    std::sort(written.begin(), written.end());
    const_vars->erase(std::remove_if(const_vars->begin(), const_vars->end(),
                                     [&](Var* v) { return std::binary_search(written.begin(), written.end(), v); }),
                      const_vars->end());
    return;
  }
  const_vars->erase(
      std::remove_if(
          const_vars->begin(), const_vars->end(),
          [&](Var* v) { return std::find(mutable_vars->begin(), mutable_vars->end(), v) != mutable_vars->end(); }),
      const_vars->end());
}

}  // namespace engine
}  // namespace mxnet
