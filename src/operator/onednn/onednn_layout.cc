/*!
 * \file onednn_layout.cc
 * \brief BlockedData and the kernel-side access to blocked inputs and outputs (see onednn_layout.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_layout.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mxnet {
namespace op {
namespace onednn {
namespace {

std::atomic<uint64_t> blocked_outputs{0};
std::atomic<uint64_t> cached_inputs{0};

struct ReorderEntry {
  dnnl::reorder prim;
  dnnl::memory src, dst;
};

const NDArray* InputArray(size_t i) {
  const KernelArrays* k = KernelArrays::Current();
  return k && k->inputs && i < k->inputs->size() ? &(*k->inputs)[i] : nullptr;
}
/*! \brief Input i when the running op accepts layouts (only then may its inputs hold one). */
const NDArray* LayoutInputArray(size_t i) {
  const KernelArrays* k = KernelArrays::Current();
  return k && k->accepts_layouts ? InputArray(i) : nullptr;
}
/*! \brief Output i when the running op accepts layouts (only then may it leave one). */
const NDArray* LayoutOutputArray(size_t i) {
  const KernelArrays* k = KernelArrays::Current();
  return k && k->accepts_layouts && k->outputs && i < k->outputs->size() ? &(*k->outputs)[i] : nullptr;
}

/*! \brief Reorders src (described by from) into dst (described by to) on this thread's stream. */
void Reorder(const dnnl::memory::desc& from, const void* src, const dnnl::memory::desc& to, void* dst) {
  if (SameFormatCopy(from, src, to, dst)) return;
  thread_local PrimitiveCache<ReorderEntry> cache;
  Key key;
  AddDescKey(&key, from);
  AddDescKey(&key, to);
  ReorderEntry& e = cache.Get(key, [&] {
    dnnl::memory in(from, CpuEngine(), DNNL_MEMORY_NONE), out(to, CpuEngine(), DNNL_MEMORY_NONE);
    return ReorderEntry{dnnl::reorder(in, out), in, out};
  });
  e.src.set_data_handle(const_cast<void*>(src));
  e.dst.set_data_handle(dst);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, e.src, e.dst);
  s.wait();
}

}  // namespace

/*! \brief Dims lettered a, b, ... outermost stride first, blocked dims upper case, then the inner blocks. */
static std::string FormatTag(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& c = d.data;
  if (c.format_kind != dnnl_blocked) return "any";
  const auto& b = c.format_desc.blocking;
  std::vector<int> order(c.ndims);
  for (int i = 0; i < c.ndims; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b.strides[x] > b.strides[y]; });
  std::string tag;
  for (int i : order) {
    bool blocked = false;
    for (int k = 0; k < b.inner_nblks; ++k) blocked |= b.inner_idxs[k] == i;
    tag += static_cast<char>((blocked ? 'A' : 'a') + i);
  }
  for (int k = 0; k < b.inner_nblks; ++k)
    tag += std::to_string(b.inner_blks[k]) + static_cast<char>('a' + b.inner_idxs[k]);
  return tag;
}

BlockedData::BlockedData(const dnnl::memory::desc& desc, const dnnl::memory::desc& plain)
    : desc_(desc), plain_(plain), format_(FormatTag(desc)) {
  handle_ = Storage::Get()->Alloc(desc.get_size(), Context::CPU());
}

BlockedData::~BlockedData() { Storage::Get()->Free(handle_); }

void BlockedData::ToPlain(void* dst) const { Reorder(desc_, handle_.dptr, plain_, dst); }

void BlockedData::FromPlain(const void* src) { Reorder(plain_, src, desc_, handle_.dptr); }

void AddDescKey(Key* key, const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& c = d.data;
  key->Add(c.ndims).Add(static_cast<int64_t>(c.data_type)).Add(static_cast<int64_t>(c.format_kind));
  for (int i = 0; i < c.ndims; ++i) key->Add(c.dims[i]).Add(c.padded_dims[i]);
  if (c.format_kind != dnnl_blocked) return;
  const auto& b = c.format_desc.blocking;
  for (int i = 0; i < c.ndims; ++i) key->Add(b.strides[i]);
  key->Add(b.inner_nblks);
  for (int i = 0; i < b.inner_nblks; ++i) key->Add(b.inner_blks[i]).Add(b.inner_idxs[i]);
}

/*! \brief Whether the kernel's blob b is array a's memory seen as a whole. */
bool SameMemory(const NDArray* a, const TBlob& b) {
  return a && a->whole_chunk() && a->shape() == b.shape_ && a->dtype() == b.type_flag_ &&
         a->data_keep_layout().dptr_ == b.dptr_;
}

std::shared_ptr<const BlockedData> BlockedInput(size_t i, const TBlob& x) {
  const NDArray* a = LayoutInputArray(i);
  if (!SameMemory(a, x)) return nullptr;
  // Only this module installs layouts on CPU arrays, so the cast is to our own type.
  return std::dynamic_pointer_cast<const BlockedData>(a->opaque_layout());
}

namespace {
/*!
 * \brief After a's data came back to plain memory, points the kernel's blobs of a's chunk that
 *        had none (its plain memory had been given back) at it.
 */
void RepointBlobs(const NDArray& a) {
  const KernelArrays* k = KernelArrays::Current();
  if (!k) return;
  auto fix = [&a](const std::vector<NDArray>* arrays, std::vector<TBlob>* blobs) {
    if (!arrays || !blobs) return;
    for (size_t j = 0; j < arrays->size() && j < blobs->size(); ++j)
      if ((*blobs)[j].dptr_ == nullptr && (*arrays)[j].SameChunk(a))
        (*blobs)[j].dptr_ = (*arrays)[j].data_keep_layout().dptr_;
  };
  fix(k->inputs, k->input_blobs);
  fix(k->outputs, k->output_blobs);
}
}  // namespace

void PlainInput(size_t i) {
  if (const NDArray* a = InputArray(i)) {
    a->MaterializePlain();
    RepointBlobs(*a);
  }
}

void PlainInputs() {
  const KernelArrays* k = KernelArrays::Current();
  if (!k || !k->inputs) return;
  for (const NDArray& a : *k->inputs) {
    a.MaterializePlain();
    RepointBlobs(a);
  }
}

void CopyInputInto(size_t i, const TBlob& x, const dnnl::memory::desc& plain, const dnnl::memory::desc& to, void* dst) {
  if (const std::shared_ptr<const BlockedData> bx = BlockedInput(i, x)) {
    Reorder(bx->desc(), bx->ptr(), to, dst);
    return;
  }
  PlainInput(i);
  Reorder(plain, x.dptr_, to, dst);  // same memory and format: SameFormatCopy leaves it
}

bool CanLeaveBlocked(size_t i, const TBlob& y) {
  const NDArray* a = LayoutOutputArray(i);
  return y.Size() > 0 && SameMemory(a, y) && a->ctx().dev_type == Context::kCPU;
}

void SetBlockedOutput(size_t i, std::shared_ptr<const BlockedData> data) {
  const NDArray* a = LayoutOutputArray(i);
  MX_CHECK(a != nullptr) << "SetBlockedOutput outside an op that accepts layouts";
  a->set_opaque_layout(std::move(data));
  blocked_outputs.fetch_add(1, std::memory_order_relaxed);
}

uint64_t BlockedOutputsMade() { return blocked_outputs.load(); }

std::shared_ptr<const OpaqueLayout> CachedDerivedInput(size_t i, const TBlob& w,
                                                       const std::function<bool(const OpaqueLayout&)>& fits,
                                                       const std::function<std::shared_ptr<const OpaqueLayout>()>& make,
                                                       bool replace) {
  const NDArray* a = InputArray(i);
  if (!SameMemory(a, w) || a->ctx().dev_type != Context::kCPU) return nullptr;
  // A copy is only valid while nobody writes the array: never cache one of an array this op writes.
  if (const std::vector<NDArray>* outs = KernelArrays::Current()->outputs)
    for (const NDArray& o : *outs)
      if (o.SameChunk(*a)) return nullptr;
  std::shared_ptr<const OpaqueLayout> have = a->cached_layout();
  if (have && fits(*have)) return have;
  if (have && !replace) return nullptr;
  std::shared_ptr<const OpaqueLayout> made = make();
  if (!a->set_cached_layout(made)) return nullptr;  // plain memory stale (the caller converts first)
  cached_inputs.fetch_add(1, std::memory_order_relaxed);
  return made;
}

std::shared_ptr<const BlockedData> CachedInput(size_t i, const TBlob& w, const dnnl::memory::desc& user,
                                               const dnnl::memory::desc& want) {
  // Only this module caches copies of CPU arrays, so the casts are to our own types.
  auto copy = CachedDerivedInput(
      i, w,
      [&](const OpaqueLayout& have) {
        auto* b = dynamic_cast<const BlockedData*>(&have);
        return b != nullptr && b->desc() == want;
      },
      [&] {
        auto made = std::make_shared<BlockedData>(want, user);
        made->FromPlain(w.dptr_);
        return std::shared_ptr<const OpaqueLayout>(std::move(made));
      });
  return std::dynamic_pointer_cast<const BlockedData>(copy);
}

uint64_t CachedInputsMade() { return cached_inputs.load(); }

WeightOperand::WeightOperand(const dnnl::memory::desc& user, const dnnl::memory::desc& want)
    : user_(user),
      want_(want),
      plain_(user, CpuEngine(), DNNL_MEMORY_NONE),
      cached_(want, CpuEngine(), DNNL_MEMORY_NONE) {}

const dnnl::memory& WeightOperand::Bind(size_t i, const TBlob& w, bool use_cache, dnnl::stream& s,
                                        std::shared_ptr<const BlockedData>* hold) {
  if (user_ == want_) {
    plain_.set_data_handle(w.dptr_);
    return plain_;
  }
  if (use_cache) *hold = CachedInput(i, w, user_, want_);
  if (use_cache && *hold) {
    cached_.set_data_handle((*hold)->ptr());
    return cached_;
  }
  if (!bridge_) bridge_ = std::make_unique<LayoutBridge>(user_, want_);
  bridge_->Bind(w.dptr_);
  bridge_->ToPrim(s);
  return bridge_->Prim();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
