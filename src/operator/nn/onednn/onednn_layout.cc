/*!
 * \file onednn_layout.cc
 * \brief BlockedData and the kernel-side access to blocked inputs and outputs (see onednn_layout.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/nn/onednn/onednn_layout.h"

#include <atomic>
#include <utility>

namespace mxnet {
namespace op {
namespace onednn {
namespace {

std::atomic<uint64_t> blocked_outputs{0};

struct ReorderEntry {
  dnnl::reorder prim;
  dnnl::memory src, dst;
};

const NDArray* InputArray(size_t i) {
  const KernelArrays* k = KernelArrays::Current();
  return k && k->inputs && i < k->inputs->size() ? &(*k->inputs)[i] : nullptr;
}
const NDArray* OutputArray(size_t i) {
  const KernelArrays* k = KernelArrays::Current();
  return k && k->outputs && i < k->outputs->size() ? &(*k->outputs)[i] : nullptr;
}

}  // namespace

BlockedData::BlockedData(const dnnl::memory::desc& desc, const dnnl::memory::desc& plain) : desc_(desc), plain_(plain) {
  handle_ = Storage::Get()->Alloc(desc.get_size(), Context::CPU());
}

BlockedData::~BlockedData() { Storage::Get()->Free(handle_); }

void BlockedData::ToPlain(void* dst) const {
  thread_local PrimitiveCache<ReorderEntry> cache;
  Key key;
  AddDescKey(&key, desc_);
  AddDescKey(&key, plain_);
  ReorderEntry& e = cache.Get(key, [&] {
    dnnl::memory src(desc_, CpuEngine(), DNNL_MEMORY_NONE), out(plain_, CpuEngine(), DNNL_MEMORY_NONE);
    return ReorderEntry{dnnl::reorder(src, out), src, out};
  });
  e.src.set_data_handle(handle_.dptr);
  e.dst.set_data_handle(dst);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, e.src, e.dst);
  s.wait();
}

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
  const NDArray* a = InputArray(i);
  if (!SameMemory(a, x)) return nullptr;
  // Only this module installs layouts on CPU arrays, so the cast is to our own type.
  return std::dynamic_pointer_cast<const BlockedData>(a->opaque_layout());
}

void PlainInput(size_t i) {
  if (const NDArray* a = InputArray(i)) a->MaterializePlain();
}

void PlainInputs() {
  const KernelArrays* k = KernelArrays::Current();
  if (!k || !k->inputs) return;
  for (const NDArray& a : *k->inputs) a.MaterializePlain();
}

bool CanLeaveBlocked(size_t i, const TBlob& y) {
  const NDArray* a = OutputArray(i);
  return y.Size() > 0 && SameMemory(a, y) && a->ctx().dev_type == Context::kCPU;
}

void SetBlockedOutput(size_t i, std::shared_ptr<const BlockedData> data) {
  const NDArray* a = OutputArray(i);
  MX_CHECK(a != nullptr) << "SetBlockedOutput outside an op that accepts layouts";
  a->set_opaque_layout(std::move(data));
  blocked_outputs.fetch_add(1, std::memory_order_relaxed);
}

uint64_t BlockedOutputsMade() { return blocked_outputs.load(); }

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
