// Load-time parsing of the process environment, run-time changes, and the C API's view.
#include <gtest/gtest.h>

#include <cstdlib>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace env {
namespace {

/*! \brief Sets variables for one test and reloads; restores a clean load afterwards. */
class EnvLoadTest : public ::testing::Test {
 protected:
  void SetVar(const char* name, const char* value) {
    setenv(name, value, 1);
    names_.push_back(name);
  }
  void TearDown() override {
    for (const char* n : names_) unsetenv(n);
    LoadFromEnvironment();
    ASSERT_EQ(LoadError(), "");
  }
  std::vector<const char*> names_;
};

TEST_F(EnvLoadTest, ValidValuesTakeEffect) {
  SetVar("MXNET_CPU_WORKER_NTHREADS", "3");
  SetVar("MXNET_ENGINE_TYPE", "naiveengine");
  EXPECT_EQ(LoadFromEnvironment(), "");
  EXPECT_EQ(GetInt(Var::MXNET_CPU_WORKER_NTHREADS), 3);
  EXPECT_EQ(GetString(Var::MXNET_ENGINE_TYPE), "NaiveEngine");
  EXPECT_TRUE(IsSet(Var::MXNET_ENGINE_TYPE));
  EXPECT_FALSE(IsSet(Var::MXNET_GPU_WORKER_NTHREADS));
}

TEST_F(EnvLoadTest, InvalidValuesAreCollectedAndFailEveryApiCall) {
  SetVar("MXNET_CPU_WORKER_NTHREADS", "abc");
  SetVar("MXNET_ENGINE_TYPE", "Bogus");
  std::string err = LoadFromEnvironment();
  EXPECT_NE(err.find("MXNET_CPU_WORKER_NTHREADS"), std::string::npos) << err;
  EXPECT_NE(err.find("MXNET_ENGINE_TYPE"), std::string::npos) << err;
  int version = 0;
  EXPECT_EQ(MXGetVersion(&version), -1);
  std::string last = MXGetLastError();
  EXPECT_EQ(last.rfind("MXNetError: ", 0), 0u) << last;
  EXPECT_NE(last.find("'Bogus'"), std::string::npos) << last;
  // Introspection keeps working so the user can see what is wrong.
  mx_uint n = 0;
  const char** fields = nullptr;
  EXPECT_EQ(MXListEnvVars(&n, &fields), 0);
  EXPECT_EQ(n, static_cast<mx_uint>(Var::kCount));
}

TEST_F(EnvLoadTest, OldNameIsHonouredWithOneWarning) {
  SetVar("MXNET_MKLDNN_ENABLED", "0");
  testing::internal::CaptureStderr();
  EXPECT_EQ(LoadFromEnvironment(), "");
  LoadFromEnvironment();
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(GetBool(Var::MXNET_ONEDNN_ENABLED));
  size_t first = log.find("MXNET_MKLDNN_ENABLED is deprecated; use MXNET_ONEDNN_ENABLED");
  EXPECT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find("is deprecated", first + 30), std::string::npos) << "warned twice: " << log;
}

TEST_F(EnvLoadTest, NewNameWinsOverOldName) {
  SetVar("MXNET_MKLDNN_ENABLED", "0");
  SetVar("MXNET_ONEDNN_ENABLED", "1");
  testing::internal::CaptureStderr();
  LoadFromEnvironment();
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(GetBool(Var::MXNET_ONEDNN_ENABLED));
  EXPECT_NE(log.find("MXNET_MKLDNN_ENABLED is ignored"), std::string::npos) << log;
}

TEST_F(EnvLoadTest, UnknownNameGetsClosestSuggestion) {
  SetVar("MXNET_ENGINE_TPYE", "NaiveEngine");
  testing::internal::CaptureStderr();
  EXPECT_EQ(LoadFromEnvironment(), "");
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("MXNET_ENGINE_TPYE"), std::string::npos) << log;
  EXPECT_NE(log.find("did you mean MXNET_ENGINE_TYPE?"), std::string::npos) << log;
}

TEST_F(EnvLoadTest, RuntimeChangesRespectMutability) {
  Set("MXNET_SAFE_ACCUMULATION", "0");
  EXPECT_FALSE(GetBool(Var::MXNET_SAFE_ACCUMULATION));
  EXPECT_STREQ(std::getenv("MXNET_SAFE_ACCUMULATION"), "0");
  EXPECT_THROW(Set("MXNET_SAFE_ACCUMULATION", "sometimes"), Error);
  EXPECT_FALSE(GetBool(Var::MXNET_SAFE_ACCUMULATION));
  Unset("MXNET_SAFE_ACCUMULATION");
  EXPECT_TRUE(GetBool(Var::MXNET_SAFE_ACCUMULATION));
  EXPECT_EQ(std::getenv("MXNET_SAFE_ACCUMULATION"), nullptr);

  // Fixed at load: validated, exported to children, but not changed in this process.
  testing::internal::CaptureStderr();
  Set("MXNET_CPU_WORKER_NTHREADS", "2");
  std::string log = testing::internal::GetCapturedStderr();
  names_.push_back("MXNET_CPU_WORKER_NTHREADS");
  EXPECT_EQ(GetInt(Var::MXNET_CPU_WORKER_NTHREADS), 1);
  EXPECT_NE(log.find("read once when the library loads"), std::string::npos) << log;
  EXPECT_THROW(Set("MXNET_CPU_WORKER_NTHREADS", "-4"), Error);
}

TEST_F(EnvLoadTest, CApiGetAndSetEnv) {
  EXPECT_EQ(MXSetEnv("MXNET_SAFE_ACCUMULATION", "false"), 0);
  const char* value = nullptr;
  EXPECT_EQ(MXGetEnv("MXNET_SAFE_ACCUMULATION", &value), 0);
  EXPECT_STREQ(value, "0");
  EXPECT_EQ(MXSetEnv("MXNET_SAFE_ACCUMULATION", "bad"), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("ValueError: Invalid value 'bad'"), std::string::npos);
  EXPECT_EQ(MXSetEnv("MXNET_SAFE_ACCUMULATION", nullptr), 0);
  EXPECT_EQ(MXGetEnv("MXNET_SAFE_ACCUMULATION", &value), 0);
  EXPECT_STREQ(value, "1");
  EXPECT_EQ(MXGetEnv("SOME_UNSET_VARIABLE_FOR_TEST", &value), 0);
  EXPECT_EQ(value, nullptr);
}

TEST(EnvDocs, MarkdownListsEveryVariableAndAlias) {
  std::string md = GenerateMarkdown();
  for (int i = 0; i < static_cast<int>(Var::kCount); ++i) {
    EXPECT_NE(md.find(std::string("`") + GetSpec(static_cast<Var>(i)).name + "`"), std::string::npos);
  }
  for (const Alias& a : Aliases()) EXPECT_NE(md.find(a.old_name), std::string::npos);
  EXPECT_NE(md.find("## Threads"), std::string::npos);
  EXPECT_NE(md.find("## Memory"), std::string::npos);
  EXPECT_NE(md.find("| `MXNET_ENGINE_TYPE` | enum | `ThreadedEnginePerDevice` |"), std::string::npos);
}

TEST(ErrorMacros, CheckNamesTheConditionAndKind) {
  try {
    int threads = -1;
    MX_CHECK_KIND(threads > 0, "ValueError") << "threads must be positive, got " << threads;
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "ValueError");
    EXPECT_EQ(std::string(e.what()), "threads must be positive, got -1");
  }
  try {
    MX_CHECK(1 == 2) << "context";
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "Check failed: 1 == 2: context");
  }
}

TEST(ErrorMacros, ApiEntryConvertsStandardExceptions) {
  auto api = []() -> int {
    API_BEGIN();
    throw std::out_of_range("index 5 out of range");
    API_END();
  };
  EXPECT_EQ(api(), -1);
  EXPECT_STREQ(MXGetLastError(), "IndexError: index 5 out of range");
  EXPECT_STREQ(NNGetLastError(), MXGetLastError());
}

}  // namespace
}  // namespace env
}  // namespace mxnet
