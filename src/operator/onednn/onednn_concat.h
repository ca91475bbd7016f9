/*!
 * \file onednn_concat.h
 * \brief Concat on oneDNN's concat primitive for inputs held in blocked formats (e.g. the
 *        branches of an Inception block), so they are joined without converting each to plain.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_CONCAT_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_CONCAT_H_

#if MXNET_USE_ONEDNN

#include <cstdint>
#include <vector>

#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

/*!
 * \brief Joins `in` along `axis` into `out` when at least one input holds a blocked layout
 *        (plain inputs are read as they are); the output is left in the primitive's format
 *        when it may be. Returns false, having touched nothing, when the plain copy should run
 *        instead: no blocked input, an unsupported dtype, an empty input, or req
 *        other than kWriteTo.
 */
bool ConcatForward(const std::vector<TBlob>& in, const TBlob& out, int axis, OpReqType req);
/*! \brief Concats joined by the row copy, without oneDNN, so far in this process (tests see it). */
uint64_t RowCopyJoins();

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_CONCAT_H_
