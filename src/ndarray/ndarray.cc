/*!
 * \file ndarray.cc
 * \brief NDArray chunks, views, waits, host copies and engine-pushed copies.
 */
#include "mxnet/ndarray.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "ndarray/device_copy.h"

namespace mxnet {

NDArray::Chunk::Chunk(size_t nbytes, Context c, bool delay) : ctx(c), bytes(nbytes), delay_alloc(delay) {
  var = Engine::Get()->NewVariable();
  if (!delay) Alloc();
}

void NDArray::Chunk::Alloc() {
  std::lock_guard<std::mutex> lk(alloc_mu);
  if (!delay_alloc.load(std::memory_order_acquire) && handle.dptr) return;
  handle = Storage::Get()->Alloc(bytes, ctx);
  delay_alloc.store(false, std::memory_order_release);
}

void NDArray::Chunk::Release() {
  std::lock_guard<std::mutex> lk(alloc_mu);
  if (!handle.dptr) return;
  Storage::Get()->Free(handle);
  handle = Storage::Handle();
  delay_alloc.store(true, std::memory_order_release);
}

NDArray::Chunk::~Chunk() {
  // The memory may still be read or written by pushed ops: free it after they ran.
  Storage::Handle h = handle;
  Engine::Get()->DeleteVariable(
      [h](RunContext) {
        if (h.dptr) Storage::Get()->Free(h);
      },
      // Never allocated (a GPU array whose allocation failed, say): nothing needs its device.
      h.dptr ? ctx : Context::CPU(), var);
}

NDArray::NDArray(const TShape& shape, Context ctx, bool delay_alloc, int dtype) : shape_(shape), dtype_(dtype) {
  MX_CHECK_KIND(shape.ndim() >= 0, "ValueError") << "cannot create an array of unknown shape";
  for (dim_t d : shape)
    MX_CHECK_KIND(d >= 0, "ValueError") << "cannot create an array with negative or unknown dimension: shape " << shape;
  // Overflow of the element or byte count would wrap to a small allocation; refuse it instead.
  const uint64_t elem = DTypeSize(dtype);
  uint64_t n = 1;
  bool overflow = false, empty = false;
  for (dim_t d : shape) {
    empty = empty || d == 0;
    if (d != 0 && n > (SIZE_MAX / elem) / static_cast<uint64_t>(d)) overflow = true;
    n *= static_cast<uint64_t>(d);
  }
  MX_CHECK_KIND(!overflow || empty, "MemoryError")
      << "array of shape " << shape << " and dtype " << DTypeName(dtype) << " is too large";
  chunk_ = std::make_shared<Chunk>(empty ? 0 : static_cast<size_t>(n * elem), ctx, delay_alloc);
}

void NDArray::CheckAndAlloc() const {
  // Memory given back while a layout holds the data comes back through MaterializePlain.
  if (chunk_ && chunk_->delay_alloc.load(std::memory_order_acquire) &&
      !chunk_->has_layout.load(std::memory_order_acquire))
    chunk_->Alloc();
}

void NDArray::ReleasePlainMemory() const {
  if (!chunk_ || chunk_->ctx.dev_type != Context::kCPU || !whole_chunk()) return;
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  if (chunk_->layout) chunk_->Release();
}

TBlob NDArray::data() const {
  if (!chunk_) return TBlob(nullptr, shape_, dtype_, Context());
  // The caller may write through the blob: a cached copy would go stale.
  DropCachedLayout();
  return data_for_read();
}

TBlob NDArray::data_for_read() const {
  if (!chunk_) return TBlob(nullptr, shape_, dtype_, Context());
  // Plain access of any view (read or write) first brings back a backend layout's data.
  if (chunk_->has_layout.load(std::memory_order_acquire)) MaterializePlain();
  return data_keep_layout();
}

TBlob NDArray::data_keep_layout() const {
  if (!chunk_) return TBlob(nullptr, shape_, dtype_, Context());
  char* base;
  if (chunk_->has_layout.load(std::memory_order_acquire)) {
    // The layout holds the data; its plain memory may have been given back (a null pointer
    // then, until MaterializePlain). Another reader may be converting: read under the lock.
    std::lock_guard<std::mutex> lk(chunk_->alloc_mu);
    base = static_cast<char*>(chunk_->handle.dptr);
  } else {
    CheckAndAlloc();
    base = static_cast<char*>(chunk_->handle.dptr);
  }
  return TBlob(base ? base + byte_offset_ : nullptr, shape_, dtype_, chunk_->ctx);
}

void NDArray::MaterializePlain() const {
  if (!chunk_) return;
  // Readers of one var run concurrently: the lock makes the conversion happen once, and
  // every plain reader waits for it. Readers of the layout hold their own reference.
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  if (!chunk_->layout) return;
  chunk_->Alloc();  // no-op unless the plain memory was given back
  chunk_->layout->ToPlain(chunk_->handle.dptr);
  chunk_->layout.reset();
  chunk_->has_layout.store(false, std::memory_order_release);
}

std::shared_ptr<const OpaqueLayout> NDArray::opaque_layout() const {
  if (!chunk_ || !chunk_->has_layout.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  if (byte_offset_ != 0 || shape_ != chunk_->layout_shape || dtype_ != chunk_->layout_dtype) return nullptr;
  return chunk_->layout;
}

void NDArray::set_opaque_layout(std::shared_ptr<const OpaqueLayout> layout) const {
  if (!chunk_) return;
  MX_CHECK(whole_chunk()) << "an opaque layout must describe a whole chunk";
  std::shared_ptr<const OpaqueLayout> old_cache;  // freed outside the lock
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  chunk_->layout = std::move(layout);
  chunk_->layout_shape = shape_;
  chunk_->layout_dtype = dtype_;
  chunk_->has_layout.store(chunk_->layout != nullptr, std::memory_order_release);
  // New data: a copy of the old plain data must not outlive it.
  old_cache.swap(chunk_->cache);
  chunk_->has_cache.store(false, std::memory_order_release);
}

std::shared_ptr<const OpaqueLayout> NDArray::cached_layout() const {
  if (!chunk_ || !chunk_->has_cache.load(std::memory_order_acquire)) return nullptr;
  // Readers run only after every write pushed before them completed, and no write runs
  // while they do: the var's completed-write count is stable here and says whether the
  // copy predates a write.
  const uint64_t completed = engine::VarVersion(chunk_->var);
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  if (!chunk_->cache || chunk_->cache_version != completed) return nullptr;
  if (byte_offset_ != 0 || shape_ != chunk_->cache_shape || dtype_ != chunk_->cache_dtype) return nullptr;
  return chunk_->cache;
}

bool NDArray::set_cached_layout(std::shared_ptr<const OpaqueLayout> copy) const {
  if (!chunk_ || !whole_chunk()) return false;
  const uint64_t completed = engine::VarVersion(chunk_->var);
  std::shared_ptr<const OpaqueLayout> old_cache;  // freed outside the lock
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  if (chunk_->layout) return false;  // plain memory is stale: the copy was not made from current data
  old_cache.swap(chunk_->cache);
  chunk_->cache = std::move(copy);
  chunk_->cache_shape = shape_;
  chunk_->cache_dtype = dtype_;
  chunk_->cache_version = completed;
  chunk_->has_cache.store(chunk_->cache != nullptr, std::memory_order_release);
  return chunk_->cache != nullptr;
}

void NDArray::DropCachedLayout() const {
  if (!chunk_ || !chunk_->has_cache.load(std::memory_order_acquire)) return;
  std::shared_ptr<const OpaqueLayout> old_cache;  // freed outside the lock
  std::lock_guard<std::mutex> lk(chunk_->layout_mu);
  old_cache.swap(chunk_->cache);
  chunk_->has_cache.store(false, std::memory_order_release);
}

namespace {
thread_local const KernelArrays* tls_kernel_arrays = nullptr;
}  // namespace

const KernelArrays* KernelArrays::Current() { return tls_kernel_arrays; }
KernelArraysScope::KernelArraysScope(const KernelArrays* arrays) : prev_(tls_kernel_arrays) {
  tls_kernel_arrays = arrays;
}
KernelArraysScope::~KernelArraysScope() { tls_kernel_arrays = prev_; }

NDArray NDArray::Reshape(const TShape& shape) const {
  MX_CHECK_KIND(!is_none(), "ValueError") << "cannot reshape a none array";
  MX_CHECK_KIND(shape.IsKnown() && shape.Size() == Size(), "ValueError")
      << "cannot reshape array of shape " << shape_ << " into shape " << shape;
  NDArray r = *this;
  r.shape_ = shape;
  r.entry_ = op::NodeEntry();
  return r;
}

NDArray NDArray::Slice(int64_t begin, int64_t end) const {
  MX_CHECK_KIND(!is_none() && shape_.ndim() >= 1, "ValueError") << "cannot slice an array of shape " << shape_;
  MX_CHECK_KIND(0 <= begin && begin <= end && end <= shape_[0], "IndexError")
      << "slice [" << begin << ", " << end << ") out of range for axis 0 of shape " << shape_;
  NDArray r = *this;
  const int64_t row = shape_.ProdShape(1, shape_.ndim()) * static_cast<int64_t>(DTypeSize(dtype_));
  r.byte_offset_ += begin * row;
  r.shape_[0] = end - begin;
  r.entry_ = op::NodeEntry();
  return r;
}

NDArray NDArray::At(int64_t idx) const {
  MX_CHECK_KIND(!is_none() && shape_.ndim() >= 1, "ValueError") << "cannot index an array of shape " << shape_;
  MX_CHECK_KIND(0 <= idx && idx < shape_[0], "IndexError")
      << "index " << idx << " is out of bounds for axis 0 with size " << shape_[0];
  NDArray r = Slice(idx, idx + 1);
  std::vector<dim_t> dims(shape_.begin() + 1, shape_.end());
  r.shape_ = TShape(dims);
  return r;
}

void NDArray::WaitToRead() const {
  if (chunk_) Engine::Get()->WaitForVar(chunk_->var);
}

void NDArray::WaitToWrite() const {
  if (!chunk_) return;
  Engine::Get()->WaitToWrite(chunk_->var);
  // The caller is about to write the memory directly: a cached layout copy goes stale.
  DropCachedLayout();
}

void NDArray::SyncCopyFromCPU(const void* src, size_t nelem) const {
  MX_CHECK_KIND(!is_none(), "ValueError") << "cannot copy into a none array";
  MX_CHECK_KIND(static_cast<int64_t>(nelem) == Size(), "ValueError")
      << "SyncCopyFromCPU: array of shape " << shape_ << " has " << Size() << " elements, source has " << nelem;
  WaitToWrite();
  TBlob dst = data();
  if (!ctx().IsHostMemory()) {
    ndarray::DeviceCopyBytes(TBlob(const_cast<void*>(src), dst.shape_, dst.type_flag_, Context::CPU()), dst, nullptr);
  } else if (nelem) {
    std::memcpy(dst.dptr_, src, dst.Bytes());
  }
  // This write bypasses the engine: drop again in case a reader cached a copy meanwhile.
  DropCachedLayout();
  BumpVersion();
}

void NDArray::SyncCopyToCPU(void* dst, size_t nelem) const {
  MX_CHECK_KIND(!is_none(), "ValueError") << "cannot copy from a none array";
  MX_CHECK_KIND(static_cast<int64_t>(nelem) == Size(), "ValueError")
      << "SyncCopyToCPU: array of shape " << shape_ << " has " << Size() << " elements, target has " << nelem;
  WaitToRead();
  TBlob src = data_for_read();
  if (!ctx().IsHostMemory()) {
    ndarray::DeviceCopyBytes(src, TBlob(dst, src.shape_, src.type_flag_, Context::CPU()), nullptr);
  } else if (nelem) {
    std::memcpy(dst, src.dptr_, src.Bytes());
  }
}

namespace {
void CopyBlob(const TBlob& from, const TBlob& to) {
  if (from.type_flag_ == to.type_flag_) {
    if (from.dptr_ != to.dptr_) std::memmove(to.dptr_, from.dptr_, to.Bytes());
    return;
  }
  MXNET_TYPE_SWITCH(from.type_flag_, SType, {
    MXNET_TYPE_SWITCH(to.type_flag_, DType, {
      const SType* s = static_cast<const SType*>(from.dptr_);
      DType* d = static_cast<DType*>(to.dptr_);
      for (int64_t i = 0, n = to.Size(); i < n; ++i) d[i] = static_cast<DType>(static_cast<double>(s[i]));
    });
  });
}
}  // namespace

/*!
 * \brief A copy with a GPU on either side. Between devices it moves bytes on the copy stream
 *        of the GPU involved (the target's for host-to-GPU and GPU-to-GPU, the source's for
 *        GPU-to-host); a dtype change happens on the GPU side, or on the host after the move.
 */
static void CopyWithGpu(const NDArray& from, const NDArray& to, int priority) {
  const Context fc = from.ctx(), tc = to.ctx();
  if (from.dtype() != to.dtype() && fc != tc) {
    // Move first in the source dtype, then convert within the target device.
    NDArray staged(to.shape(), tc, true, from.dtype());
    CopyWithGpu(from, staged, priority);
    CopyFromTo(staged, to, priority);
    return;
  }
  to.CheckAndAlloc();
  from.CheckAndAlloc();
  std::vector<engine::VarHandle> reads;
  if (!from.SameChunk(to)) reads.push_back(from.var());
  to.BumpVersion();
  const bool to_gpu = !tc.IsHostMemory();
  const Context run_on = to_gpu ? tc : fc;
  const FnProperty prop = fc == tc ? FnProperty::kCompute : (to_gpu ? FnProperty::kCopyToGPU : FnProperty::kCopyFromGPU);
  const char* name = fc == tc ? "CastGPU" : (fc.IsHostMemory() ? "CopyCPU2GPU" : (to_gpu ? "CopyGPU2GPU" : "CopyGPU2CPU"));
  Engine::Get()->PushSync(
      [from, to](RunContext rctx) {
        const TBlob src = from.data_for_read(), dst = to.data();
        if (src.type_flag_ == dst.type_flag_) {
          ndarray::DeviceCopyBytes(src, dst, rctx.stream);
        } else {
          ndarray::DeviceCastCopy(src, dst, rctx.stream);
        }
      },
      run_on, reads, {to.var()}, prop, priority, name);
}

void CopyFromTo(const NDArray& from, const NDArray& to, int priority) {
  MX_CHECK_KIND(!from.is_none() && !to.is_none(), "ValueError") << "copy between none arrays";
  MX_CHECK_KIND(from.Size() == to.Size(), "ValueError")
      << "copy from shape " << from.shape() << " to shape " << to.shape() << ": sizes differ";
  if (from.SameData(to) && from.dtype() == to.dtype()) return;
  if (!from.ctx().IsHostMemory() || !to.ctx().IsHostMemory()) return CopyWithGpu(from, to, priority);
  to.CheckAndAlloc();
  from.CheckAndAlloc();
  std::vector<engine::VarHandle> reads;
  if (!from.SameChunk(to)) reads.push_back(from.var());
  to.BumpVersion();
  Engine::Get()->PushSync([from, to](RunContext) { CopyBlob(from.data_for_read(), to.data()); }, to.ctx(), reads,
                          {to.var()}, FnProperty::kCompute, priority, "CopyCPU2CPU");
}

}  // namespace mxnet
