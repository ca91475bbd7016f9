/*!
 * \file strided_copy.h
 * \brief The one primitive behind transpose, swapaxes, flip, slice and depth/space moves:
 *        walk a contiguous array of shape `shape` whose element at index i sits in another
 *        array at `offset + sum(i[d] * stride[d])` (strides may be negative).
 */
#ifndef MXNET_OPERATOR_COMMON_STRIDED_COPY_H_
#define MXNET_OPERATOR_COMMON_STRIDED_COPY_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

/*!
 * \brief Offset (from the walk's start) of the element at row-major position `linear` of a
 *        walk over the first `nd` dims of shape/stride. Shared by the CPU rows below and the
 *        CUDA kernels (operator/cuda/strided_walk.cuh), which call it per element.
 */
template <typename I>
MXNET_XINLINE I StridedOffset(const I* shape, const I* stride, int nd, I linear) {
  I off = 0;
  for (int d = nd - 1; d >= 0; --d) {
    off += (linear % shape[d]) * stride[d];
    linear /= shape[d];
  }
  return off;
}

/*! \brief Calls fn(strided_offset, contiguous_offset, len, inner_stride) per innermost row. */
template <typename F>
inline void StridedRows(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, int64_t offset, F fn) {
  const int nd = static_cast<int>(shape.size());
  int64_t total = 1;
  for (auto d : shape) total *= d;
  if (total == 0) return;
  if (nd == 0) return fn(offset, int64_t{0}, int64_t{1}, int64_t{1});
  const int64_t inner = shape[nd - 1], rows = total / inner;
  auto row = [&](int64_t r) {
    fn(offset + StridedOffset(shape.data(), stride.data(), nd - 1, r), r * inner, inner, stride[nd - 1]);
  };
  if (UseParallel(total) && rows > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) row(r);
  } else {
    for (int64_t r = 0; r < rows; ++r) row(r);
  }
}

/*! \brief out (contiguous, shape) = gathered elements of in. */
template <typename T>
inline void StridedGather(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, int64_t offset,
                          const T* in, T* out, OpReqType req) {
  if (req == kNullOp) return;
  StridedRows(shape, stride, offset, [&](int64_t so, int64_t co, int64_t len, int64_t st) {
    if (req == kAddTo) {
      for (int64_t i = 0; i < len; ++i) Store(out + co + i, req, in[so + i * st]);
    } else if (st == 1) {
      for (int64_t i = 0; i < len; ++i) out[co + i] = in[so + i];
    } else {
      for (int64_t i = 0; i < len; ++i) out[co + i] = in[so + i * st];
    }
  });
}

/*! \brief Writes (or adds) contiguous `in` of shape into the strided positions of out.
 *         The positions must be distinct (no broadcasting). */
template <typename T>
inline void StridedScatter(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride, int64_t offset,
                           const T* in, T* out, bool add) {
  StridedRows(shape, stride, offset, [&](int64_t so, int64_t co, int64_t len, int64_t st) {
    for (int64_t i = 0; i < len; ++i) Store(out + so + i * st, add ? kAddTo : kWriteTo, in[co + i]);
  });
}

/*! \brief Row-major element strides of a shape. */
inline std::vector<int64_t> ContiguousStrides(const TShape& s) {
  std::vector<int64_t> st(s.ndim());
  int64_t acc = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

/*! \brief Zero-fills n elements unless req is kAddTo or kNullOp (backward ops that scatter). */
inline void ZeroForReq(const TBlob& b, OpReqType req) {
  if (req == kWriteTo || req == kWriteInplace) std::memset(b.dptr_, 0, b.Bytes());
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_STRIDED_COPY_H_
