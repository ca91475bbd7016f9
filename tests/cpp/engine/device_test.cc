// Per-device scheduling checked on CPU with a fake accelerator: ops for gpu(N) run on
// that device's workers with their own streams, copies on the copy pool, bulks sync once.
#include <atomic>
#include <map>
#include <set>

#include "engine/device_backend.h"
#include "engine_test_util.h"
#include "mxnet/error.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

thread_local int tls_current_device = -1;

class FakeBackend : public DeviceBackend {
 public:
  std::string Name() const override { return "fake"; }
  int DeviceCount() override { return 2; }
  void SetDevice(int dev_id) override { tls_current_device = dev_id; }
  void* CreateStream(int dev_id) override {
    ++streams_created;
    return reinterpret_cast<void*>(static_cast<uintptr_t>(0x1000 + next_stream_++));
  }
  void DestroyStream(int dev_id, void* stream) override { ++streams_destroyed; }
  void SyncStream(void* stream) override { ++syncs; }

  std::atomic<int> streams_created{0}, streams_destroyed{0}, syncs{0};

 private:
  std::atomic<int> next_stream_{0};
};

struct Seen {
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::set<void*> streams;
  std::vector<std::pair<void*, void*>> stream_pairs;
  int wrong_device{0};
  void Record(const RunContext& rctx, int expected_dev) {
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(std::this_thread::get_id());
    streams.insert(rctx.stream);
    stream_pairs.emplace_back(rctx.stream, rctx.aux_stream);
    if (tls_current_device != expected_dev || rctx.ctx != Context::GPU(expected_dev) || !rctx.stream) ++wrong_device;
  }
};

class DeviceTest : public testing::Test {
 protected:
  std::unique_ptr<Engine> Make(const std::string& type, int gpu_streams = 1) {
    EngineConfig c = TestConfig({type, 2}, &backend_);
    c.gpu_worker_streams = gpu_streams;
    return CreateEngine(type, c);
  }
  FakeBackend backend_;
};

TEST_F(DeviceTest, GpuOpsRunOnTheirDeviceWorkersWithOwnStreams) {
  auto engine = Make("ThreadedEnginePerDevice");
  Seen seen;
  std::vector<VarHandle> vars;
  for (int i = 0; i < 40; ++i) {
    vars.push_back(engine->NewVariable());
    engine->PushSync([&](RunContext rctx) { seen.Record(rctx, 1), SleepMs(1); }, Context::GPU(1), {}, {vars.back()});
  }
  engine->WaitForAll();
  EXPECT_EQ(seen.wrong_device, 0);
  EXPECT_LE(seen.threads.size(), 2u);                              // MXNET_GPU_WORKER_NTHREADS = 2
  EXPECT_EQ(seen.streams.size(), seen.threads.size());             // one stream per worker
  for (auto& p : seen.stream_pairs) EXPECT_EQ(p.first, p.second);  // 1 stream: aux aliases it
}

TEST_F(DeviceTest, TwoStreamsGiveASeparateAuxStream) {
  auto engine = Make("ThreadedEnginePerDevice", 2);
  Seen seen;
  VarHandle v = engine->NewVariable();
  engine->PushSync([&](RunContext rctx) { seen.Record(rctx, 0); }, Context::GPU(0), {}, {v});
  engine->WaitForAll();
  ASSERT_EQ(seen.stream_pairs.size(), 1u);
  EXPECT_NE(seen.stream_pairs[0].first, seen.stream_pairs[0].second);
  EXPECT_NE(seen.stream_pairs[0].second, nullptr);
}

TEST_F(DeviceTest, CopiesUseTheCopyPoolAndPriorityOpsTheirOwn) {
  auto engine = Make("ThreadedEnginePerDevice");
  Seen compute, copy, prio;
  std::vector<VarHandle> vars;
  for (int i = 0; i < 10; ++i) {
    vars.push_back(engine->NewVariable());
    engine->PushSync([&](RunContext rctx) { compute.Record(rctx, 0); }, Context::GPU(0), {}, {vars.back()});
    vars.push_back(engine->NewVariable());
    engine->PushSync([&](RunContext rctx) { copy.Record(rctx, 0); }, Context::GPU(0), {}, {vars.back()},
                     i % 2 ? FnProperty::kCopyToGPU : FnProperty::kCopyFromGPU);
    vars.push_back(engine->NewVariable());
    engine->PushSync([&](RunContext rctx) { prio.Record(rctx, 0); }, Context::GPU(0), {}, {vars.back()},
                     FnProperty::kGPUPrioritized);
  }
  engine->WaitForAll();
  EXPECT_EQ(compute.wrong_device + copy.wrong_device + prio.wrong_device, 0);
  for (auto& t : copy.threads) {
    EXPECT_EQ(compute.threads.count(t), 0u);
    EXPECT_EQ(prio.threads.count(t), 0u);
  }
  for (auto& s : copy.streams) EXPECT_EQ(compute.streams.count(s), 0u);
  EXPECT_EQ(copy.threads.size(), 1u);  // gpu_copy_threads = 1 in the test config
}

TEST_F(DeviceTest, PoolsAreCreatedOnFirstUseAndStreamsFreedOnStop) {
  auto engine = Make("ThreadedEnginePerDevice");
  EXPECT_EQ(backend_.streams_created.load(), 0);
  VarHandle v = engine->NewVariable();
  engine->PushSync([](RunContext) {}, Context::GPU(1), {}, {v});
  engine->WaitForAll();
  EXPECT_GT(backend_.streams_created.load(), 0);
  engine->Stop();
  EXPECT_EQ(backend_.streams_destroyed.load(), backend_.streams_created.load());
  engine->Start();
}

TEST_F(DeviceTest, MissingGpuIsAClearErrorAtPush) {
  for (const char* type : {"ThreadedEnginePerDevice", "ThreadedEngine", "NaiveEngine"}) {
    auto engine = Make(type);
    VarHandle v = engine->NewVariable();
    try {
      engine->PushSync([](RunContext) {}, Context::GPU(5), {}, {v});
      ADD_FAILURE() << type << ": no error for gpu(5)";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("gpu(5)"), std::string::npos) << e.what();
    }
    engine->WaitForAll();
  }
}

TEST_F(DeviceTest, BuildWithoutGpusRejectsGpuContexts) {
  if (DefaultDeviceBackend()->DeviceCount() > 0) GTEST_SKIP() << "a GPU is present";
  auto engine = CreateEngine("ThreadedEnginePerDevice", TestConfig({"ThreadedEnginePerDevice", 1}));
  VarHandle v = engine->NewVariable();
  EXPECT_THROW(engine->PushSync([](RunContext) {}, Context::GPU(0), {}, {v}), Error);
}

TEST_F(DeviceTest, PooledEngineAssignsStreamsToGpuOps) {
  auto engine = Make("ThreadedEngine");
  Seen compute, copy;
  std::vector<VarHandle> vars;
  for (int i = 0; i < 20; ++i) {
    vars.push_back(engine->NewVariable());
    engine->PushSync([&](RunContext rctx) { compute.Record(rctx, 1); }, Context::GPU(1), {}, {vars.back()});
    vars.push_back(engine->NewVariable());
    engine->PushSync([&](RunContext rctx) { copy.Record(rctx, 1); }, Context::GPU(1), {}, {vars.back()},
                     FnProperty::kCopyToGPU);
  }
  engine->WaitForAll();
  EXPECT_EQ(compute.wrong_device + copy.wrong_device, 0);
  EXPECT_EQ(copy.streams.size(), 1u);  // one IO stream per GPU
  for (auto& s : copy.streams) EXPECT_EQ(compute.streams.count(s), 0u);
}

TEST_F(DeviceTest, BulkOnGpuSyncsTheStreamOnce) {
  auto engine = Make("ThreadedEnginePerDevice");
  VarHandle v = engine->NewVariable();
  std::atomic<int> bulked{0};
  int prev = engine->set_bulk_size(10);
  for (int i = 0; i < 10; ++i) {
    engine->PushSync([&](RunContext rctx) { bulked += rctx.is_bulk; }, Context::GPU(0), {}, {v});
  }
  engine->set_bulk_size(prev);
  engine->WaitForVar(v);
  EXPECT_EQ(bulked.load(), 10);
  EXPECT_EQ(backend_.syncs.load(), 1);
}

TEST_F(DeviceTest, NaiveEngineRunsGpuOpsOnAStreamAndSyncsEach) {
  auto engine = Make("NaiveEngine");
  VarHandle v = engine->NewVariable();
  Seen seen;
  for (int i = 0; i < 3; ++i)
    engine->PushSync([&](RunContext rctx) { seen.Record(rctx, 1); }, Context::GPU(1), {}, {v});
  EXPECT_EQ(seen.wrong_device, 0);
  EXPECT_EQ(seen.streams.size(), 1u);
  EXPECT_EQ(backend_.syncs.load(), 3);
}

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
