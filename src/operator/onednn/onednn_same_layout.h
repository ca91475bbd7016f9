/*!
 * \file onednn_same_layout.h
 * \brief Element-wise ops on arrays that all hold one dense blocked format. When every input
 *        holds a BlockedData with the identical descriptor and that format has no padding,
 *        element k of every buffer is the same logical element, so a position-wise op can run
 *        on the blocked buffers as they are and leave its output in the same format (the
 *        residual add of ResNet, scalar ops, clip, identity in inference). Anything else
 *        (plain or mixed inputs, different or padded formats) takes the op's plain reference.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_SAME_LAYOUT_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_SAME_LAYOUT_H_

#if MXNET_USE_ONEDNN

#include <vector>

#include "mxnet/op.h"
#include "operator/onednn/onednn_layout.h"

namespace mxnet {
namespace op {
namespace onednn {

/*!
 * \brief Whether a position-wise op may run on the blocked buffers of this call: inputs all
 *        blocked in one dense descriptor, shaped and typed like output 0, which may be left
 *        blocked for this request (kWriteTo or kWriteInplace). Reads layouts, shapes and req only.
 */
bool SameDenseLayout(const KernelProblem& p);

/*!
 * \brief The op's own plain (reference) kernel run on blobs pointing at the blocked buffers of
 *        its inputs, writing a fresh buffer in the same format that becomes output 0's layout.
 *        Only for calls SameDenseLayout accepts.
 */
void RunOnSameLayout(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

/*!
 * \brief Identity ops: when input 0 is blocked and output `o` may be left blocked, output `o`
 *        shares input 0's (immutable) blocked data and true is returned; no copy is made.
 */
bool ShareBlockedInput(const TBlob& in, OpReqType req, size_t o, const TBlob& out);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_SAME_LAYOUT_H_
