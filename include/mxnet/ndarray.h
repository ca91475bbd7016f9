/*!
 * \file ndarray.h
 * \brief NDArray: a typed, shaped view of a storage chunk that carries an engine var.
 *        Views (Reshape, Slice along axis 0, At) share the chunk and hence the var, so the
 *        engine orders every read and write of the memory. Copying an NDArray object copies
 *        the view (cheap); the chunk is freed through the engine when the last view goes.
 */
#ifndef MXNET_NDARRAY_H_
#define MXNET_NDARRAY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/engine.h"
#include "mxnet/graph_node.h"
#include "mxnet/storage.h"
#include "mxnet/tensor.h"

namespace mxnet {

/*!
 * \brief A chunk's data held in a backend's own memory layout (oneDNN's blocked formats,
 *        e.g. nChw16c) instead of the chunk's plain row-major memory. Opaque here: only
 *        the backend that made it reads it directly; everyone else gets plain data through
 *        NDArray::data(), which converts it back (ToPlain) the first time plain memory is
 *        touched. Immutable once installed, so concurrent readers may share it.
 */
class OpaqueLayout {
 public:
  virtual ~OpaqueLayout() = default;
  /*! \brief Writes the data in plain row-major layout to dst (the chunk's own memory). */
  virtual void ToPlain(void* dst) const = 0;
  /*! \brief The format in a few characters ("aBcd16b"): kernel choices are cached by it and logs print it. */
  virtual const std::string& Describe() const {
    static const std::string kOpaque("opaque");
    return kOpaque;
  }
};

class NDArray {
 public:
  /*! \brief A "none" array: no shape, no storage. */
  NDArray() = default;
  /*! \brief delay_alloc: memory is allocated on first write (or data()). */
  NDArray(const TShape& shape, Context ctx, bool delay_alloc = false, int dtype = kFloat32);

  bool is_none() const { return chunk_ == nullptr; }
  const TShape& shape() const { return shape_; }
  int dtype() const { return dtype_; }
  Context ctx() const { return chunk_ ? chunk_->ctx : Context(); }
  int64_t Size() const { return shape_.Size(); }
  /*! \brief Byte offset of this view into its chunk. */
  int64_t byte_offset() const { return byte_offset_; }
  engine::VarHandle var() const { return chunk_ ? chunk_->var : nullptr; }
  /*!
   * \brief The tensor kernels see; allocates delayed storage. Only valid inside an engine op or
   *        after a wait. If the chunk holds an OpaqueLayout, converts it into the plain memory
   *        first (once, under the chunk's lock): the one place plain access goes through.
   */
  TBlob data() const;
  /*!
   * \brief As data(), but leaves an OpaqueLayout in place (the plain memory may be stale).
   *        Only for kernels that declare KernelLayouts::kAny (op_kernel.h), which read the
   *        layout through opaque_layout() or call MaterializePlain() before plain reads.
   */
  TBlob data_keep_layout() const;
  /*! \brief The chunk's OpaqueLayout when this view is the whole chunk (offset 0, its shape and dtype), else null. */
  std::shared_ptr<const OpaqueLayout> opaque_layout() const;
  /*!
   * \brief Installs data in a backend layout for this whole-chunk view; the plain memory is stale
   *        from now on. Only from the engine op that writes this array (exclusive access).
   */
  void set_opaque_layout(std::shared_ptr<const OpaqueLayout> layout) const;
  /*! \brief Converts an installed OpaqueLayout back into the plain memory and drops it. */
  void MaterializePlain() const;
  /*!
   * \brief Gives the plain memory of a whole CPU chunk that holds a layout back to the pool: it
   *        is stale until someone reads plainly, and MaterializePlain allocates it again then.
   *        Only from the engine op that wrote the layout (exclusive access). Without this every
   *        array left blocked would hold its data twice.
   */
  void ReleasePlainMemory() const;
  /*!
   * \brief As data(), for callers that only read: an OpaqueLayout is converted back all the same,
   *        but a cached layout copy (cached_layout()) survives, since reading leaves it valid.
   */
  TBlob data_for_read() const;

  // ---- cached backend-layout copy (e.g. a weight reordered into a primitive's format) ----
  // Unlike an OpaqueLayout, the copy lives alongside valid plain memory, so a kernel that only
  // reads the array may install it while other readers run. Every write drops it: data() (any
  // plain access that may write), set_opaque_layout, SyncCopyFromCPU; and a copy made before the
  // var's last completed engine write is never returned, so even writes that reach the memory
  // some other way (custom engine ops) cannot leave a stale copy for a later reader.
  /*! \brief The cached copy made for this whole-chunk view (same shape and dtype), or null. */
  std::shared_ptr<const OpaqueLayout> cached_layout() const;
  /*!
   * \brief Caches a copy of the current plain data for this whole-chunk view, replacing any older
   *        one. Only from inside an engine op that reads this array. Returns false (caching nothing)
   *        when the view is not the whole chunk or the chunk holds an OpaqueLayout.
   */
  bool set_cached_layout(std::shared_ptr<const OpaqueLayout> copy) const;
  /*! \brief Drops the cached copy, if any (every write does). */
  void DropCachedLayout() const;
  /*! \brief Whether this view covers its whole chunk (offset 0, all bytes). */
  bool whole_chunk() const {
    return chunk_ && byte_offset_ == 0 && static_cast<size_t>(Size()) * DTypeSize(dtype_) == chunk_->bytes;
  }
  /*! \brief Allocates delayed storage now (from the thread that pushes the write). */
  void CheckAndAlloc() const;
  /*! \brief Whether two arrays share a chunk (views of one allocation). */
  bool SameChunk(const NDArray& o) const { return chunk_ && chunk_ == o.chunk_; }
  bool SameData(const NDArray& o) const { return SameChunk(o) && byte_offset_ == o.byte_offset_; }

  // ---- views (share memory and var) ----
  /*! \brief Same data, new shape of equal size. */
  NDArray Reshape(const TShape& shape) const;
  /*! \brief Rows [begin, end) along axis 0. */
  NDArray Slice(int64_t begin, int64_t end) const;
  /*! \brief Row idx, axis 0 removed. */
  NDArray At(int64_t idx) const;
  /*! \brief Same view without its autograd history. */
  NDArray Detach() const {
    NDArray r = *this;
    r.entry_ = op::NodeEntry();
    return r;
  }

  // ---- synchronisation and host copies ----
  void WaitToRead() const;
  /*! \brief Waits for every pushed read and write; the caller may then write directly (drops a cached layout copy). */
  void WaitToWrite() const;
  /*! \brief Copies nelem elements (must equal Size()) from host memory; blocks until written. */
  void SyncCopyFromCPU(const void* data, size_t nelem) const;
  /*! \brief Waits for pending writes, copies nelem elements (must equal Size()) to host memory. */
  void SyncCopyToCPU(void* data, size_t nelem) const;

  // ---- autograd ----
  /*! \brief The graph entry that produced this array (empty if not recorded or marked). */
  const op::NodeEntry& entry() const { return entry_; }
  op::NodeEntry& entry() { return entry_; }
  /*! \brief Number of writes pushed to the chunk; bumped by every push that writes it. */
  uint32_t version() const { return chunk_ ? chunk_->version.load() : 0; }
  void BumpVersion() const {
    if (chunk_) chunk_->version.fetch_add(1);
  }
  /*! \brief "fresh gradient" flag (MXNDArraySetGradState). */
  bool fresh_grad() const { return chunk_ && chunk_->fresh_grad; }
  void set_fresh_grad(bool v) const {
    if (chunk_) chunk_->fresh_grad = v;
  }

 private:
  /*! \brief One allocation and its engine var. */
  struct Chunk {
    Storage::Handle handle;
    Context ctx;
    engine::VarHandle var{nullptr};
    size_t bytes{0};
    // Set while the plain memory is not allocated (delayed, or given back while a layout
    // holds the data); alloc_mu orders allocation and release.
    std::atomic<bool> delay_alloc{false};
    std::mutex alloc_mu;
    std::atomic<uint32_t> version{0};
    bool fresh_grad{false};
    // Backend-layout copy of the data (see OpaqueLayout); has_layout lets data() skip the lock.
    std::mutex layout_mu;
    std::atomic<bool> has_layout{false};
    std::shared_ptr<const OpaqueLayout> layout;
    TShape layout_shape;
    int layout_dtype{-1};
    // Cached copy of the plain data (cached_layout()), under layout_mu; has_cache lets writers
    // skip the lock. cache_version: the var's completed writes when the copy was made.
    std::atomic<bool> has_cache{false};
    std::shared_ptr<const OpaqueLayout> cache;
    TShape cache_shape;
    int cache_dtype{-1};
    uint64_t cache_version{0};
    Chunk(size_t nbytes, Context c, bool delay);
    ~Chunk();
    void Alloc();
    void Release();
  };

  std::shared_ptr<Chunk> chunk_;
  TShape shape_;
  int dtype_{kFloat32};
  int64_t byte_offset_{0};
  op::NodeEntry entry_;
};

/*!
 * \brief The NDArrays behind the blobs of the kernel running on this thread: kernels declaring
 *        KernelLayouts::kAny read inputs' and install outputs' OpaqueLayouts;
 *        any kernel may read or install cached copies of inputs it only reads. Set by the imperative
 *        layer around the kernel call; null elsewhere.
 */
struct KernelArrays {
  const std::vector<NDArray>* inputs{nullptr};
  const std::vector<NDArray>* outputs{nullptr};
  /*!
   * \brief The blobs the kernel was given for them. An array holding a layout may have no plain
   *        memory (null data pointer) until converted; the conversion points these blobs at it.
   */
  std::vector<TBlob>* input_blobs{nullptr};
  std::vector<TBlob>* output_blobs{nullptr};
  /*! \brief Whether some kernel of the op reads OpaqueLayouts (inputs passed unconverted, outputs may
   *         be left blocked); otherwise the arrays are there only for cached copies of inputs it reads. */
  bool accepts_layouts{false};
  static const KernelArrays* Current();
};
/*! \brief Makes `arrays` current on this thread for its lifetime. */
class KernelArraysScope {
 public:
  explicit KernelArraysScope(const KernelArrays* arrays);
  ~KernelArraysScope();
  KernelArraysScope(const KernelArraysScope&) = delete;
  KernelArraysScope& operator=(const KernelArraysScope&) = delete;

 private:
  const KernelArrays* prev_;
};

/*!
 * \brief Pushes a copy from -> to through the engine (reads from's var, writes to's var).
 *        Shapes must have equal size; dtypes may differ (converted). Across devices the
 *        engine op carries kCopyFromGPU / kCopyToGPU.
 */
void CopyFromTo(const NDArray& from, const NDArray& to, int priority = 0);

/*!
 * \brief MXNet's .params format (formats.md (a)): a list of arrays and optional names.
 *        Load validates every count and size against the input length before allocating;
 *        errors name the source and the byte offset.
 */
void NDArraySaveList(std::string* out, const std::vector<NDArray>& arrays, const std::vector<std::string>& names);
void NDArrayLoadList(const char* data, size_t size, const std::string& source, std::vector<NDArray>* arrays,
                     std::vector<std::string>* names);
/*! \brief Writes to a temporary file beside fname and renames it over fname. */
void NDArraySaveFile(const std::string& fname, const std::vector<NDArray>& arrays,
                     const std::vector<std::string>& names);
void NDArrayLoadFile(const std::string& fname, std::vector<NDArray>* arrays, std::vector<std::string>* names);
/*! \brief One record without the list header (pickling: MXNDArraySaveRawBytes). */
void NDArraySaveRecord(std::string* out, const NDArray& arr);
NDArray NDArrayLoadRecord(const char* data, size_t size, const std::string& source);

/*! \brief Reshape target with MXNet's special codes 0, -1, -2, -3, -4 (operators.md), optional reverse. */
TShape InferReshape(const TShape& target, const TShape& in, bool reverse);

}  // namespace mxnet

#endif  // MXNET_NDARRAY_H_
