// The pieces under the profiler: the per-thread SPSC buffers, config parsing, statistics text.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "mxnet/error.h"
#include "profiler/aggregate_stats.h"
#include "profiler/categories.h"
#include "profiler/config.h"
#include "profiler/thread_buffer.h"

namespace mxnet {
namespace profiler {
namespace {

Record MakeDuration(const char* name, uint32_t category, int64_t start, int64_t end) {
  Record r{};
  r.kind = RecordKind::kOperator;
  r.category = category;
  r.start = start;
  r.end = end;
  r.SetName(name);
  return r;
}

TEST(ProfilerThreadBuffer, ConcurrentConsumerSeesEveryRecordInOrder) {
  ThreadBuffer buffer;
  const int64_t n = 5 * ThreadBuffer::kChunkRecords + 17;  // crosses several chunk links
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (int64_t i = 0; i < n; ++i) {
      Record* r = buffer.Reserve();
      r->value = i;
      r->SetName("x");
      buffer.Commit();
    }
    done = true;
  });
  std::vector<int64_t> seen;
  auto take = [&](const Record& r) { seen.push_back(r.value); };
  while (!done) buffer.Drain(take);
  producer.join();
  buffer.Drain(take);
  ASSERT_EQ(static_cast<int64_t>(seen.size()), n);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], i);
  EXPECT_TRUE(buffer.Empty());
}

TEST(ProfilerThreadBuffer, RecordsOfAnExitedThreadAreKept) {
  DrainAllBuffers([](const Record&) {});
  std::thread t([] {
    for (int i = 0; i < 3; ++i) {
      Record* r = ThisThreadBuffer()->Reserve();
      r->kind = RecordKind::kCounter;
      r->value = 100 + i;
      r->SetName("from_exited_thread");
      ThisThreadBuffer()->Commit();
    }
  });
  t.join();
  std::vector<int64_t> values;
  DrainAllBuffers([&](const Record& r) {
    if (std::strcmp(r.name, "from_exited_thread") == 0) values.push_back(r.value);
  });
  EXPECT_EQ(values, (std::vector<int64_t>{100, 101, 102}));
}

TEST(ProfilerRecord, LongNamesAreTruncatedNotOverflowed) {
  Record r{};
  std::string longname(500, 'a');
  r.SetName(longname.c_str());
  EXPECT_EQ(std::strlen(r.name), kNameCapacity - 1);
  r.SetName("");
  EXPECT_STREQ(r.name, "<unknown>");
}

TEST(ProfilerConfig, DefaultsAndKeys) {
  Config c = ParseConfig({}, {});
  EXPECT_EQ(c.filename, "profile.json");
  EXPECT_TRUE(c.continuous_dump);
  EXPECT_DOUBLE_EQ(c.dump_period, 1.0);
  EXPECT_FALSE(c.aggregate_stats);
  EXPECT_EQ(c.mode, 15u);  // MXNET_PROFILER_MODE default in the registry

  c = ParseConfig({"profile_api", "profile_memory", "filename", "aggregate_stats"},
                  {"False", "False", "x.json", "True"});
  EXPECT_EQ(c.mode, static_cast<uint32_t>(kSymbolic | kImperative));
  EXPECT_EQ(c.filename, "x.json");
  EXPECT_TRUE(c.aggregate_stats);

  c = ParseConfig({"profile_imperative", "profile_symbolic", "profile_api", "profile_memory", "profile_all"},
                  {"False", "False", "False", "False", "True"});
  EXPECT_EQ(c.mode, 15u);
}

TEST(ProfilerConfig, BadInputNamesTheKeyAndAllowedValues) {
  try {
    ParseConfig({"profile_everything"}, {"True"});
    FAIL() << "unknown key accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "ValueError");
    EXPECT_NE(std::string(e.what()).find("profile_everything"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("aggregate_stats"), std::string::npos);
  }
  try {
    ParseConfig({"aggregate_stats"}, {"maybe"});
    FAIL() << "bad boolean accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("aggregate_stats"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("True or False"), std::string::npos);
  }
  EXPECT_THROW(ParseConfig({"dump_period"}, {"-1"}), Error);
  EXPECT_THROW(ParseConfig({"profile_process"}, {"client"}), Error);
}

TEST(ProfilerAggregateStats, TableHasCountTotalMinMaxAvgInMs) {
  AggregateStats stats;
  stats.Add(MakeDuration("conv", kOperatorCategory, 0, 1000));
  stats.Add(MakeDuration("conv", kOperatorCategory, 5000, 8000));
  stats.Add(MakeDuration("relu", kOperatorCategory, 0, 10));
  const std::string table = stats.Print(StatsFormat::kTable, StatsSortBy::kTotal, false);
  EXPECT_EQ(table.rfind("\nProfile Statistics:\n\tNote the difference in units for different entries.\n", 0), 0u);
  EXPECT_NE(table.find("operator\n=================\n"), std::string::npos);
  // conv: 2 calls, total 4 ms, min 1, max 3, avg 2.
  char row[256];
  std::snprintf(row, sizeof(row), "%-25s %16d %16.4f %16.4f %16.4f %16.4f\n", "conv", 2, 4.0, 1.0, 3.0, 2.0);
  EXPECT_NE(table.find(row), std::string::npos) << table;
  EXPECT_LT(table.find("conv "), table.find("relu "));  // descending by total
  const std::string asc = stats.Print(StatsFormat::kTable, StatsSortBy::kTotal, true);
  EXPECT_GT(asc.find("conv "), asc.find("relu "));
}

TEST(ProfilerAggregateStats, MemoryCountersAndJson) {
  AggregateStats stats;
  for (int64_t v : {4000, 12000, 0}) {
    Record r{};
    r.kind = RecordKind::kCounter;
    r.category = kStorageCategory;
    r.value = v;
    r.SetName("cpu/0");
    stats.Add(r);
  }
  const std::string table = stats.Print(StatsFormat::kTable, StatsSortBy::kTotal, false);
  EXPECT_NE(table.find("Min Use  (kB)"), std::string::npos);
  EXPECT_EQ(table.find("Time (ms)"), std::string::npos);
  // 3 updates, min 0 kB, max 12 kB, "avg" (max - min) / 2 = 6 kB.
  char row[256];
  std::snprintf(row, sizeof(row), "%-25s %16d %16.4f %16.4f %16.4f\n", "cpu/0", 3, 0.0, 12.0, 6.0);
  EXPECT_NE(table.find(row), std::string::npos) << table;
  const std::string json = stats.Print(StatsFormat::kJson, StatsSortBy::kTotal, false);
  EXPECT_EQ(json,
            "{\"Time\": {}, \"Memory\": {\"Device Storage\": {\"cpu/0\": {\"Count\": 3, \"Min\": 0.0000, \"Max\": "
            "12.0000, \"Avg\": 6.0000}}}, \"Unit\": {\"Time\": \"ms\", \"Memory\": \"kB\"}}");
}

}  // namespace
}  // namespace profiler
}  // namespace mxnet
