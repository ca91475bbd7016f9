/*!
 * \file onednn_base.h
 * \brief What every oneDNN-backed kernel shares: the switch (MXNET_ONEDNN_ENABLED), the CPU
 *        engine and per-thread stream, plain memory descriptors for our row-major tensors,
 *        the per-thread primitive cache bounded by MXNET_ONEDNN_CACHE_NUM, and the post-op
 *        struct that later fusion passes will fill.
 *
 * A primitive that prefers a blocked layout for an operand our plain (row-major) tensor
 * cannot give it gets a reorder whose buffer lives in the cache entry (LayoutBridge), so a
 * cache hit allocates nothing. Outputs may stay blocked between oneDNN-aware ops instead
 * (onednn_layout.h; docs/architecture.md).
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_BASE_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_BASE_H_

#if MXNET_USE_ONEDNN

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/op.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {
namespace onednn {

/*!
 * \brief Whether kernels take their oneDNN path: MXNET_ONEDNN_ENABLED (fixed at load) unless
 *        a test or benchmark installed an override with SetEnabledOverride.
 */
bool Enabled();
/*! \brief -1: follow MXNET_ONEDNN_ENABLED; 0: force the plain kernels; 1: force oneDNN. */
void SetEnabledOverride(int mode);

dnnl::engine& CpuEngine();
/*! \brief The calling thread's stream (kernels run synchronously on engine workers). */
dnnl::stream& ThreadStream();

/*! \brief oneDNN data type of a dtype flag; undef when oneDNN has no kernels for it. */
dnnl::memory::data_type DataType(int dtype);
/*!
 * \brief Whether this CPU runs oneDNN's bfloat16 kernels: they need AVX-512 (avx512_core); on
 *        an AVX2-only CPU oneDNN 2.6 has no bfloat16 convolution at all.
 */
bool CpuHasBfloat16Kernels();
/*! \brief nChw16c on AVX-512 CPUs, nChw8c otherwise: the channel blocking oneDNN's JIT kernels use. */
dnnl::memory::format_tag NativeChannelBlocking();
/*! \brief Whether the CPU runs oneDNN's AVX-512 kernels (whose f32 convolutions keep activations channel-last). */
bool CpuHasAvx512Core();
/*!
 * \brief float32 always, bfloat16 where the CPU has its kernels: the dtypes our oneDNN paths
 *        run. Others take the plain kernels (bfloat16 computed through float32).
 */
inline bool SupportedType(int dtype) { return dtype == kFloat32 || (dtype == kBfloat16 && CpuHasBfloat16Kernels()); }

dnnl::memory::dims Dims(const TShape& s);
/*! \brief a, ab, abc, ... : the row-major tag of a rank. */
dnnl::memory::format_tag PlainTag(int ndim);
dnnl::memory::desc PlainDesc(const TShape& s, int dtype);
inline dnnl::memory::desc PlainDesc(const TBlob& b) { return PlainDesc(b.shape_, b.type_flag_); }
/*!
 * \brief The [N][ceil(C/B)][spatial...][B] storage of a 3- to 5-D desc (any data type): plain
 *        (B = 1), blocks of 8 or 16 channels (nCw8c ... nCdhw16c; the last block is padded when
 *        B does not divide C), or channel-last (B = C); false for any other format.
 */
bool ChannelLanes(const dnnl::memory::desc& d, dnnl::memory::format_tag* tag, int64_t* lanes);

/*!
 * \brief Post-operations appended to a primitive (the fusion hook): `sum` honours kAddTo or
 *        adds a residual input (conv + sum fusion); eltwise entries carry fused activations.
 */
struct PostOps {
  float sum_scale{0.f};  // non-zero: dst = op(...) + sum_scale * dst
  // With sum_scale: dst starts as this input of the running op (input sum_input), not as the
  // output's old content. Not part of the primitive's key (the primitive is the same).
  const TBlob* sum_src{nullptr};
  size_t sum_input{0};
  struct Eltwise {
    dnnl::algorithm alg;
    float alpha, beta;
  };
  std::vector<Eltwise> eltwise;  // applied in order after the sum
  bool empty() const { return sum_scale == 0.f && eltwise.empty(); }
  dnnl::primitive_attr ToAttr() const;
  void AppendKey(std::vector<int64_t>* key) const;
};

/*! \brief A cache key: op tag, shapes, dtypes and attributes flattened to integers. */
struct Key {
  std::vector<int64_t> v;
  Key& Add(int64_t x) {
    v.push_back(x);
    return *this;
  }
  Key& Add(const TShape& s) {
    v.push_back(s.ndim());
    v.insert(v.end(), s.begin(), s.end());
    return *this;
  }
  Key& Add(const TBlob& b) { return Add(b.shape_).Add(b.type_flag_); }
  bool operator==(const Key& o) const { return v == o.v; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : k.v) h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

/*! \brief MXNET_ONEDNN_CACHE_NUM: entries each thread keeps per primitive kind; -1 unbounded. */
int64_t CacheCapacity();
/*! \brief Primitives built so far in this process (cache misses); tests read it to see hits. */
uint64_t PrimitivesBuilt();
void CountPrimitiveBuilt();

/*!
 * \brief Least-recently-used cache of built primitives. One instance per primitive kind and
 *        thread (declare it thread_local), so look-ups take no lock and an entry's buffers are
 *        never used by two kernels at once.
 */
template <typename Entry>
class PrimitiveCache {
 public:
  template <typename Make>
  Entry& Get(const Key& key, Make&& make) {
    auto it = map_.find(key);
    if (it != map_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return *it->second->second;
    }
    const int64_t cap = CacheCapacity();
    if (cap == 0) {  // caching off: keep only the entry being used
      lru_.clear();
      map_.clear();
    }
    CountPrimitiveBuilt();
    lru_.emplace_front(key, std::make_unique<Entry>(make()));
    map_[key] = lru_.begin();
    while (cap > 0 && static_cast<int64_t>(lru_.size()) > cap) {
      map_.erase(lru_.back().first);
      lru_.pop_back();
    }
    return *lru_.front().second;
  }
  size_t size() const { return lru_.size(); }

 private:
  using Item = std::pair<Key, std::unique_ptr<Entry>>;
  std::list<Item> lru_;
  std::unordered_map<Key, typename std::list<Item>::iterator, KeyHash> map_;
};

/*!
 * \brief Copies src to dst when both have the same format (a residual copied into a fused
 *        convolution's output, a layout copy): chunks of memcpy on OpenMP threads, 15% faster
 *        than oneDNN's generic reorder for 32x256x56x56 and equal at batch 1. Returns false,
 *        doing nothing, when the formats differ.
 */
bool SameFormatCopy(const dnnl::memory::desc& from, const void* src, const dnnl::memory::desc& to, void* dst);

/*!
 * \brief A plain user buffer and, when the primitive wants another layout, the reorder and
 *        the buffer it reorders through. Built once per cache entry; Bind() per call.
 */
class LayoutBridge {
 public:
  LayoutBridge() = default;
  /*! \brief user: the plain layout of our tensor; want: what the primitive chose. */
  LayoutBridge(const dnnl::memory::desc& user, const dnnl::memory::desc& want);
  /*! \brief Points the user memory at ptr. */
  void Bind(void* ptr) { user_.set_data_handle(ptr); }
  /*! \brief The memory to hand the primitive (user's or the reorder buffer). */
  const dnnl::memory& Prim() const { return needs_reorder_ ? inner_ : user_; }
  /*! \brief Input side: reorder user -> primitive layout if they differ. */
  void ToPrim(dnnl::stream& s) {
    if (needs_reorder_ && !SameFormatCopy(user_desc_, user_.get_data_handle(), inner_desc_, inner_.get_data_handle()))
      to_prim_.execute(s, user_, inner_);
  }
  /*! \brief Output side: reorder primitive layout -> user if they differ. */
  void FromPrim(dnnl::stream& s) {
    if (needs_reorder_ && !SameFormatCopy(inner_desc_, inner_.get_data_handle(), user_desc_, user_.get_data_handle()))
      from_prim_.execute(s, inner_, user_);
  }
  bool needs_reorder() const { return needs_reorder_; }

 private:
  dnnl::memory user_, inner_;
  dnnl::memory::desc user_desc_, inner_desc_;
  dnnl::reorder to_prim_, from_prim_;
  bool needs_reorder_{false};
};

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_BASE_H_
