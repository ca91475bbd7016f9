/*!
 * \file recorder.h
 * \brief Writing records into the calling thread's buffer, and the hooks through which
 *        the engine, storage and C API report to the profiler.
 */
#ifndef MXNET_PROFILER_RECORDER_H_
#define MXNET_PROFILER_RECORDER_H_

#include <cstdint>

#include "profiler/record.h"

namespace mxnet {
namespace profiler {

/*! \brief A finished duration (kOperator uses device_slot; the others use category). */
void RecordDuration(RecordKind kind, uint32_t category, int device_slot, const char* name, int64_t start, int64_t end,
                    bool symbolic = false);
void RecordCounter(uint32_t category, const char* name, int64_t value);
/*! \brief An instant marker; scope is 'g', 'p' or 't'. */
void RecordMarker(uint32_t category, const char* name, char scope);

/*! \brief Installs (or with bits 0 removes) the engine, storage and API hooks for these modes. */
void InstallHooks(uint32_t mode);
/*! \brief Clears per-device memory counters (a new run counts from zero). */
void ResetMemoryCounters();

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_RECORDER_H_
