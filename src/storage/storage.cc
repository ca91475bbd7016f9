// The process-wide Storage: routes each handle to its device's manager, creating managers
// on first use, and reports every allocation to the installed hooks.
#include "mxnet/storage.h"

#include <array>
#include <atomic>
#include <mutex>
#include <vector>

#include "common/runtime_info.h"
#include "common/shutdown.h"
#include "mxnet/error.h"
#include "storage/cpu_allocator.h"
#include "storage/device_allocators.h"
#include "storage/pool_config.h"
#include "storage/shared_memory_allocator.h"
#include "storage/storage_manager.h"

namespace mxnet {

namespace {

using storage::StorageManager;

std::atomic<const Storage::AllocHooks*> g_alloc_hooks{nullptr};

// Far beyond any device; keeps every rounding computation clear of overflow.
constexpr size_t kMaxAllocBytes = size_t{1} << 48;
// Device ids a manager slot exists for (GPUs and pinned pools per GPU).
constexpr unsigned kMaxDeviceIds = 64;
constexpr int kNumDeviceKinds = 4;

const char* DeviceKindName(Context::DeviceType t) {
  switch (t) {
    case Context::kCPU:
      return "cpu";
    case Context::kGPU:
      return "gpu";
    case Context::kCPUPinned:
      return "cpu_pinned";
    case Context::kCPUShared:
      return "cpu_shared";
  }
  return "?";
}

std::unique_ptr<StorageManager> MakeManager(Context ctx) {
  using storage::CreatePoolManager;
  using storage::PoolConfigFromEnv;
  if (ctx.dev_type == Context::kCPUShared) return std::make_unique<storage::SharedMemoryManager>();
  storage::PoolConfig config = PoolConfigFromEnv(ctx.dev_type);
  std::unique_ptr<storage::RawAllocator> allocator;
  switch (ctx.dev_type) {
    case Context::kGPU:
      allocator = storage::MakeGpuAllocator(ctx.dev_id);
      break;
    // Pinned memory keeps its own pool and variables even where it falls back to plain
    // memory: loaders churn these buffers every batch, so caching them pays either way.
    case Context::kCPUPinned:
      allocator = storage::MakePinnedAllocator();
      break;
    default:
      allocator = storage::MakeCpuAllocator();
      break;
  }
  common::SetRuntimeInfo(std::string("storage_pool_") + DeviceKindName(ctx.dev_type),
                         storage::PoolTypeName(config.type));
  return CreatePoolManager(config, std::move(allocator));
}

class StorageImpl final : public Storage {
 public:
  StorageImpl() {
    for (auto& kind : slots_) {
      for (auto& slot : kind) slot.store(nullptr, std::memory_order_relaxed);
    }
  }

  ~StorageImpl() override = default;  // owned_ releases every cache on its way out

  Handle Alloc(size_t size, Context ctx) override {
    Handle handle;
    handle.size = size;
    handle.ctx = ctx;
    Alloc(&handle);
    return handle;
  }

  void Alloc(Handle* handle) override {
    if (handle->size == 0) {
      handle->dptr = nullptr;
      return;
    }
    if (__builtin_expect(handle->size > kMaxAllocBytes, 0)) ThrowTooLarge(*handle);
    storage::AllocOutcome outcome = ManagerFor(handle->ctx, true)->Alloc(handle);
    const AllocHooks* hooks = g_alloc_hooks.load(std::memory_order_acquire);
    if (hooks != nullptr && hooks->on_alloc != nullptr) {
      hooks->on_alloc(handle->ctx, handle->size, outcome.actual, handle->dptr, outcome.pool_hit);
    }
  }

  void Free(Handle handle) override { FreeImpl(handle, false); }
  void DirectFree(Handle handle) override { FreeImpl(handle, true); }

  void SharedIncrementRefCount(Handle handle) override {
    StorageManager* manager = ManagerFor(handle.ctx, false);
    MX_CHECK_KIND(manager != nullptr, "ValueError")
        << "SharedIncrementRefCount: nothing was allocated on " << handle.ctx.ToString() << ".";
    manager->SharedIncrementRefCount(handle);
  }

  void ReleaseAll(Context ctx) override {
    // Emptying a device that never allocated has nothing to do, not an error.
    if (StorageManager* manager = ManagerFor(ctx, false)) manager->ReleaseAll();
  }

  StorageStats Stats(Context ctx) override {
    StorageManager* manager = ManagerFor(ctx, false);
    return manager != nullptr ? manager->Stats() : StorageStats{};
  }

  void ReleaseEverything() {
    std::lock_guard<std::mutex> lock(create_mu_);
    for (auto& manager : owned_) manager->ReleaseAll();
  }

 private:
  void FreeImpl(const Handle& handle, bool direct) {
    if (handle.dptr == nullptr) return;
    StorageManager* manager = ManagerFor(handle.ctx, false);
    if (__builtin_expect(manager == nullptr, 0)) ThrowNotAllocated(handle);
    if (direct) {
      manager->DirectFree(handle);
    } else {
      manager->Free(handle);
    }
    const AllocHooks* hooks = g_alloc_hooks.load(std::memory_order_acquire);
    if (hooks != nullptr && hooks->on_free != nullptr) hooks->on_free(handle.ctx, handle.size, handle.dptr);
  }

  /*! \brief Lock-free look-up of a created manager; creation is serialised. */
  inline StorageManager* ManagerFor(Context ctx, bool create) {
    // Slot row per device type (index = dev_type); -1 for numbers that are no device type.
    static constexpr int kRow[] = {-1, 0, 1, 2, -1, 3};
    const unsigned type = static_cast<unsigned>(ctx.dev_type);
    const int row = type < sizeof(kRow) / sizeof(kRow[0]) ? kRow[type] : -1;
    // Every cpu(i) shares one manager, as in MXNet: host memory is one pool.
    const int id = ctx.dev_type == Context::kCPU || ctx.dev_type == Context::kCPUShared ? 0 : ctx.dev_id;
    if (__builtin_expect(row < 0 || ctx.dev_id < 0 || static_cast<unsigned>(id) >= kMaxDeviceIds, 0)) {
      ThrowBadContext(ctx);
    }
    std::atomic<StorageManager*>& slot = slots_[row][id];
    StorageManager* manager = slot.load(std::memory_order_acquire);
    if (manager != nullptr || !create) return manager;
    return CreateManager(&slot, Context{ctx.dev_type, id});
  }

  /*! \brief First use of a device; kept out of line so the look-up above stays small. */
  __attribute__((noinline)) StorageManager* CreateManager(std::atomic<StorageManager*>* slot, Context ctx) {
    std::lock_guard<std::mutex> lock(create_mu_);
    StorageManager* manager = slot->load(std::memory_order_relaxed);
    if (manager == nullptr) {
      owned_.push_back(MakeManager(ctx));
      manager = owned_.back().get();
      slot->store(manager, std::memory_order_release);
    }
    return manager;
  }

  [[noreturn]] __attribute__((noinline, cold)) static void ThrowBadContext(Context ctx) {
    MX_CHECK_KIND(ctx.dev_type == Context::kCPU || ctx.dev_type == Context::kGPU ||
                      ctx.dev_type == Context::kCPUPinned || ctx.dev_type == Context::kCPUShared,
                  "ValueError")
        << "Unknown device type " << static_cast<int>(ctx.dev_type)
        << ": expected 1 (cpu), 2 (gpu), 3 (cpu_pinned) or 5 (cpu_shared).";
    MX_CHECK_KIND(ctx.dev_id >= 0, "ValueError") << "Device id must be >= 0, got " << ctx.dev_id << ".";
    MX_THROW("ValueError") << "Device id of " << ctx.ToString() << " must be in 0.." << kMaxDeviceIds - 1 << ".";
    __builtin_unreachable();
  }

  [[noreturn]] __attribute__((noinline, cold)) static void ThrowNotAllocated(const Handle& handle) {
    MX_THROW("ValueError") << "Cannot free memory on " << handle.ctx.ToString()
                           << ": nothing was allocated on that device.";
    __builtin_unreachable();
  }

  [[noreturn]] __attribute__((noinline, cold)) static void ThrowTooLarge(const Handle& handle) {
    MX_THROW("MemoryError") << "Out of memory on " << handle.ctx.ToString() << ": cannot allocate " << handle.size
                            << " bytes.";
    __builtin_unreachable();
  }

  std::array<std::array<std::atomic<StorageManager*>, kMaxDeviceIds>, kNumDeviceKinds> slots_;
  std::mutex create_mu_;
  std::vector<std::unique_ptr<StorageManager>> owned_;
};

}  // namespace

std::shared_ptr<Storage> Storage::_GetSharedRef() {
  // Never destroyed: engine workers may still free arrays while static destructors run at
  // exit, so the manager must outlive every other static object (as the engine does).
  static auto* instance = new std::shared_ptr<Storage>([] {
    auto impl = std::make_shared<StorageImpl>();
    // MXNotifyShutdown gives cached blocks back; blocks still in use are left alone.
    std::weak_ptr<StorageImpl> weak = impl;
    common::RegisterShutdownHandler([weak] {
      if (auto alive = weak.lock()) alive->ReleaseEverything();
    });
    return std::shared_ptr<Storage>(impl);
  }());
  return *instance;
}

Storage* Storage::Get() {
  static Storage* instance = _GetSharedRef().get();
  return instance;
}

void Storage::SetAllocHooks(const AllocHooks* hooks) { g_alloc_hooks.store(hooks, std::memory_order_release); }

Storage::~Storage() = default;

}  // namespace mxnet
