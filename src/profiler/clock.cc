#include "profiler/clock.h"

#include <atomic>
#include <mutex>

#if MXNET_PROFILER_HAS_TSC
#include <cpuid.h>
#endif

namespace mxnet {
namespace profiler {

bool TicksAreTsc() {
#if MXNET_PROFILER_HAS_TSC
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  // CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in all power states and
  // is synchronised across cores, so ticks from different threads compare.
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8))) return true;
#endif
  return false;
}

namespace {
struct Calibration {
  std::mutex mu;
  int64_t tick0{0};
  int64_t ns0{0};
  double ns_per_tick{1.0};
  Calibration() {
    tick0 = NowTicks();
    ns0 = SteadyNanos();
    if (!TicksAreTsc()) return;
    // A short first measurement; RecalibrateTicks lengthens the baseline as time passes.
    int64_t t1 = 0, n1 = 0;
    do {
      t1 = NowTicks();
      n1 = SteadyNanos();
    } while (n1 - ns0 < 2000000);
    ns_per_tick = static_cast<double>(n1 - ns0) / static_cast<double>(t1 - tick0);
  }
};
Calibration& GetCalibration() {
  static Calibration* c = new Calibration();  // never destroyed: used while exiting
  return *c;
}
}  // namespace

void RecalibrateTicks() {
  Calibration& c = GetCalibration();
  if (!TicksAreTsc()) return;
  const int64_t t = NowTicks();
  const int64_t n = SteadyNanos();
  std::lock_guard<std::mutex> lock(c.mu);
  // Only a baseline well above clock jitter improves the rate.
  if (n - c.ns0 > 100000000 && t > c.tick0)
    c.ns_per_tick = static_cast<double>(n - c.ns0) / static_cast<double>(t - c.tick0);
}

int64_t TicksToMicros(int64_t ticks) {
  Calibration& c = GetCalibration();
  std::lock_guard<std::mutex> lock(c.mu);
  const double ns = static_cast<double>(c.ns0) + static_cast<double>(ticks - c.tick0) * c.ns_per_tick;
  return static_cast<int64_t>(ns / 1000.0);
}

}  // namespace profiler
}  // namespace mxnet
