// Parsing and validation of each variable type against its row of the table.
#include <gtest/gtest.h>

#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace env {
namespace {

std::string ErrorOf(Var v, const std::string& value) {
  try {
    Parse(GetSpec(v), GetSpec(v).name, value);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(EnvParse, IntAcceptsDecimalAndIntegralScientific) {
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_CPU_WORKER_NTHREADS), "x", "3").i, 3);
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_CPU_WORKER_NTHREADS), "x", " 7 ").i, 7);
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_KVSTORE_BIGARRAY_BOUND), "x", "1e6").i, 1000000);
}

TEST(EnvParse, IntRejectsTextFractionsAndOutOfRange) {
  std::string err = ErrorOf(Var::MXNET_CPU_WORKER_NTHREADS, "abc");
  EXPECT_NE(err.find("MXNET_CPU_WORKER_NTHREADS"), std::string::npos) << err;
  EXPECT_NE(err.find("'abc'"), std::string::npos) << err;
  EXPECT_NE(err.find("an integer >= 1"), std::string::npos) << err;
  EXPECT_NE(ErrorOf(Var::MXNET_CPU_WORKER_NTHREADS, "-2"), "");
  EXPECT_NE(ErrorOf(Var::MXNET_CPU_WORKER_NTHREADS, "0"), "");
  EXPECT_NE(ErrorOf(Var::MXNET_CPU_WORKER_NTHREADS, "1.5"), "");
  EXPECT_NE(ErrorOf(Var::MXNET_CPU_WORKER_NTHREADS, ""), "");
  EXPECT_NE(ErrorOf(Var::MXNET_CPU_WORKER_NTHREADS, "99999999999999999999999"), "");
}

TEST(EnvParse, RangeBoundsAreInclusive) {
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_GPU_MEM_POOL_RESERVE), "x", "0").i, 0);
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_GPU_MEM_POOL_RESERVE), "x", "100").i, 100);
  std::string err = ErrorOf(Var::MXNET_GPU_MEM_POOL_RESERVE, "101");
  EXPECT_NE(err.find("in [0, 100]"), std::string::npos) << err;
  EXPECT_NE(ErrorOf(Var::MXNET_GPU_MEM_POOL_RESERVE, "-1"), "");
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_PROFILER_MODE), "x", "15").i, 15);
  EXPECT_NE(ErrorOf(Var::MXNET_PROFILER_MODE, "16"), "");
}

TEST(EnvParse, FloatAcceptsNumbersAndRejectsText) {
  EXPECT_DOUBLE_EQ(Parse(GetSpec(Var::MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY), "x", "0.25").f, 0.25);
  EXPECT_DOUBLE_EQ(Parse(GetSpec(Var::MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY), "x", "2e-1").f, 0.2);
  std::string err = ErrorOf(Var::MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY, "fast");
  EXPECT_NE(err.find("a number >= 0"), std::string::npos) << err;
  EXPECT_NE(ErrorOf(Var::MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY, "nan"), "");
  EXPECT_NE(ErrorOf(Var::MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY, "-0.5"), "");
}

TEST(EnvParse, BoolAcceptsCommonSpellings) {
  for (const char* t : {"1", "true", "TRUE", "yes", "on"}) {
    EXPECT_EQ(Parse(GetSpec(Var::MXNET_ENGINE_INFO), "x", t).text, "1") << t;
  }
  for (const char* f : {"0", "false", "No", "off"}) {
    EXPECT_EQ(Parse(GetSpec(Var::MXNET_ENGINE_INFO), "x", f).text, "0") << f;
  }
  std::string err = ErrorOf(Var::MXNET_ENGINE_INFO, "maybe");
  EXPECT_NE(err.find("MXNET_ENGINE_INFO"), std::string::npos) << err;
  EXPECT_NE(err.find("a boolean"), std::string::npos) << err;
}

TEST(EnvParse, EnumIsCaseInsensitiveAndReportsChoices) {
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_ENGINE_TYPE), "x", "naiveengine").text, "NaiveEngine");
  EXPECT_EQ(Parse(GetSpec(Var::MXNET_CPU_MEM_POOL_TYPE), "x", "Round").text, "Round");
  std::string err = ErrorOf(Var::MXNET_ENGINE_TYPE, "Bogus");
  EXPECT_NE(err.find("'Bogus'"), std::string::npos) << err;
  EXPECT_NE(err.find("one of NaiveEngine, ThreadedEngine, ThreadedEnginePerDevice"), std::string::npos) << err;
  EXPECT_NE(ErrorOf(Var::MXNET_CPU_MEM_POOL_TYPE, "Pooled"), "");
}

TEST(EnvParse, IntListAcceptsPythonAndPlainSpellings) {
  const Spec& spec = GetSpec(Var::MXNET_CUDNN_DISABLED_CONV_FWD_ENGINES);
  EXPECT_EQ(Parse(spec, "x", "1,2,5").list, (std::vector<int64_t>{1, 2, 5}));
  EXPECT_EQ(Parse(spec, "x", "(3, 4)").list, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(Parse(spec, "x", "[7]").text, "7");
  EXPECT_TRUE(Parse(spec, "x", "").list.empty());
  std::string err = ErrorOf(Var::MXNET_CUDNN_DISABLED_CONV_FWD_ENGINES, "1,x");
  EXPECT_NE(err.find("comma-separated list of integers"), std::string::npos) << err;
}

TEST(EnvParse, ErrorsNameTheSpellingTheUserSet) {
  try {
    Parse(GetSpec(Var::MXNET_ONEDNN_ENABLED), "MXNET_MKLDNN_ENABLED", "perhaps");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MXNET_MKLDNN_ENABLED"), std::string::npos);
    EXPECT_STREQ(e.kind(), "ValueError");
  }
}

TEST(EnvTable, EveryRowIsComplete) {
  for (int i = 0; i < static_cast<int>(Var::kCount); ++i) {
    const Spec& s = GetSpec(static_cast<Var>(i));
    EXPECT_GT(std::string(s.doc).size(), 10u) << s.name;
    EXPECT_NO_THROW(Parse(s, s.name, s.default_value)) << s.name;
    if (s.type == Type::kEnum) EXPECT_NE(std::string(s.allowed).find('|'), std::string::npos) << s.name;
    std::string name = s.name;
    EXPECT_TRUE(name.rfind("MXNET_", 0) == 0 || name.rfind("NNVM_", 0) == 0 || name.rfind("DMLC_", 0) == 0)
        << name;
  }
}

TEST(EnvTable, NewestSeedDefaultsAndDocumentedExceptions) {
  EXPECT_STREQ(GetSpec(Var::MXNET_SAFE_ACCUMULATION).default_value, "1");
  // The profiler's default mode records imperative operators (bit 2), unlike the seed's 13.
  int64_t mode = Parse(GetSpec(Var::MXNET_PROFILER_MODE), "x", GetSpec(Var::MXNET_PROFILER_MODE).default_value).i;
  EXPECT_TRUE(mode & 2);
  EXPECT_STREQ(GetSpec(Var::MXNET_CPU_MEM_POOL_TYPE).default_value, "Naive");
  EXPECT_STREQ(GetSpec(Var::MXNET_ENGINE_TYPE).default_value, "ThreadedEnginePerDevice");
}

TEST(EnvTable, RenamedVariablesHaveAliases) {
  auto has = [](const char* old_name, Var v) {
    for (const Alias& a : Aliases()) {
      if (std::string(a.old_name) == old_name) return a.current == v;
    }
    return false;
  };
  EXPECT_TRUE(has("MXNET_MKLDNN_ENABLED", Var::MXNET_ONEDNN_ENABLED));
  EXPECT_TRUE(has("MXNET_MKLDNN_CACHE_NUM", Var::MXNET_ONEDNN_CACHE_NUM));
  EXPECT_TRUE(has("MXNET_USE_MKLDNN_RNN", Var::MXNET_USE_ONEDNN_RNN));
  EXPECT_TRUE(has("MXNET_EXEC_MATCH_RANGE", Var::NNVM_EXEC_MATCH_RANGE));
}

TEST(EnvHint, ClosestNameFindsTypos) {
  EXPECT_EQ(ClosestName("MXNET_ENGINE_TPYE"), "MXNET_ENGINE_TYPE");
  EXPECT_EQ(ClosestName("MXNET_CPU_WORKER_NTHREAD"), "MXNET_CPU_WORKER_NTHREADS");
  EXPECT_EQ(ClosestName("MXNET_GPU_MEM_POOL_TYP"), "MXNET_GPU_MEM_POOL_TYPE");
}

}  // namespace
}  // namespace env
}  // namespace mxnet
