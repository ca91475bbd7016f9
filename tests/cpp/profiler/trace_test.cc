// The profiler end to end in C++: engine ops, storage, pause, aggregates, the trace file.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mxnet/c_api.h"
#include "mxnet/engine.h"
#include "mxnet/error.h"
#include "mxnet/storage.h"
#include "profiler/config.h"
#include "profiler/profiler.h"

namespace mxnet {
namespace profiler {
namespace {

// One trace event as written: one object per line in our writer.
struct Event {
  std::string name, cat, ph;
  int64_t ts{0};
  std::string line;
};

std::vector<Event> ReadEvents(const std::string& path, std::string* whole = nullptr) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (whole) *whole = ss.str();
  std::vector<Event> events;
  std::regex re("\\{\"name\": \"([^\"]*)\", \"cat\": \"([^\"]*)\", \"ph\": \"(.)\", \"ts\": (-?[0-9]+)");
  std::string line;
  std::istringstream lines(ss.str());
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, re)) events.push_back({m[1], m[2], m[3], std::stoll(m[4]), line});
  }
  return events;
}

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "prof_" + name + ".json"; }

void Configure(const std::string& file, std::vector<std::string> keys, std::vector<std::string> vals) {
  keys.push_back("filename");
  vals.push_back(file);
  keys.push_back("continuous_dump");
  vals.push_back("False");
  Profiler::Get()->SetConfig(ParseConfig(keys, vals));
}

void PushOps(const char* name, int n) {
  Engine* engine = Engine::Get();
  engine::VarHandle var = engine->NewVariable();
  for (int i = 0; i < n; ++i) {
    engine->PushSync([](RunContext) {}, Context::CPU(), {}, {var}, FnProperty::kNormal, 0, name);
  }
  engine->WaitForAll();
  engine->DeleteVariable([](RunContext) {}, Context::CPU(), var);
  engine->WaitForAll();
}

int Count(const std::vector<Event>& events, const std::string& name, const std::string& ph) {
  int n = 0;
  for (const Event& e : events) n += (e.name == name && e.ph == ph);
  return n;
}

// Must run first in this program: the profiler has not run yet.
TEST(ProfilerTrace, DumpBeforeEverRunningFails) {
  EXPECT_EQ(MXDumpProfile(1), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("Profiler hasn't been run"), std::string::npos);
}

TEST(ProfilerTrace, ExactlyTheOpsThatRanWithSaneTimes) {
  const std::string file = TempPath("ops");
  Configure(file, {"profile_imperative", "profile_api", "profile_memory"}, {"True", "False", "False"});
  Profiler::Get()->SetRunning(true);
  PushOps("prof_op_a", 5);
  PushOps("prof_op_b", 3);
  Profiler::Get()->SetRunning(false);
  PushOps("prof_op_after_stop", 2);
  Profiler::Get()->Dump(true);

  std::string text;
  auto events = ReadEvents(file, &text);
  EXPECT_EQ(text.rfind("{\n    \"traceEvents\": [\n", 0), 0u);
  EXPECT_NE(text.find("\"displayTimeUnit\": \"ms\"\n}"), std::string::npos);
  EXPECT_NE(text.find("{\"ph\": \"M\", \"args\": {\"name\": \"cpu/0\"}, \"pid\": 0, \"name\": \"process_name\"}"),
            std::string::npos);
  EXPECT_EQ(Count(events, "prof_op_a", "B"), 5);
  EXPECT_EQ(Count(events, "prof_op_a", "E"), 5);
  EXPECT_EQ(Count(events, "prof_op_b", "B"), 3);
  EXPECT_EQ(Count(events, "prof_op_after_stop", "B"), 0);
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    if (events[i].ph != "B") continue;
    // Each B is immediately followed by its E, same op, not earlier.
    ASSERT_EQ(events[i + 1].ph, "E");
    EXPECT_EQ(events[i + 1].name, events[i].name);
    EXPECT_GE(events[i + 1].ts, events[i].ts);
    EXPECT_EQ(events[i].cat, "operator");
    EXPECT_NE(events[i].line.find("\"pid\": 0,"), std::string::npos);  // cpu(0) is device slot 0
  }
  for (const Event& e : events) EXPECT_NE(e.cat, "MXNET_C_API");  // API bit off
  std::remove(file.c_str());
}

TEST(ProfilerTrace, MemoryCountersFollowAllocAndFree) {
  const std::string file = TempPath("mem");
  Configure(file, {"profile_imperative", "profile_api", "profile_memory", "profile_symbolic"},
            {"False", "False", "True", "False"});
  Profiler::Get()->SetRunning(true);
  Storage::Handle h = Storage::Get()->Alloc(4096, Context::CPU());
  Storage::Get()->Free(h);
  PushOps("prof_not_recorded", 2);
  Profiler::Get()->SetRunning(false);
  Profiler::Get()->Dump(true);
  auto events = ReadEvents(file);
  std::vector<std::string> counters;
  for (const Event& e : events) {
    EXPECT_NE(e.cat, "operator");
    if (e.ph == "C" && e.cat == "Device Storage") counters.push_back(e.line);
  }
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_NE(counters[0].find("\"args\": {\"cpu/0\": 4096}"), std::string::npos) << counters[0];
  EXPECT_NE(counters[1].find("\"args\": {\"cpu/0\": 0}"), std::string::npos) << counters[1];
  EXPECT_EQ(Count(events, "Alloc cpu/0", "i"), 1);
  EXPECT_EQ(Count(events, "Free cpu/0", "i"), 1);
  std::remove(file.c_str());
}

TEST(ProfilerTrace, PausedOpsAreDropped) {
  const std::string file = TempPath("pause");
  Configure(file, {"profile_api", "profile_memory"}, {"False", "False"});
  Profiler::Get()->SetRunning(true);
  PushOps("prof_before_pause", 2);
  Profiler::Get()->SetPaused(true);
  PushOps("prof_while_paused", 3);
  Profiler::Get()->SetPaused(false);
  PushOps("prof_after_resume", 4);
  Profiler::Get()->SetRunning(false);
  Profiler::Get()->Dump(true);
  auto events = ReadEvents(file);
  EXPECT_EQ(Count(events, "prof_before_pause", "B"), 2);
  EXPECT_EQ(Count(events, "prof_while_paused", "B"), 0);
  EXPECT_EQ(Count(events, "prof_after_resume", "B"), 4);
  std::remove(file.c_str());
}

TEST(ProfilerTrace, AggregateCountsEqualCalls) {
  const std::string file = TempPath("agg");
  Configure(file, {"aggregate_stats", "profile_api", "profile_memory"}, {"True", "False", "False"});
  Profiler::Get()->SetRunning(true);
  PushOps("prof_agg_op", 7);
  Profiler::Get()->SetRunning(false);
  const std::string json = Profiler::Get()->AggregateText(true, StatsFormat::kJson, StatsSortBy::kCount, false);
  EXPECT_NE(json.find("\"prof_agg_op\": {\"Count\": 7,"), std::string::npos) << json;
  // reset=true cleared them.
  EXPECT_EQ(Profiler::Get()->AggregateText(false, StatsFormat::kJson, StatsSortBy::kTotal, false).find("prof_agg_op"),
            std::string::npos);
  Profiler::Get()->Dump(true);
  std::remove(file.c_str());
}

TEST(ProfilerTrace, ContinuousDumpsAppendToOneValidFile) {
  const std::string file = TempPath("append");
  Configure(file, {"profile_api", "profile_memory"}, {"False", "False"});
  Profiler::Get()->SetRunning(true);
  PushOps("prof_first", 1);
  Profiler::Get()->Dump(false);
  PushOps("prof_second", 1);
  Profiler::Get()->SetRunning(false);
  Profiler::Get()->Dump(true);
  Profiler::Get()->Dump(true);  // after finished: nothing more is written
  std::string text;
  auto events = ReadEvents(file, &text);
  EXPECT_EQ(Count(events, "prof_first", "B"), 1);
  EXPECT_EQ(Count(events, "prof_second", "B"), 1);
  size_t closes = 0;
  for (size_t pos = text.find("displayTimeUnit"); pos != std::string::npos; pos = text.find("displayTimeUnit", pos + 1))
    ++closes;
  EXPECT_EQ(closes, 1u);
  EXPECT_EQ(text.find("traceEvents"), text.rfind("traceEvents"));
  std::remove(file.c_str());
}

TEST(ProfilerTrace, CApiRejectsBadConfigAndState) {
  const char* keys[] = {"profile_bogus"};
  const char* vals[] = {"True"};
  EXPECT_EQ(MXSetProfilerConfig(1, keys, vals), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("profile_bogus"), std::string::npos);
  EXPECT_EQ(MXSetProfilerState(2), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("0 (stop) or 1 (run)"), std::string::npos);
  ProfileHandle domain = nullptr;
  ASSERT_EQ(MXProfileCreateDomain("d", &domain), 0);
  EXPECT_EQ(MXProfileSetMarker(domain, "m", "galaxy"), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("global, process, thread"), std::string::npos);
  EXPECT_EQ(MXProfileDurationStart(domain), -1);  // a domain is not a duration
  EXPECT_EQ(MXProfileDestroyHandle(domain), 0);
}

TEST(ProfilerTrace, ManyThreadsRecordWhileDumpsRun) {
  const std::string file = TempPath("threads");
  Configure(file, {"profile_api", "profile_memory", "aggregate_stats"}, {"False", "False", "True"});
  Profiler::Get()->SetRunning(true);
  ProfileHandle domain = nullptr, counter = nullptr;
  ASSERT_EQ(MXProfileCreateDomain("threads", &domain), 0);
  ASSERT_EQ(MXProfileCreateCounter(domain, "hits", &counter), 0);
  constexpr int kThreads = 4, kPerThread = 3000;  // several chunks per thread
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([counter] {
      for (int i = 0; i < kPerThread; ++i) MXProfileAdjustCounter(counter, 1);
    });
  }
  for (int i = 0; i < 20; ++i) Profiler::Get()->Dump(false);  // the consumer runs concurrently
  for (auto& t : threads) t.join();
  Profiler::Get()->SetRunning(false);
  const std::string json = Profiler::Get()->AggregateText(true, StatsFormat::kJson, StatsSortBy::kTotal, false);
  Profiler::Get()->Dump(true);
  // Every update arrived once; the last value seen is the total.
  EXPECT_NE(json.find("\"hits\": {\"Count\": " + std::to_string(kThreads * kPerThread) + ","), std::string::npos)
      << json;
  auto events = ReadEvents(file);
  EXPECT_EQ(Count(events, "hits", "C"), kThreads * kPerThread);
  EXPECT_NE(json.find("\"Max\": " + std::to_string(kThreads * kPerThread / 1000) + "."), std::string::npos) << json;
  MXProfileDestroyHandle(counter);
  MXProfileDestroyHandle(domain);
  std::remove(file.c_str());
}

}  // namespace
}  // namespace profiler
}  // namespace mxnet
