/*!
 * \file parallel.h
 * \brief Element loops for CPU kernels: OpenMP-parallel once the work exceeds
 *        MXNET_CPU_PARALLEL_SIZE, serial below it (thread start-up costs more than
 *        small loops save).
 */
#ifndef MXNET_OPERATOR_COMMON_PARALLEL_H_
#define MXNET_OPERATOR_COMMON_PARALLEL_H_

#include <cstdint>

#include "mxnet/env.h"

#if MXNET_USE_OPENMP
#include <omp.h>
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
 * \brief Calls fn(i) for i in [0, n). Each index is visited exactly once, so results do
 *        not depend on the thread count when fn writes only its own element.
 */
template <typename F>
inline void ParallelFor(int64_t n, F&& fn) {
  if (UseParallel(n)) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) fn(i);
  } else {
    for (int64_t i = 0; i < n; ++i) fn(i);
  }
}

/*!
 * \brief Calls fn(begin, end) over contiguous chunks covering [0, n); the chunked form
 *        lets the body keep a tight, vectorisable inner loop.
 */
template <typename F>
inline void ParallelChunks(int64_t n, F&& fn) {
  if (UseParallel(n)) {
#pragma omp parallel
    {
#if MXNET_USE_OPENMP
      const int64_t nt = omp_get_num_threads();
      const int64_t t = omp_get_thread_num();
#else
      const int64_t nt = 1, t = 0;
#endif
      const int64_t chunk = (n + nt - 1) / nt;
      const int64_t b = t * chunk;
      const int64_t e = b + chunk < n ? b + chunk : n;
      if (b < e) fn(b, e);
    }
  } else if (n > 0) {
    fn(int64_t{0}, n);
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_PARALLEL_H_
