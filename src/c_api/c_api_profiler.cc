// C API of the profiler: settings, state, dumps, statistics and user annotations.
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/error.h"
#include "profiler/categories.h"
#include "profiler/objects.h"
#include "profiler/profiler.h"
#include "profiler/scope.h"

namespace {
using mxnet::profiler::ProfileObject;
using mxnet::profiler::Profiler;
struct StatsTag;

// Only worker (0) exists in a process without kvstore servers; the server side is rejected
// with a message rather than silently profiling this process instead.
void CheckProcess(int profile_process, const char* api) {
  MX_CHECK_KIND(profile_process == 0 || profile_process == 1, "ValueError")
      << api << ": profile_process must be 0 (worker) or 1 (server), got " << profile_process;
  MX_CHECK_KIND(profile_process == 0, "ValueError")
      << api << ": profile_process=server needs a distributed kvstore with servers; this process has none";
}

void SetConfig(int num_params, const char* const* keys, const char* const* vals, const char* api) {
  MX_CHECK_KIND(num_params >= 0, "ValueError") << api << ": num_params must be >= 0, got " << num_params;
  MX_CHECK_KIND(num_params == 0 || (keys != nullptr && vals != nullptr), "ValueError")
      << api << ": keys and vals must not be NULL";
  std::vector<std::string> k, v;
  for (int i = 0; i < num_params; ++i) {
    MX_CHECK_KIND(keys[i] != nullptr && vals[i] != nullptr, "ValueError")
        << api << ": key or value " << i << " is NULL";
    k.emplace_back(keys[i]);
    v.emplace_back(vals[i]);
  }
  Profiler::Get()->SetConfig(mxnet::profiler::ParseConfig(k, v));
}

void SetState(int state, const char* api) {
  MX_CHECK_KIND(state == 0 || state == 1, "ValueError") << api << ": state must be 0 (stop) or 1 (run), got " << state;
  Profiler::Get()->SetRunning(state == 1);
}

template <typename T>
T* Cast(ProfileHandle handle, ProfileObject::Type type, const char* what, const char* api) {
  MX_CHECK_KIND(handle != nullptr, "ValueError") << api << ": " << what << " handle is NULL";
  auto* obj = static_cast<ProfileObject*>(handle);
  MX_CHECK_KIND(obj->type() == type, "TypeError") << api << ": the handle is not a profiler " << what;
  return static_cast<T*>(obj);
}

const char* CheckName(const char* name, const char* api) {
  MX_CHECK_KIND(name != nullptr, "ValueError") << api << ": name is NULL";
  return name;
}
}  // namespace

int MXSetProfilerConfig(int num_params, const char* const* keys, const char* const* vals) {
  API_BEGIN();
  SetConfig(num_params, keys, vals, __func__);
  API_END();
}

int MXSetProcessProfilerConfig(int num_params, const char* const* keys, const char* const* vals, KVStoreHandle kv) {
  API_BEGIN();
  SetConfig(num_params, keys, vals, __func__);
  API_END();
}

int MXSetProfilerState(int state) {
  API_BEGIN();
  SetState(state, __func__);
  API_END();
}

int MXSetProcessProfilerState(int state, int profile_process, KVStoreHandle kv) {
  API_BEGIN();
  CheckProcess(profile_process, __func__);
  SetState(state, __func__);
  API_END();
}

int MXDumpProfile(int finished) {
  API_BEGIN();
  Profiler::Get()->Dump(finished != 0);
  API_END();
}

int MXDumpProcessProfile(int finished, int profile_process, KVStoreHandle kv) {
  API_BEGIN();
  CheckProcess(profile_process, __func__);
  Profiler::Get()->Dump(finished != 0);
  API_END();
}

namespace {
void PrintStats(const char** out_str, int reset, int format, int sort_by, int ascending, const char* api) {
  MX_CHECK_KIND(out_str != nullptr, "ValueError") << api << ": out_str is NULL";
  MX_CHECK_KIND(format == 0 || format == 1, "ValueError")
      << api << ": format must be 0 (table) or 1 (json), got " << format;
  MX_CHECK_KIND(sort_by >= 0 && sort_by <= 4, "ValueError")
      << api << ": sort_by must be 0 (total), 1 (avg), 2 (min), 3 (max) or 4 (count), got " << sort_by;
  std::string& text = mxnet::capi::ThreadLocalReturn<StatsTag, std::string>();
  text = Profiler::Get()->AggregateText(reset != 0, static_cast<mxnet::profiler::StatsFormat>(format),
                                        static_cast<mxnet::profiler::StatsSortBy>(sort_by), ascending != 0);
  *out_str = text.c_str();
}
}  // namespace

int MXAggregateProfileStatsPrintEx(const char** out_str, int reset, int format, int sort_by, int ascending) {
  API_BEGIN();
  PrintStats(out_str, reset, format, sort_by, ascending, __func__);
  API_END();
}

int MXAggregateProfileStatsPrint(const char** out_str, int reset) {
  API_BEGIN();
  PrintStats(out_str, reset, 0, 0, 0, __func__);
  API_END();
}

int MXProfilePause(int paused) {
  API_BEGIN();
  Profiler::Get()->SetPaused(paused != 0);
  API_END();
}

int MXProcessProfilePause(int paused, int profile_process, KVStoreHandle kv) {
  API_BEGIN();
  CheckProcess(profile_process, __func__);
  Profiler::Get()->SetPaused(paused != 0);
  API_END();
}

int MXProfileCreateDomain(const char* domain, ProfileHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << __func__ << ": out is NULL";
  *out = new mxnet::profiler::Domain(CheckName(domain, __func__));
  API_END();
}

namespace {
void CreateDuration(mxnet::profiler::RecordKind kind, ProfileHandle domain, const char* name, ProfileHandle* out,
                    const char* api) {
  MX_CHECK_KIND(out != nullptr, "ValueError") << api << ": out is NULL";
  auto* d = Cast<mxnet::profiler::Domain>(domain, ProfileObject::Type::kDomain, "domain", api);
  *out = new mxnet::profiler::Duration(kind, d->category(), CheckName(name, api));
}
}  // namespace

int MXProfileCreateTask(ProfileHandle domain, const char* task_name, ProfileHandle* out) {
  API_BEGIN();
  CreateDuration(mxnet::profiler::RecordKind::kTask, domain, task_name, out, __func__);
  API_END();
}

int MXProfileCreateFrame(ProfileHandle domain, const char* frame_name, ProfileHandle* out) {
  API_BEGIN();
  CreateDuration(mxnet::profiler::RecordKind::kFrame, domain, frame_name, out, __func__);
  API_END();
}

int MXProfileCreateEvent(const char* event_name, ProfileHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << __func__ << ": out is NULL";
  *out = new mxnet::profiler::Duration(mxnet::profiler::RecordKind::kEvent, mxnet::profiler::kEventCategory,
                                       CheckName(event_name, __func__));
  API_END();
}

int MXProfileCreateCounter(ProfileHandle domain, const char* counter_name, ProfileHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << __func__ << ": out is NULL";
  auto* d = Cast<mxnet::profiler::Domain>(domain, ProfileObject::Type::kDomain, "domain", __func__);
  *out = new mxnet::profiler::Counter(d->category(), CheckName(counter_name, __func__));
  API_END();
}

int MXProfileDestroyHandle(ProfileHandle frame_handle) {
  API_BEGIN();
  delete static_cast<ProfileObject*>(frame_handle);
  API_END();
}

int MXProfileDurationStart(ProfileHandle duration_handle) {
  API_BEGIN();
  Cast<mxnet::profiler::Duration>(duration_handle, ProfileObject::Type::kDuration, "task/frame/event", __func__)
      ->Start();
  API_END();
}

int MXProfileDurationStop(ProfileHandle duration_handle) {
  API_BEGIN();
  Cast<mxnet::profiler::Duration>(duration_handle, ProfileObject::Type::kDuration, "task/frame/event", __func__)
      ->Stop();
  API_END();
}

int MXProfileSetCounter(ProfileHandle counter_handle, uint64_t value) {
  API_BEGIN();
  Cast<mxnet::profiler::Counter>(counter_handle, ProfileObject::Type::kCounter, "counter", __func__)
      ->Set(static_cast<int64_t>(value));
  API_END();
}

int MXProfileAdjustCounter(ProfileHandle counter_handle, int64_t value) {
  API_BEGIN();
  Cast<mxnet::profiler::Counter>(counter_handle, ProfileObject::Type::kCounter, "counter", __func__)->Adjust(value);
  API_END();
}

int MXProfileSetMarker(ProfileHandle domain, const char* instant_marker_name, const char* scope) {
  API_BEGIN();
  auto* d = Cast<mxnet::profiler::Domain>(domain, ProfileObject::Type::kDomain, "domain", __func__);
  mxnet::profiler::SetMarker(*d, CheckName(instant_marker_name, __func__), scope ? scope : "process");
  API_END();
}

int MXSetProfilerScope(const char* scope) {
  API_BEGIN();
  mxnet::profiler::SetThreadScope(CheckName(scope, __func__));
  API_END();
}
