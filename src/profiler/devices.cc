#include "profiler/devices.h"

#include <thread>
#include <vector>

#include "mxnet/build_config.h"

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

namespace mxnet {
namespace profiler {

namespace {
constexpr int kGpuSlots = MXNET_USE_CUDA ? 32 : 0;

int CpuSlots() {
  static const int n = [] {
#if MXNET_USE_OPENMP
    int procs = omp_get_num_procs();
    if (procs > 0) return procs;
#endif
    int hw = static_cast<int>(std::thread::hardware_concurrency());
    return hw > 0 ? hw : 64;
  }();
  return n;
}

const std::vector<std::string>& Names() {
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>();
    for (int i = 0; i < CpuSlots(); ++i) v->push_back("cpu/" + std::to_string(i));
    for (int i = 0; i < kGpuSlots; ++i) v->push_back("gpu/" + std::to_string(i));
    v->push_back("cpu pinned/");
    v->push_back("cpu shared/");
    return v;
  }();
  return *names;
}

int Clamp(int id, int count) { return id < 0 ? 0 : (id >= count ? count - 1 : id); }
}  // namespace

int DeviceSlotCount() { return static_cast<int>(Names().size()); }

int DeviceSlot(Context ctx) {
  const int cpus = CpuSlots();
  switch (ctx.dev_type) {
    case Context::kGPU:
      // Without CUDA there is no gpu slot; a fake GPU context (tests) lands on the cpu slots.
      return kGpuSlots > 0 ? cpus + Clamp(ctx.dev_id, kGpuSlots) : Clamp(ctx.dev_id, cpus);
    case Context::kCPUPinned:
      return cpus + kGpuSlots;
    case Context::kCPUShared:
      return cpus + kGpuSlots + 1;
    default:
      return Clamp(ctx.dev_id, cpus);
  }
}

const std::string& DeviceSlotName(int slot) { return Names()[Clamp(slot, DeviceSlotCount())]; }

}  // namespace profiler
}  // namespace mxnet
