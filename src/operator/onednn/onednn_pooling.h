/*!
 * \file onednn_pooling.h
 * \brief What the pooling kernel-list entries (onednn_pooling_kernels.cc) ask of onednn_pooling.cc
 *        beyond onednn_ops.h: the lane kernels' entry points and the facts their predicates read.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_POOLING_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_POOLING_H_

#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_ops.h"

namespace mxnet {
class OpaqueLayout;
namespace op {
namespace onednn {

/*! \brief Whether layout holds channel lanes (nChw8c, nChw16c, NHWC; plain NCHW too with plain_too). */
bool HoldsChannelLanes(const OpaqueLayout* layout, bool plain_too);
/*! \brief Whether oneDNN pools a plain x only with a non-JIT kernel (builds the primitive once). */
bool PlainPoolIsSlow(const PoolDesc& p, const TBlob& x, const TBlob& y);
/*!
 * \brief 2-D float32 max pooling by the lane kernel: a channel-lane x is pooled in its format,
 *        a plain x in channel blocks when y may be left blocked, else in place.
 */
void MaxPoolLanesForward(const PoolDesc& p, const TBlob& x, const TBlob& y);
/*! \brief Its gradient, on plain or channel-lane x (dx in x's format where the op allows). */
void MaxPoolLanesBackward(const PoolDesc& p, const TBlob& dy, const TBlob& x, const TBlob& dx);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_POOLING_H_
