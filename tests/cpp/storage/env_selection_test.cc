// Pool selection through the environment: each type by its variable, the numbers each
// policy rounds with, the switch that turns pooling off, and bad values rejected.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/error.h"
#include "storage/fake_allocator.h"
#include "storage/pool_config.h"
#include "storage/storage_manager.h"

namespace mxnet {
namespace storage {
namespace {

bool IsPoolVar(const std::string& name) {
  return name.find("_MEM_POOL_") != std::string::npos || name.find("_MEM_LARGE_ALLOC_") != std::string::npos ||
         name == "MXNET_USE_NAIVE_STORAGE_MANAGERS";
}

class PoolEnv : public ::testing::Test {
 protected:
  void SetUp() override { ResetPoolVars(); }
  void TearDown() override { ResetPoolVars(); }
  void Set(const char* name, const char* value) { setenv(name, value, 1); }
  std::string Reload() { return env::LoadFromEnvironment(); }
  /*!
   * \brief Back to defaults. A reload keeps the last value of a variable that is no longer
   *        set, so each is set to its default, loaded, and then removed.
   */
  void ResetPoolVars() {
    for (const char* alias : {"MXNET_USE_NAIVE_STORAGE_MANAGER", "MXNET_CPU_POOL_PAGE_SIZE", "MXNET_GPU_POOL_PAGE_SIZE",
                              "MXNET_CPU_PINNED_POOL_PAGE_SIZE"}) {
      unsetenv(alias);
    }
    std::vector<std::string> names;
    for (const env::Entry& e : env::List()) {
      if (IsPoolVar(e.spec->name)) names.push_back(e.spec->name);
    }
    for (const std::string& n : names) setenv(n.c_str(), DefaultOf(n), 1);
    ASSERT_EQ(Reload(), "");
    for (const std::string& n : names) unsetenv(n.c_str());
  }
  static const char* DefaultOf(const std::string& name) {
    for (const env::Entry& e : env::List()) {
      if (name == e.spec->name) return e.spec->default_value;
    }
    return "";
  }
};

struct DeviceVars {
  Context::DeviceType type;
  const char* pool_type;
  const char* page;
  const char* large;
  const char* cutoff;
  const char* reserve;
};

const DeviceVars kDevices[] = {
    {Context::kCPU, "MXNET_CPU_MEM_POOL_TYPE", "MXNET_CPU_MEM_POOL_PAGE_SIZE", "MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE",
     "MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "MXNET_CPU_MEM_POOL_RESERVE"},
    {Context::kGPU, "MXNET_GPU_MEM_POOL_TYPE", "MXNET_GPU_MEM_POOL_PAGE_SIZE", "MXNET_GPU_MEM_LARGE_ALLOC_ROUND_SIZE",
     "MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "MXNET_GPU_MEM_POOL_RESERVE"},
    {Context::kCPUPinned, "MXNET_CPU_PINNED_MEM_POOL_TYPE", "MXNET_CPU_PINNED_MEM_POOL_PAGE_SIZE",
     "MXNET_CPU_PINNED_MEM_LARGE_ALLOC_ROUND_SIZE", "MXNET_CPU_PINNED_MEM_POOL_ROUND_LINEAR_CUTOFF",
     "MXNET_CPU_PINNED_MEM_POOL_RESERVE"},
};

TEST_F(PoolEnv, DefaultsAreNaivePooledEverywhere) {
  ASSERT_EQ(Reload(), "");
  for (const DeviceVars& d : kDevices) {
    PoolConfig c = PoolConfigFromEnv(d.type);
    EXPECT_EQ(c.type, PoolType::kNaive) << d.pool_type;
    EXPECT_EQ(c.page_size, 4096u);
    EXPECT_EQ(c.large_alloc_round, 2097152u);
    EXPECT_EQ(c.linear_cutoff, 24);
    EXPECT_EQ(c.reserve_percent, 5);
  }
}

TEST_F(PoolEnv, EachTypeIsSelectedByItsOwnVariable) {
  for (const DeviceVars& d : kDevices) {
    for (const char* name : {"Round", "round", "Unpooled", "Naive"}) {
      Set(d.pool_type, name);
      ASSERT_EQ(Reload(), "");
      std::string want = name;
      want[0] = static_cast<char>(toupper(want[0]));
      EXPECT_EQ(PoolTypeName(PoolConfigFromEnv(d.type).type), want) << d.pool_type << "=" << name;
      // The other device types are untouched.
      for (const DeviceVars& other : kDevices) {
        if (other.type != d.type) EXPECT_EQ(PoolConfigFromEnv(other.type).type, PoolType::kNaive);
      }
    }
    ResetPoolVars();
  }
}

TEST_F(PoolEnv, NumbersReachThePolicy) {
  for (const DeviceVars& d : kDevices) {
    Set(d.pool_type, "Naive");
    Set(d.page, "1024");
    Set(d.large, "65536");
    Set(d.reserve, "0");
    ASSERT_EQ(Reload(), "");
    PoolConfig c = PoolConfigFromEnv(d.type);
    EXPECT_EQ(c.page_size, 1024u);
    EXPECT_EQ(c.large_alloc_round, 65536u);
    EXPECT_EQ(c.reserve_percent, 0);
    auto manager = CreatePoolManager(c, std::make_unique<FakeDeviceAllocator>(1 << 24));
    Storage::Handle h;
    h.size = 1025;
    h.ctx = Context{d.type, 0};
    EXPECT_EQ(manager->Alloc(&h).actual, 2048u);
    manager->Free(h);
    h.size = 65537;
    EXPECT_EQ(manager->Alloc(&h).actual, 131072u);
    manager->Free(h);

    Set(d.pool_type, "Round");
    Set(d.cutoff, "20");
    ASSERT_EQ(Reload(), "");
    manager = CreatePoolManager(PoolConfigFromEnv(d.type), std::make_unique<FakeDeviceAllocator>(1 << 24));
    h.size = 2097153;
    EXPECT_EQ(manager->Alloc(&h).actual, 3145728u);
    manager->Free(h);
    h.size = 1;
    EXPECT_EQ(manager->Alloc(&h).actual, 1024u);
    manager->Free(h);
    ResetPoolVars();
  }
}

TEST_F(PoolEnv, UseNaiveStorageManagersTurnsPoolingOff) {
  Set("MXNET_CPU_MEM_POOL_TYPE", "Round");
  Set("MXNET_USE_NAIVE_STORAGE_MANAGERS", "1");
  ASSERT_EQ(Reload(), "");
  for (const DeviceVars& d : kDevices) {
    PoolConfig c = PoolConfigFromEnv(d.type);
    EXPECT_EQ(c.type, PoolType::kUnpooled) << d.pool_type;
    EXPECT_TRUE(c.forced_unpooled);
  }
  // The singular spelling MXNet's code reads is accepted too.
  ResetPoolVars();
  ASSERT_EQ(PoolConfigFromEnv(Context::kGPU).type, PoolType::kNaive);
  Set("MXNET_USE_NAIVE_STORAGE_MANAGER", "1");
  Reload();
  EXPECT_EQ(PoolConfigFromEnv(Context::kGPU).type, PoolType::kUnpooled);
}

TEST_F(PoolEnv, OldPageSizeSpellingIsAccepted) {
  Set("MXNET_CPU_POOL_PAGE_SIZE", "8192");
  Reload();
  EXPECT_EQ(PoolConfigFromEnv(Context::kCPU).page_size, 8192u);
}

TEST_F(PoolEnv, InvalidTypeNamesAreRejectedWithTheAllowedNames) {
  for (const DeviceVars& d : kDevices) {
    Set(d.pool_type, "Bogus");
    std::string err = Reload();
    EXPECT_NE(err.find(d.pool_type), std::string::npos) << err;
    EXPECT_NE(err.find("Bogus"), std::string::npos) << err;
    for (const char* allowed : {"Naive", "Round", "Unpooled"}) {
      EXPECT_NE(err.find(allowed), std::string::npos) << allowed << " missing from: " << err;
    }
    ResetPoolVars();
  }
  // Run-time changes go through the same validation (and these are fixed at start-up anyway).
  EXPECT_THROW(env::Set("MXNET_GPU_MEM_POOL_TYPE", "Bogus"), Error);
}

TEST_F(PoolEnv, OutOfRangeNumbersAreRejected) {
  const std::pair<const char*, const char*> bad[] = {
      {"MXNET_CPU_MEM_POOL_PAGE_SIZE", "31"},           {"MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "19"},
      {"MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF", "35"}, {"MXNET_CPU_PINNED_MEM_POOL_RESERVE", "101"},
      {"MXNET_GPU_MEM_LARGE_ALLOC_ROUND_SIZE", "0"},    {"MXNET_CPU_MEM_POOL_RESERVE", "-1"},
  };
  for (const auto& b : bad) {
    Set(b.first, b.second);
    std::string err = Reload();
    EXPECT_NE(err.find(b.first), std::string::npos) << b.first << "=" << b.second << ": " << err;
    ResetPoolVars();
  }
}

TEST_F(PoolEnv, RoundWithANonPowerOfTwoPageIsRejectedWhenThePoolIsMade) {
  Set("MXNET_GPU_MEM_POOL_TYPE", "Round");
  Set("MXNET_GPU_MEM_POOL_PAGE_SIZE", "5000");
  ASSERT_EQ(Reload(), "");  // each value alone is valid
  try {
    PoolConfigFromEnv(Context::kGPU);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MXNET_GPU_MEM_POOL_PAGE_SIZE"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace storage
}  // namespace mxnet
