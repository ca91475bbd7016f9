/*!
 * \file index_util.h
 * \brief Reading index arrays (MXNet passes indices in any dtype, floats included) and
 *        resolving them against an axis length under MXNet's clip / wrap / raise modes.
 */
#ifndef MXNET_OPERATOR_COMMON_INDEX_UTIL_H_
#define MXNET_OPERATOR_COMMON_INDEX_UTIL_H_

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

/*! \brief take/pick index modes, numbered as MXNet's enum. */
enum IndexMode { kIndexRaise = 0, kIndexWrap = 1, kIndexClip = 2 };

/*! \brief One index value as int64 (floats truncate toward zero, as MXNet casts them; non-finite gives 0). */
template <typename IType>
MXNET_XINLINE int64_t IndexValue(IType v) {
  if constexpr (std::is_integral_v<IType>) {
    return static_cast<int64_t>(v);
  } else {
    const double d = static_cast<double>(static_cast<real_compute_t<IType>>(v));
    return std::isfinite(d) ? static_cast<int64_t>(d) : 0;
  }
}

/*! \brief The index array as int64 (see IndexValue). */
inline std::vector<int64_t> ReadIndices(const TBlob& b) {
  std::vector<int64_t> idx(static_cast<size_t>(b.Size()));
  MXNET_TYPE_SWITCH(b.type_flag_, IType, {
    const IType* p = static_cast<const IType*>(b.dptr_);
    ParallelFor(b.Size(), [&](int64_t i) { idx[i] = IndexValue(p[i]); });
  });
  return idx;
}

/*! \brief Whether raise mode accepts i for an axis of length n (negatives count from the end). */
MXNET_XINLINE bool IndexInBounds(int64_t i, int64_t n) { return i >= -n && i < n; }

/*! \brief Maps i into [0, n) under `mode`; in raise mode i must be IndexInBounds. */
MXNET_XINLINE int64_t MapIndex(int64_t i, int64_t n, int mode) {
  if (mode == kIndexWrap) {
    if (n == 0) return 0;
    i %= n;
    return i < 0 ? i + n : i;
  }
  if (mode == kIndexRaise) return i < 0 ? i + n : i;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/*! \brief ReadIndices resolved serially against n (raise mode may throw). */
inline std::vector<int64_t> ResolvedIndices(const TBlob& b, int64_t n, int mode, const char* op_name);

/*!
 * \brief Maps i into [0, n) under `mode`; raise mode throws IndexError naming the op (so call
 *        it outside parallel regions: an exception must not leave an OpenMP loop).
 */
inline int64_t ResolveIndex(int64_t i, int64_t n, int mode, const char* op_name) {
  if (mode == kIndexRaise && !IndexInBounds(i, n))
    MX_THROW("IndexError") << op_name << ": index " << i << " is out of bounds for axis of size " << n;
  return MapIndex(i, n, mode);
}

inline std::vector<int64_t> ResolvedIndices(const TBlob& b, int64_t n, int mode, const char* op_name) {
  std::vector<int64_t> idx = ReadIndices(b);
  for (auto& i : idx) i = ResolveIndex(i, n, mode, op_name);
  return idx;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_INDEX_UTIL_H_
