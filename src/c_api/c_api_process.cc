// Process-wide settings: denormals, OpenMP threads, shutdown, GPU count.
#include <omp.h>
#include <xmmintrin.h>
#include <pmmintrin.h>

#include "c_api/api_guard.h"
#include "common/shutdown.h"
#include "mxnet/c_api.h"
#include "mxnet/error.h"

#include "storage/device_allocators.h"

int MXSetFlushDenorms(bool value, bool* prev_state) {
  API_BEGIN();
  // FTZ and DAZ together: denormal inputs and outputs are both treated as zero.
  unsigned int csr = _mm_getcsr();
  bool prev = (csr & _MM_FLUSH_ZERO_ON) && (csr & _MM_DENORMALS_ZERO_ON);
  _MM_SET_FLUSH_ZERO_MODE(value ? _MM_FLUSH_ZERO_ON : _MM_FLUSH_ZERO_OFF);
  _MM_SET_DENORMALS_ZERO_MODE(value ? _MM_DENORMALS_ZERO_ON : _MM_DENORMALS_ZERO_OFF);
  if (prev_state) *prev_state = prev;
  API_END();
}

int MXSetNumOMPThreads(int thread_num) {
  API_BEGIN();
  MX_CHECK_KIND(thread_num > 0, "ValueError") << "MXSetNumOMPThreads: thread count must be > 0, got " << thread_num;
  omp_set_num_threads(thread_num);
  API_END();
}

int MXNotifyShutdown() {
  API_BEGIN();
  mxnet::common::RunShutdownHandlers();
  API_END();
}

int MXGetGPUCount(int* out) {
  API_BEGIN();
  // No driver or no device both mean "no GPU here", not an error.
  *out = mxnet::storage::VisibleGpuCount();
  API_END();
}
