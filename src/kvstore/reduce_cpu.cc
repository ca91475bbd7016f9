/*!
 * \file reduce_cpu.cc
 * \brief The sums and row copies of the single-process stores, as engine operations.
 */
#include "kvstore/reduce_cpu.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "mxnet/engine.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {

template <typename DType>
void SumInto(const std::vector<const DType*>& srcs, DType* dst, int64_t n, int nthreads) {
  // Each element is added in value order whatever the thread count, so sums are reproducible.
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
  for (int64_t i = 0; i < n; ++i) {
    DType acc = srcs[0][i];
    for (size_t k = 1; k < srcs.size(); ++k) acc = static_cast<DType>(acc + srcs[k][i]);
    dst[i] = acc;
  }
}

int ReductionThreads(int64_t n) {
  if (n < env::GetInt(env::Var::MXNET_KVSTORE_BIGARRAY_BOUND)) return 1;
  return static_cast<int>(env::GetInt(env::Var::MXNET_KVSTORE_REDUCTION_NTHREADS));
}

}  // namespace

void PushSum(const std::vector<NDArray>& values, const NDArray& out, const std::string& key_name, int priority) {
  MX_CHECK_KIND(!values.empty(), "ValueError") << "kvstore: nothing to sum for key " << key_name;
  for (const auto& v : values) {
    MX_CHECK_KIND(v.shape() == out.shape(), "ValueError")
        << "kvstore: key " << key_name << " holds shape " << out.shape() << " but a value of shape " << v.shape()
        << " was pushed";
    MX_CHECK_KIND(v.dtype() == out.dtype(), "TypeError")
        << "kvstore: key " << key_name << " holds " << DTypeName(out.dtype()) << " but a " << DTypeName(v.dtype())
        << " value was pushed";
    MX_CHECK_KIND(v.ctx().IsHostMemory(), "ValueError")
        << "kvstore: a value of key " << key_name << " is on " << v.ctx().ToString() << ", which needs a CUDA build";
  }
  std::vector<engine::VarHandle> reads;
  for (const auto& v : values) {
    v.CheckAndAlloc();
    if (!v.SameChunk(out) && std::find(reads.begin(), reads.end(), v.var()) == reads.end()) reads.push_back(v.var());
  }
  out.CheckAndAlloc();
  out.BumpVersion();
  Engine::Get()->PushSync(
      [values, out](RunContext) {
        const TBlob dst = out.data();
        const int64_t n = out.Size();
        MXNET_TYPE_SWITCH(out.dtype(), DType, {
          std::vector<const DType*> srcs;
          for (const auto& v : values) srcs.push_back(static_cast<const DType*>(v.data_for_read().dptr_));
          SumInto(srcs, static_cast<DType*>(dst.dptr_), n, ReductionThreads(n));
        });
      },
      out.ctx(), reads, {out.var()}, FnProperty::kCompute, priority, "KVStoreReduce");
}

void PushRowSparsePull(const NDArray& stored, const NDArray& row_ids, const NDArray& out, const std::string& key_name,
                       int priority) {
  MX_CHECK_KIND(out.shape() == stored.shape(), "ValueError")
      << "row_sparse_pull: key " << key_name << " holds shape " << stored.shape() << " but the out has shape "
      << out.shape();
  MX_CHECK_KIND(out.dtype() == stored.dtype(), "TypeError")
      << "row_sparse_pull: key " << key_name << " holds " << DTypeName(stored.dtype()) << " but the out is "
      << DTypeName(out.dtype());
  MX_CHECK_KIND(row_ids.shape().ndim() <= 1 || row_ids.Size() == row_ids.shape()[0], "ValueError")
      << "row_sparse_pull: row_ids must be 1-D, got shape " << row_ids.shape();
  MX_CHECK_KIND(out.ctx().IsHostMemory() && row_ids.ctx().IsHostMemory(), "ValueError")
      << "row_sparse_pull into " << out.ctx().ToString() << " needs a CUDA build";
  MX_CHECK_KIND(stored.shape().ndim() >= 1, "ValueError")
      << "row_sparse_pull: key " << key_name << " holds a scalar, which has no rows";
  row_ids.CheckAndAlloc();
  out.CheckAndAlloc();
  out.BumpVersion();
  std::vector<engine::VarHandle> reads{stored.var()};
  if (row_ids.var() != stored.var()) reads.push_back(row_ids.var());
  Engine::Get()->PushSync(
      [stored, row_ids, out, key_name](RunContext) {
        const int64_t rows = stored.shape()[0];
        const size_t row_bytes = rows ? stored.Size() / rows * DTypeSize(stored.dtype()) : 0;
        const char* src = static_cast<const char*>(stored.data_for_read().dptr_);
        char* dst = static_cast<char*>(out.data().dptr_);
        std::memset(dst, 0, row_bytes * rows);
        const TBlob ids = row_ids.data_for_read();
        MXNET_TYPE_SWITCH(row_ids.dtype(), IType, {
          const IType* id = static_cast<const IType*>(ids.dptr_);
          for (int64_t i = 0; i < row_ids.Size(); ++i) {
            const double r = static_cast<double>(id[i]);
            MX_CHECK_KIND(r >= 0 && r < rows && r == static_cast<double>(static_cast<int64_t>(r)), "IndexError")
                << "row_sparse_pull: row id " << r << " of key " << key_name << " is not a row of its " << rows
                << " rows";
            const int64_t row = static_cast<int64_t>(r);
            std::memcpy(dst + row * row_bytes, src + row * row_bytes, row_bytes);
          }
        });
      },
      out.ctx(), reads, {out.var()}, FnProperty::kCompute, priority, "KVStoreRowSparsePull");
}

}  // namespace kvstore
}  // namespace mxnet
