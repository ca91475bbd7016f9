/*!
 * \file parallel.h
 * \brief Element loops for CPU kernels: OpenMP-parallel once the work exceeds
 *        MXNET_CPU_PARALLEL_SIZE, serial below it (thread start-up costs more than
 *        small loops save).
 */
#ifndef MXNET_OPERATOR_COMMON_PARALLEL_H_
#define MXNET_OPERATOR_COMMON_PARALLEL_H_

#include <cstdint>
#include <set>
#include <string>

#include "mxnet/env.h"

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

/*!
 * \brief Marks a loop the compiler must vectorise (its iterations are independent): -O2's
 *        cost model otherwise leaves loops over vector_math.h's functions scalar.
 */
#if defined(_OPENMP)
#define MXNET_SIMD _Pragma("omp simd")
/*! \brief MXNET_SIMD for a loop that ORs into the int `any` (a vectorised "does any element ..."). */
#define MXNET_SIMD_OR_ANY _Pragma("omp simd reduction(|:any)")
#else
#define MXNET_SIMD _Pragma("GCC ivdep")
#define MXNET_SIMD_OR_ANY _Pragma("GCC ivdep")
#endif

namespace mxnet {
namespace op {

/*! \brief Whether a loop over n elements is worth running on several threads. */
inline bool UseParallel(int64_t n) {
#if MXNET_USE_OPENMP
  return n >= env::GetInt(env::Var::MXNET_CPU_PARALLEL_SIZE);
#else
  (void)n;
  return false;
#endif
}

/*!
 * \brief Operator tuning (MXNET_USE_OPERATOR_TUNING, "0", "1" or a list of dtypes): whether
 *        element loops of this dtype (-1: any) decide on threads from their measured cost
 *        instead of their size alone.
 */
bool TuningEnabledFor(int dtype);
/*! \brief A parsed MXNET_USE_OPERATOR_TUNING value. */
struct TuningSetting {
  explicit TuningSetting(const std::string& value);
  bool Enabled(int dtype) const;
  bool all{true}, none{false};
  std::set<int> dtypes;
};
/*! \brief Serial time of the whole loop from which threads pay off (tuned loops). */
constexpr int64_t kParallelWorthNs = 25000;
/*! \brief Elements run serially to time a tuned loop (the rest is estimated from them). */
constexpr int64_t kTuningProbe = 1024;
/*! \brief Nanoseconds on a monotonic clock (the probe's timer). */
int64_t TuningClockNs();

/*!
 * \brief Runs body(b, e) over [0, n) in contiguous ranges, choosing serial or parallel:
 *        - tuning off (or this dtype not tuned): parallel from MXNET_CPU_PARALLEL_SIZE elements;
 *        - tuning on: the first kTuningProbe elements run serially and are timed; the rest go
 *          parallel only if their estimated serial time is at least kParallelWorthNs. An exp
 *          is worth threads at a tenth of the elements an add is, and a loop whose threads
 *          would mostly wait (a small op) stays on one.
 *        Every element is visited once, so results do not depend on the choice.
 */
template <typename F>
inline void TunedChunks(int64_t n, int dtype, F&& body) {
  if (n <= 0) return;
#if MXNET_USE_OPENMP
  int64_t start = 0;
  bool parallel;
  if (!TuningEnabledFor(dtype) || n < 2 * kTuningProbe) {
    parallel = UseParallel(n);
  } else {
    const int64_t t0 = TuningClockNs();
    body(int64_t{0}, kTuningProbe);
    const int64_t probe_ns = TuningClockNs() - t0;
    start = kTuningProbe;
    parallel = omp_get_max_threads() > 1 && probe_ns * (n - start) >= kParallelWorthNs * kTuningProbe;
  }
  if (parallel) {
#pragma omp parallel
    {
      const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t len = n - start, chunk = (len + nt - 1) / nt;
      const int64_t b = start + t * chunk, e = b + chunk < n ? b + chunk : n;
      if (b < e) body(b, e);
    }
  } else if (start < n) {
    body(start, n);
  }
#else
  (void)dtype;
  body(int64_t{0}, n);
#endif
}

/*!
 * \brief Calls fn(i) for i in [0, n). Each index is visited exactly once, so results do
 *        not depend on the thread count when fn writes only its own element.
 */
template <typename F>
inline void ParallelFor(int64_t n, F&& fn, int dtype = -1) {
  TunedChunks(n, dtype, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) fn(i);
  });
}

/*!
 * \brief Calls fn(begin, end) over contiguous chunks covering [0, n); the chunked form
 *        lets the body keep a tight, vectorisable inner loop.
 */
template <typename F>
inline void ParallelChunks(int64_t n, F&& fn, int dtype = -1) {
  TunedChunks(n, dtype, fn);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_PARALLEL_H_
