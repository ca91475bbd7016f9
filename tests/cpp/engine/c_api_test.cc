// The engine's C API: pushing C functions with parameters and deleters, bad counts, bulk size.
#include "mxnet/c_api.h"

#include <atomic>
#include <string>

#include "engine_test_util.h"
#include "mxnet/env.h"

namespace mxnet {
namespace engine {
namespace test {
namespace {

std::atomic<int> g_sync_calls{0}, g_async_calls{0}, g_deleted{0};

void SyncFunc(void* rctx, void* param) { g_sync_calls += param ? *static_cast<int*>(param) : 1; }
void AsyncFunc(void* rctx, void* on_complete, void* param) {
  g_async_calls += param ? *static_cast<int*>(param) : 1;
  (*static_cast<CallbackOnComplete*>(on_complete))();
}
void Deleter(void* param) {
  ++g_deleted;
  delete static_cast<int*>(param);
}

TEST(EngineCApiTest, PushSyncAndAsyncWithParamsAndDeleters) {
  Engine* engine = Engine::Get();
  VarHandle var = engine->NewVariable();
  Context ctx = Context::CPU();
  int prop = static_cast<int>(FnProperty::kNormal);
  g_sync_calls = g_async_calls = g_deleted = 0;
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(MXEnginePushSync(SyncFunc, new int(2), Deleter, &ctx, nullptr, 0, &var, 1, &prop, 0, "c_sync"), 0)
        << MXGetLastError();
    ASSERT_EQ(
        MXEnginePushAsync(AsyncFunc, new int(3), Deleter, &ctx, &var, 1, nullptr, 0, nullptr, 0, "c_async", false), 0)
        << MXGetLastError();
  }
  // Without a parameter or deleter.
  ASSERT_EQ(MXEnginePushSync(SyncFunc, nullptr, nullptr, &ctx, nullptr, 0, &var, 1, nullptr, 0, nullptr), 0);
  ASSERT_EQ(MXEnginePushAsync(AsyncFunc, nullptr, nullptr, &ctx, nullptr, 0, &var, 1, nullptr, 0, nullptr, false), 0);
  engine->WaitForAll();
  EXPECT_EQ(g_sync_calls.load(), 21);
  EXPECT_EQ(g_async_calls.load(), 31);
  EXPECT_EQ(g_deleted.load(), 20);
}

TEST(EngineCApiTest, NegativeCountsAndBadArgumentsFailCleanly) {
  Engine* engine = Engine::Get();
  VarHandle var = engine->NewVariable();
  Context ctx = Context::CPU();
  EXPECT_EQ(MXEnginePushSync(SyncFunc, nullptr, nullptr, &ctx, &var, -1, nullptr, 0, nullptr, 0, nullptr), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("num_const_vars"), std::string::npos) << MXGetLastError();
  EXPECT_EQ(MXEnginePushAsync(AsyncFunc, nullptr, nullptr, &ctx, nullptr, 0, &var, -1, nullptr, 0, nullptr, false), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("num_mutable_vars"), std::string::npos) << MXGetLastError();
  int bad_prop = 42;
  EXPECT_EQ(MXEnginePushSync(SyncFunc, nullptr, nullptr, &ctx, nullptr, 0, &var, 1, &bad_prop, 0, nullptr), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("FnProperty"), std::string::npos) << MXGetLastError();
  EXPECT_EQ(MXEnginePushSync(nullptr, nullptr, nullptr, &ctx, nullptr, 0, &var, 1, nullptr, 0, nullptr), -1);
  EXPECT_EQ(MXEnginePushSync(SyncFunc, nullptr, nullptr, nullptr, nullptr, 0, &var, 1, nullptr, 0, nullptr), -1);
  int bad_ctx[2] = {99, 0};
  EXPECT_EQ(MXEnginePushSync(SyncFunc, nullptr, nullptr, bad_ctx, nullptr, 0, &var, 1, nullptr, 0, nullptr), -1);
  engine->WaitForAll();
}

TEST(EngineCApiTest, SetBulkSizeReturnsPrevious) {
  int prev = -1;
  ASSERT_EQ(MXEngineSetBulkSize(7, &prev), 0);
  EXPECT_EQ(prev, 0);
  ASSERT_EQ(MXEngineSetBulkSize(0, &prev), 0);
  // NaiveEngine does not bulk and always reports 0, as in MXNet.
  EXPECT_EQ(prev, env::GetString(env::Var::MXNET_ENGINE_TYPE) == "NaiveEngine" ? 0 : 7);
  EXPECT_EQ(MXEngineSetBulkSize(-3, &prev), -1);
}

}  // namespace
}  // namespace test
}  // namespace engine
}  // namespace mxnet
