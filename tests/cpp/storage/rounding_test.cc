// Table-driven rounding of the Naive and Round policies at every boundary the variables set.
#include <gtest/gtest.h>

#include "mxnet/error.h"
#include "storage/naive_pool.h"
#include "storage/round_pool.h"

namespace mxnet {
namespace storage {
namespace {

struct Row {
  size_t page;
  size_t large;  // Naive: LARGE_ALLOC_ROUND_SIZE
  int cutoff;    // Round: ROUND_LINEAR_CUTOFF
  size_t size;
  size_t expected;
};

PoolConfig ConfigOf(const Row& r, PoolType type) {
  PoolConfig c;
  c.type = type;
  c.page_size = r.page;
  c.large_alloc_round = r.large;
  c.linear_cutoff = r.cutoff;
  return c;
}

TEST(NaiveRounding, Table) {
  const size_t M2 = 2097152;
  const Row rows[] = {
      // Defaults (storage.md examples).
      {4096, M2, 24, 1, 4096},
      {4096, M2, 24, 4095, 4096},
      {4096, M2, 24, 4096, 4096},
      {4096, M2, 24, 4097, 8192},
      {4096, M2, 24, 5000, 8192},
      {4096, M2, 24, M2 - 1, M2},
      {4096, M2, 24, M2, M2},
      {4096, M2, 24, M2 + 1, 2 * M2},
      {4096, M2, 24, 3000000, 2 * M2},
      {4096, M2, 24, 2 * M2 + 1, 3 * M2},
      // Page size at its minimum and a non-power-of-two page (allowed for Naive).
      {32, M2, 24, 1, 32},
      {32, M2, 24, 31, 32},
      {32, M2, 24, 32, 32},
      {32, M2, 24, 33, 64},
      {1000, M2, 24, 999, 1000},
      {1000, M2, 24, 1000, 1000},
      {1000, M2, 24, 1001, 2000},
      // Page rounding past a large-alloc size that is not a page multiple: rounds again.
      {4096, 10000, 24, 9000, 20000},  // 12288 after the page, > 10000
      {4096, 10000, 24, 8192, 8192},
      {4096, 8192, 24, 8193, 16384},
      // LARGE_ALLOC_ROUND_SIZE = 1 disables the second rounding.
      {4096, 1, 24, M2 + 1, M2 + 4096},
      {4096, 1, 24, 3000000, 3002368},
      // Large-alloc threshold +-1 with a smaller setting.
      {4096, 65536, 24, 65535, 65536},
      {4096, 65536, 24, 65536, 65536},
      {4096, 65536, 24, 65537, 131072},
  };
  for (const Row& r : rows) {
    NaivePolicy p(ConfigOf(r, PoolType::kNaive));
    EXPECT_EQ(p.RoundedSize(r.size), r.expected) << "page " << r.page << " large " << r.large << " size " << r.size;
  }
}

TEST(RoundRounding, Table) {
  const Row rows[] = {
      // MXNet's own test: cutoff 20, page 4096.
      {4096, 0, 20, 32, 4096},
      {4096, 0, 20, 4095, 4096},
      {4096, 0, 20, 2097153, 3145728},
      {4096, 0, 20, 3145728, 3145728},
      // Page size +-1: below or at the page -> the page; above -> next power of two.
      {4096, 0, 24, 1, 4096},
      {4096, 0, 24, 4096, 4096},
      {4096, 0, 24, 4097, 8192},
      {4096, 0, 24, 8191, 8192},
      {4096, 0, 24, 8193, 16384},
      {32, 0, 24, 1, 32},
      {32, 0, 24, 33, 64},
      {32, 0, 24, 100, 128},
      // Linear cutoff 24 (16 MiB) +-1.
      {4096, 0, 24, (1u << 24) - 1, 1u << 24},
      {4096, 0, 24, 1u << 24, 1u << 24},
      {4096, 0, 24, (1u << 24) + 1, 2u << 24},
      {4096, 0, 24, (3u << 24) - 1, 3u << 24},
      {4096, 0, 24, (3u << 24) + 1, 4u << 24},
      // Cutoff 20 (1 MiB) +-1.
      {4096, 0, 20, (1u << 20) - 1, 1u << 20},
      {4096, 0, 20, 1u << 20, 1u << 20},
      {4096, 0, 20, (1u << 20) + 1, 2u << 20},
      // Cutoff 34 (16 GiB): powers of two all the way.
      {4096, 0, 34, (size_t{1} << 33) + 1, size_t{1} << 34},
      {4096, 0, 34, (size_t{1} << 34) + 1, size_t{2} << 34},
      // Page as large as 2^cutoff: everything up to the cutoff is one bucket.
      {size_t{1} << 20, 0, 20, 1, size_t{1} << 20},
      {size_t{1} << 20, 0, 20, (size_t{1} << 20) + 1, size_t{2} << 20},
  };
  for (const Row& r : rows) {
    RoundPolicy p(ConfigOf(r, PoolType::kRound));
    EXPECT_EQ(p.RoundedSize(r.size), r.expected) << "page " << r.page << " cutoff " << r.cutoff << " size " << r.size;
  }
}

TEST(PoolConfigValidation, CrossVariableRules) {
  PoolConfig c;
  c.type = PoolType::kRound;
  c.page_size = 3000;  // fine for Naive, not for Round
  EXPECT_THROW(ValidatePoolConfig(c), Error);
  try {
    ValidatePoolConfig(c);
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "ValueError");
    EXPECT_NE(std::string(e.what()).find("MXNET_CPU_MEM_POOL_PAGE_SIZE"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("power of 2"), std::string::npos) << e.what();
  }
  c.type = PoolType::kNaive;
  EXPECT_NO_THROW(ValidatePoolConfig(c));

  c.type = PoolType::kRound;
  c.page_size = size_t{1} << 22;  // log2 22 > cutoff 20
  c.linear_cutoff = 20;
  c.env_prefix = "MXNET_GPU";
  try {
    ValidatePoolConfig(c);
    ADD_FAILURE() << "cutoff below log2(page size) accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF"), std::string::npos) << e.what();
  }
  c.linear_cutoff = 22;
  EXPECT_NO_THROW(ValidatePoolConfig(c));

  c.page_size = 16;
  EXPECT_THROW(ValidatePoolConfig(c), Error);
}

}  // namespace
}  // namespace storage
}  // namespace mxnet
