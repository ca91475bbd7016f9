/*!
 * \file record.h
 * \brief One recorded profiler event, fixed size so recording never touches the heap:
 *        names are copied (truncated) into an inline array.
 */
#ifndef MXNET_PROFILER_RECORD_H_
#define MXNET_PROFILER_RECORD_H_

#include <cstdint>
#include <cstring>

namespace mxnet {
namespace profiler {

enum class RecordKind : uint8_t {
  kOperator,  // engine op: B/E pair on the device's process
  kApiCall,   // C API call: b/e async pair
  kTask,      // user Task: b/e async pair
  kFrame,     // user Frame: (/) pair
  kEvent,     // user Event: B/E pair
  kCounter,   // counter update: C
  kMarker,    // instant marker: n
  kMemAlloc,  // storage allocation: i with sizes
  kMemFree    // storage free: i with size
};

/*! \brief Mode bits of MXNET_PROFILER_MODE; a record is kept only when its bit is on. */
enum ModeBit : uint32_t { kSymbolic = 1, kImperative = 2, kApi = 4, kMemory = 8, kAllModes = 15 };
/*! \brief Not a mode: on while running and not paused, for user objects (tasks, counters...). */
constexpr uint32_t kUserObjects = 1u << 8;

/*! \brief Longest name kept; longer names are truncated (operator names are far shorter). */
constexpr size_t kNameCapacity = 112;

struct Record {
  RecordKind kind;
  char scope;         // marker scope letter: 'g', 'p' or 't'
  bool symbolic;      // operators: ran from a graph rather than imperatively
  bool pool_hit;      // kMemAlloc
  uint32_t category;  // interned category (domain) id, see categories.h
  int32_t device_slot;
  uint64_t tid;  // hash of the recording thread's id
  // Ticks (clock.h) while buffered; the collector converts them to microseconds.
  int64_t start;  // durations: start; others: the time of the event
  int64_t end;    // durations only
  int64_t value;  // counters: the value; memory: requested bytes
  int64_t extra;  // memory: bytes actually held
  char name[kNameCapacity];

  void SetName(const char* text) {
    if (text == nullptr || *text == '\0') text = "<unknown>";
    size_t n = std::strlen(text);
    if (n >= kNameCapacity) n = kNameCapacity - 1;
    std::memcpy(name, text, n);
    name[n] = '\0';
  }
};

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_RECORD_H_
