/*!
 * \file clock.h
 * \brief The profiler's time source. Recording reads a raw tick counter (the invariant TSC
 *        on x86, a few ns; steady_clock nanoseconds elsewhere), because a clock_gettime per
 *        event end doubled the cost of recording an op. The collector turns ticks into
 *        integer microseconds of steady_clock, so end >= start always holds.
 */
#ifndef MXNET_PROFILER_CLOCK_H_
#define MXNET_PROFILER_CLOCK_H_

#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define MXNET_PROFILER_HAS_TSC 1
#else
#define MXNET_PROFILER_HAS_TSC 0
#endif

namespace mxnet {
namespace profiler {

inline int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/*! \brief Whether ticks are TSC cycles (CPU reports an invariant TSC). */
bool TicksAreTsc();

/*! \brief Hot path: the current tick. */
inline int64_t NowTicks() {
#if MXNET_PROFILER_HAS_TSC
  static const bool tsc = TicksAreTsc();
  if (tsc) return static_cast<int64_t>(__rdtsc());
#endif
  return SteadyNanos();
}

/*! \brief Steady-clock microseconds of a tick (collector side; re-measures the tick rate). */
int64_t TicksToMicros(int64_t ticks);
/*! \brief Refines the tick rate against steady_clock; called by the collector before converting. */
void RecalibrateTicks();

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_CLOCK_H_
