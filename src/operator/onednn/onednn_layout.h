/*!
 * \file onednn_layout.h
 * \brief Blocked (oneDNN-preferred) layouts kept between consecutive oneDNN ops. A oneDNN
 *        kernel that declares KernelLayouts::kAny in its op's kernel list may leave its output in
 *        the primitive's format (e.g. nChw16c) as an NDArray OpaqueLayout (BlockedData) and
 *        may read such inputs directly; any other reader goes through NDArray::data(), which
 *        reorders back to plain once. Kernels reach the arrays through KernelArrays.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_LAYOUT_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_LAYOUT_H_

#if MXNET_USE_ONEDNN

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "mxnet/ndarray.h"
#include "mxnet/storage.h"
#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

/*! \brief An array's data in a oneDNN format, in pooled storage owned by this object. */
class BlockedData : public OpaqueLayout {
 public:
  /*! \brief desc: the stored format; plain: the array's row-major description. */
  BlockedData(const dnnl::memory::desc& desc, const dnnl::memory::desc& plain);
  ~BlockedData() override;
  BlockedData(const BlockedData&) = delete;
  BlockedData& operator=(const BlockedData&) = delete;
  void ToPlain(void* dst) const override;
  /*! \brief Fills this object's storage from src, laid out as the plain description. */
  void FromPlain(const void* src);
  const dnnl::memory::desc& desc() const { return desc_; }
  void* ptr() const { return handle_.dptr; }
  /*! \brief oneDNN's tag spelling of the format: "aBcd16b" for nChw16c, "acdb" for NHWC. */
  const std::string& Describe() const override { return format_; }

 private:
  dnnl::memory::desc desc_, plain_;
  std::string format_;
  Storage::Handle handle_;
};

/*! \brief Adds a memory descriptor's format (dims, type, blocking) to a cache key. */
void AddDescKey(Key* key, const dnnl::memory::desc& d);

/*!
 * \brief Input i's blocked data, when the running kernel may read layouts, input i holds one
 *        and x is that array's own memory (not a converted copy).
 */
std::shared_ptr<const BlockedData> BlockedInput(size_t i, const TBlob& x);
/*! \brief Converts input i to plain memory before the kernel reads its plain blob. */
void PlainInput(size_t i);
/*! \brief Converts every input (the plain path of an op that accepts layouts). */
void PlainInputs();
/*!
 * \brief Writes input i (plain blob x, described by `plain`) into dst in the format `to`:
 *        from its blocked data when it holds some, else from its plain memory.
 */
void CopyInputInto(size_t i, const TBlob& x, const dnnl::memory::desc& plain, const dnnl::memory::desc& to, void* dst);
/*! \brief Whether output i may be left blocked: accepting op, y is the whole array's own memory. */
bool CanLeaveBlocked(size_t i, const TBlob& y);
/*! \brief Installs output i's data; its plain memory is stale until someone reads it plainly. */
void SetBlockedOutput(size_t i, std::shared_ptr<const BlockedData> data);
/*! \brief Blocked outputs installed so far in this process (tests see propagation happen). */
uint64_t BlockedOutputsMade();

/*!
 * \brief Input i, which the running kernel only reads (a weight), in the format `want`: the
 *        array's cached copy (NDArray::cached_layout) when it has one in exactly that format,
 *        else a new copy reordered from the plain blob w (described by `user`) and cached for
 *        the next call, replacing one in another format. Null when w is not the whole array's
 *        own memory or no array is at hand (the caller reorders per call).
 */
std::shared_ptr<const BlockedData> CachedInput(size_t i, const TBlob& w, const dnnl::memory::desc& user,
                                               const dnnl::memory::desc& want);
/*!
 * \brief As CachedInput for any copy derived from input i's plain blob w: the array's cached
 *        copy when `fits` accepts it, else the one `make` returns, cached for the next call.
 *        Without `replace`, an array that keeps another copy keeps it, and the answer is null.
 */
std::shared_ptr<const OpaqueLayout> CachedDerivedInput(size_t i, const TBlob& w,
                                                       const std::function<bool(const OpaqueLayout&)>& fits,
                                                       const std::function<std::shared_ptr<const OpaqueLayout>()>& make,
                                                       bool replace = true);
/*! \brief Cached input copies made so far in this process (tests see reuse happen). */
uint64_t CachedInputsMade();

/*!
 * \brief The weight operand of a cached primitive. Inference reads the weight array's cached
 *        copy in the primitive's format (CachedInput), so the reorder runs once per weight
 *        value instead of per call; training, and arrays that cannot keep a copy, reorder per
 *        call through a buffer made on first need (so inference entries hold no such buffer).
 */
class WeightOperand {
 public:
  WeightOperand() = default;
  /*! \brief user: the plain layout of the weight; want: what the primitive chose. */
  WeightOperand(const dnnl::memory::desc& user, const dnnl::memory::desc& want);
  /*!
   * \brief The memory to pass as the primitive's weights for input i with plain blob w. With
   *        use_cache, *hold keeps the cached copy alive until the primitive has run.
   */
  const dnnl::memory& Bind(size_t i, const TBlob& w, bool use_cache, dnnl::stream& s,
                           std::shared_ptr<const BlockedData>* hold);

 private:
  dnnl::memory::desc user_, want_;
  dnnl::memory plain_, cached_;
  std::unique_ptr<LayoutBridge> bridge_;
};

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_LAYOUT_H_
