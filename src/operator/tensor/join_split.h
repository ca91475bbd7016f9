/*!
 * \file join_split.h
 * \brief The copy kernel behind concat, stack and split: every array viewed as
 *        (outer, mid, inner) around the joined axis, rows of mid*inner elements moved between
 *        the pieces and the joined array. Channel-blocked layouts (nChw8c) joined along the
 *        channels are the same copy with blocks of channels as rows.
 */
#ifndef MXNET_OPERATOR_TENSOR_JOIN_SPLIT_H_
#define MXNET_OPERATOR_TENSOR_JOIN_SPLIT_H_

#include <algorithm>
#include <cstring>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

/*!
 * \brief Moves data between pieces (each outer x mids[i] x inner) and the joined array
 *        (outer x sum(mids) x inner). join=true writes the joined array from the pieces.
 *        The threads split the joined array into equal element ranges, so a join of a few
 *        large pieces (batch 1) is as parallel as one of many rows.
 */
template <typename T>
void JoinSplit(bool join, const std::vector<T*>& pieces, const std::vector<int64_t>& mids, int64_t outer, int64_t inner,
               T* joined, const std::vector<OpReqType>& req) {
  const size_t k = pieces.size();
  std::vector<int64_t> off(k + 1, 0);  // element offsets of the pieces within one joined row
  for (size_t i = 0; i < k; ++i) off[i + 1] = off[i] + mids[i] * inner;
  const int64_t row = off[k];
  ParallelChunks(outer * row, [&](int64_t begin, int64_t end) {
    int64_t pos = begin;
    size_t i = 0;
    while (pos < end) {
      const int64_t o = pos / row, q = pos % row;
      if (q == 0 || q < off[i]) i = 0;
      while (off[i + 1] <= q) ++i;
      const int64_t len = std::min(end - pos, off[i + 1] - q);
      const OpReqType rq = join ? req[0] : req[i];
      if (rq != kNullOp) {
        T* small = pieces[i] + o * (off[i + 1] - off[i]) + (q - off[i]);
        T* dst = join ? joined + pos : small;
        const T* src = join ? small : joined + pos;
        if (rq == kAddTo) {
          for (int64_t j = 0; j < len; ++j) Store(dst + j, rq, src[j]);
        } else {
          std::memcpy(dst, src, static_cast<size_t>(len) * sizeof(T));
        }
      }
      pos += len;
    }
  });
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_JOIN_SPLIT_H_
