// Reading a device type's pool variables from the registry.
#include "storage/pool_config.h"

#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace storage {

namespace {

using env::Var;

/*! \brief The registry rows of one device type. */
struct PoolVars {
  Var type, page_size, large_round, cutoff, reserve;
  const char* prefix;
};

PoolVars VarsFor(Context::DeviceType dev_type) {
  switch (dev_type) {
    case Context::kGPU:
      return {Var::MXNET_GPU_MEM_POOL_TYPE,
              Var::MXNET_GPU_MEM_POOL_PAGE_SIZE,
              Var::MXNET_GPU_MEM_LARGE_ALLOC_ROUND_SIZE,
              Var::MXNET_GPU_MEM_POOL_ROUND_LINEAR_CUTOFF,
              Var::MXNET_GPU_MEM_POOL_RESERVE,
              "MXNET_GPU"};
    case Context::kCPUPinned:
      return {Var::MXNET_CPU_PINNED_MEM_POOL_TYPE,
              Var::MXNET_CPU_PINNED_MEM_POOL_PAGE_SIZE,
              Var::MXNET_CPU_PINNED_MEM_LARGE_ALLOC_ROUND_SIZE,
              Var::MXNET_CPU_PINNED_MEM_POOL_ROUND_LINEAR_CUTOFF,
              Var::MXNET_CPU_PINNED_MEM_POOL_RESERVE,
              "MXNET_CPU_PINNED"};
    default:
      return {Var::MXNET_CPU_MEM_POOL_TYPE,
              Var::MXNET_CPU_MEM_POOL_PAGE_SIZE,
              Var::MXNET_CPU_MEM_LARGE_ALLOC_ROUND_SIZE,
              Var::MXNET_CPU_MEM_POOL_ROUND_LINEAR_CUTOFF,
              Var::MXNET_CPU_MEM_POOL_RESERVE,
              "MXNET_CPU"};
  }
}

PoolType ParsePoolType(const std::string& name) {
  // The registry has already normalised the spelling to one of its allowed choices.
  if (name == "Round") return PoolType::kRound;
  if (name == "Unpooled") return PoolType::kUnpooled;
  return PoolType::kNaive;
}

}  // namespace

const char* PoolTypeName(PoolType type) {
  switch (type) {
    case PoolType::kNaive:
      return "Naive";
    case PoolType::kRound:
      return "Round";
    case PoolType::kUnpooled:
      return "Unpooled";
  }
  return "?";
}

PoolConfig PoolConfigFromEnv(Context::DeviceType dev_type) {
  PoolVars vars = VarsFor(dev_type);
  PoolConfig c;
  c.type = ParsePoolType(env::GetString(vars.type));
  c.page_size = static_cast<size_t>(env::GetInt(vars.page_size));
  c.large_alloc_round = static_cast<size_t>(env::GetInt(vars.large_round));
  c.linear_cutoff = static_cast<int>(env::GetInt(vars.cutoff));
  c.reserve_percent = static_cast<int>(env::GetInt(vars.reserve));
  c.env_prefix = vars.prefix;
  if (env::GetInt(Var::MXNET_USE_NAIVE_STORAGE_MANAGERS) != 0) {
    c.type = PoolType::kUnpooled;
    c.forced_unpooled = true;
  }
  ValidatePoolConfig(c);
  return c;
}

void ValidatePoolConfig(const PoolConfig& c) {
  MX_CHECK_KIND(c.page_size >= 32, "ValueError")
      << c.env_prefix << "_MEM_POOL_PAGE_SIZE cannot be set to a value smaller than 32, got " << c.page_size << ".";
  MX_CHECK_KIND(c.large_alloc_round >= 1, "ValueError")
      << c.env_prefix << "_MEM_LARGE_ALLOC_ROUND_SIZE must be >= 1, got " << c.large_alloc_round << ".";
  MX_CHECK_KIND(c.reserve_percent >= 0 && c.reserve_percent <= 100, "ValueError")
      << c.env_prefix << "_MEM_POOL_RESERVE must be a percentage in 0..100, got " << c.reserve_percent << ".";
  if (c.type != PoolType::kRound) return;
  MX_CHECK_KIND((c.page_size & (c.page_size - 1)) == 0, "ValueError")
      << c.env_prefix << "_MEM_POOL_PAGE_SIZE must be a power of 2 for the Round pool (" << c.env_prefix
      << "_MEM_POOL_TYPE=Round), got " << c.page_size << ".";
  int page_log2 = 0;
  while ((size_t{1} << page_log2) < c.page_size) ++page_log2;
  MX_CHECK_KIND(c.linear_cutoff >= 20 && c.linear_cutoff <= 34, "ValueError")
      << c.env_prefix << "_MEM_POOL_ROUND_LINEAR_CUTOFF must be in 20..34, got " << c.linear_cutoff << ".";
  MX_CHECK_KIND(c.linear_cutoff >= page_log2, "ValueError")
      << c.env_prefix << "_MEM_POOL_ROUND_LINEAR_CUTOFF (" << c.linear_cutoff << ") must be >= log2 of " << c.env_prefix
      << "_MEM_POOL_PAGE_SIZE (" << c.page_size << ", log2 " << page_log2 << ").";
}

}  // namespace storage
}  // namespace mxnet
