// Recording into thread buffers, and the engine / storage / C API hooks. Every hook
// checks the active mask first, so a paused profiler records nothing.
#include "profiler/recorder.h"

#include <atomic>
#include <cstdio>
#include <memory>

#include "mxnet/engine.h"
#include "mxnet/storage.h"
#include "profiler/api_call_hooks.h"
#include "profiler/categories.h"
#include "profiler/clock.h"
#include "profiler/devices.h"
#include "profiler/profiler.h"
#include "profiler/thread_buffer.h"

namespace mxnet {
namespace profiler {

namespace {
Record* Begin(RecordKind kind, uint32_t category, const char* name) {
  Record* r = ThisThreadBuffer()->Reserve();
  r->kind = kind;
  r->category = category;
  r->device_slot = 0;
  r->tid = ThisThreadHash();
  r->symbolic = false;
  r->pool_hit = false;
  r->scope = 'p';
  r->value = r->extra = r->end = 0;
  r->SetName(name);
  return r;
}
void Commit() { ThisThreadBuffer()->Commit(); }
}  // namespace

void RecordDuration(RecordKind kind, uint32_t category, int device_slot, const char* name, int64_t start, int64_t end,
                    bool symbolic) {
  Record* r = Begin(kind, category, name);
  r->device_slot = device_slot;
  r->start = start;
  r->end = end;
  r->symbolic = symbolic;
  Commit();
}

void RecordCounter(uint32_t category, const char* name, int64_t value) {
  Record* r = Begin(RecordKind::kCounter, category, name);
  r->start = NowTicks();
  r->value = value;
  Commit();
}

void RecordMarker(uint32_t category, const char* name, char scope) {
  Record* r = Begin(RecordKind::kMarker, category, name);
  r->start = NowTicks();
  r->scope = scope;
  Commit();
}

namespace {
// Start times of durations still open on this thread (engine ops, API calls). Ops do not
// nest deeply; entries from an earlier run (generation) are discarded rather than paired.
struct OpenDurations {
  static constexpr int kDepth = 16;
  struct Entry {
    const char* name;
    int64_t start;
    uint32_t generation;
  } entries[kDepth];
  int depth{0};

  void Push(const char* name, uint32_t generation) {
    if (depth > 0 && entries[depth - 1].generation != generation) depth = 0;
    if (depth == kDepth) return;
    entries[depth++] = {name, NowTicks(), generation};
  }
  // Pops the entry opened for name; false when there is none to pair with.
  bool Pop(const char* name, uint32_t generation, int64_t* start) {
    if (depth == 0) return false;
    const Entry& e = entries[--depth];
    if (e.name != name || e.generation != generation) {
      depth = 0;
      return false;
    }
    *start = e.start;
    return true;
  }
};
thread_local OpenDurations tl_ops;
thread_local OpenDurations tl_api;

// ---- engine
void OnOprStart(const char* name, Context ctx, int worker_thread_id, bool symbolic) {
  Profiler* p = Profiler::Get();
  if (!p->Recording(symbolic ? kSymbolic : kImperative)) return;
  tl_ops.Push(name, p->generation());
}
void OnOprEnd(const char* name, Context ctx, int worker_thread_id, bool symbolic) {
  Profiler* p = Profiler::Get();
  int64_t start = 0;
  if (!tl_ops.Pop(name, p->generation(), &start) || !p->Recording(symbolic ? kSymbolic : kImperative)) return;
  RecordDuration(RecordKind::kOperator, kOperatorCategory, DeviceSlot(ctx), name, start, NowTicks(), symbolic);
}
const Engine::OprHooks kOprHooks{&OnOprStart, &OnOprEnd};

// ---- storage: bytes in use per device slot, counting from the start of the run
std::unique_ptr<std::atomic<int64_t>[]>& InUse() {
  static auto* in_use = new std::unique_ptr<std::atomic<int64_t>[]>(new std::atomic<int64_t>[DeviceSlotCount()]());
  return *in_use;
} void OnAlloc(Context ctx, size_t requested, size_t actual, void* ptr, bool pool_hit) {
  if (requested == 0 || !Profiler::Get()->Recording(kMemory)) return;
  const int slot = DeviceSlot(ctx);
  const int64_t now_in_use = InUse()[slot].fetch_add(static_cast<int64_t>(requested)) + static_cast<int64_t>(requested);
  const std::string& device = DeviceSlotName(slot);
  Record* r = Begin(RecordKind::kMemAlloc, kStorageCategory, nullptr);
  std::snprintf(r->name, kNameCapacity, "Alloc %s", device.c_str());
  r->start = NowTicks();
  r->device_slot = slot;
  r->value = static_cast<int64_t>(requested);
  r->extra = static_cast<int64_t>(actual);
  r->pool_hit = pool_hit;
  Commit();
  RecordCounter(kStorageCategory, device.c_str(), now_in_use);
}
void OnFree(Context ctx, size_t size, void* ptr) {
  if (size == 0 || !Profiler::Get()->Recording(kMemory)) return;
  const int slot = DeviceSlot(ctx);
  // Blocks allocated before the run started are not counted, so never go below zero.
  int64_t now_in_use = InUse()[slot].fetch_sub(static_cast<int64_t>(size)) - static_cast<int64_t>(size);
  if (now_in_use < 0) {
    InUse()[slot].fetch_add(-now_in_use);
    now_in_use = 0;
  }
  const std::string& device = DeviceSlotName(slot);
  Record* r = Begin(RecordKind::kMemFree, kStorageCategory, nullptr);
  std::snprintf(r->name, kNameCapacity, "Free %s", device.c_str());
  r->start = NowTicks();
  r->device_slot = slot;
  r->value = static_cast<int64_t>(size);
  Commit();
  RecordCounter(kStorageCategory, device.c_str(), now_in_use);
}
const Storage::AllocHooks kAllocHooks{&OnAlloc, &OnFree};

// ---- C API
std::atomic<int64_t> g_api_calls{0};
std::atomic<int64_t> g_api_concurrency{0};
void OnApiBegin(const char* api_name) {
  Profiler* p = Profiler::Get();
  if (!p->Recording(kApi)) return;
  tl_api.Push(api_name, p->generation());
  RecordCounter(kApiCategory, "MXNet C API Calls", g_api_calls.fetch_add(1) + 1);
  RecordCounter(kApiCategory, "MXNet C API Concurrency", g_api_concurrency.fetch_add(1) + 1);
}
void OnApiEnd(const char* api_name) {
  Profiler* p = Profiler::Get();
  int64_t start = 0;
  if (!tl_api.Pop(api_name, p->generation(), &start)) return;
  const int64_t concurrency = g_api_concurrency.fetch_sub(1) - 1;
  if (!p->Recording(kApi)) return;
  RecordDuration(RecordKind::kApiCall, kApiCategory, 0, api_name, start, NowTicks());
  RecordCounter(kApiCategory, "MXNet C API Concurrency", concurrency);
}
const ApiCallHooks kApiHooks{&OnApiBegin, &OnApiEnd};
}  // namespace

std::atomic<const ApiCallHooks*> g_api_call_hooks{nullptr};

void InstallHooks(uint32_t mode) {
  Engine::SetOprHooks((mode & (kImperative | kSymbolic)) ? &kOprHooks : nullptr);
  Storage::SetAllocHooks((mode & kMemory) ? &kAllocHooks : nullptr);
  g_api_call_hooks.store((mode & kApi) ? &kApiHooks : nullptr);
}

void ResetMemoryCounters() {
  for (int i = 0; i < DeviceSlotCount(); ++i) InUse()[i].store(0);
}

}  // namespace profiler
}  // namespace mxnet
