#include "profiler/objects.h"

#include "mxnet/error.h"
#include "profiler/categories.h"
#include "profiler/clock.h"
#include "profiler/profiler.h"
#include "profiler/recorder.h"

namespace mxnet {
namespace profiler {

Domain::Domain(const std::string& name) : ProfileObject(Type::kDomain), name_(name), category_(InternCategory(name)) {}

Duration::Duration(RecordKind kind, uint32_t category, const std::string& name)
    : ProfileObject(Type::kDuration), kind_(kind), category_(category), name_(name) {}

void Duration::Start() {
  Profiler* p = Profiler::Get();
  generation_.store(p->generation(), std::memory_order_relaxed);
  start_.store(p->Recording(kUserObjects) ? NowTicks() : -1, std::memory_order_release);
}

void Duration::Stop() {
  const int64_t start = start_.exchange(-1, std::memory_order_acq_rel);
  Profiler* p = Profiler::Get();
  // Started while stopped or paused, or in an earlier run: nothing to pair with.
  if (start < 0 || generation_.load(std::memory_order_relaxed) != p->generation() || !p->Recording(kUserObjects))
    return;
  RecordDuration(kind_, category_, 0, name_.c_str(), start, NowTicks());
}

Counter::Counter(uint32_t category, const std::string& name)
    : ProfileObject(Type::kCounter), category_(category), name_(name) {}

void Counter::Set(int64_t value) {
  value_.store(value);
  Emit(value);
}

void Counter::Adjust(int64_t delta) { Emit(value_.fetch_add(delta) + delta); }

void Counter::Emit(int64_t value) {
  if (Profiler::Get()->Recording(kUserObjects)) RecordCounter(category_, name_.c_str(), value);
}

void SetMarker(const Domain& domain, const std::string& name, const std::string& scope) {
  char letter = 'p';
  if (scope == "global") {
    letter = 'g';
  } else if (scope == "thread") {
    letter = 't';
  } else {
    MX_CHECK_KIND(scope == "process" || scope == "task" || scope == "marker", "ValueError")
        << "Profiler marker scope must be one of global, process, thread, task, marker; got '" << scope << "'";
  }
  if (Profiler::Get()->Recording(kUserObjects)) RecordMarker(domain.category(), name.c_str(), letter);
}

}  // namespace profiler
}  // namespace mxnet
