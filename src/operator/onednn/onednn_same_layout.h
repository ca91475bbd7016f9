/*!
 * \file onednn_same_layout.h
 * \brief Element-wise ops on arrays that all hold one dense blocked format. When every input
 *        holds a BlockedData with the identical descriptor and that format has no padding,
 *        element k of every buffer is the same logical element, so a position-wise op can run
 *        on the blocked buffers as they are and leave its output in the same format (the
 *        residual add of ResNet, scalar ops, clip, identity in inference). Anything else
 *        (plain or mixed inputs, different or padded formats) returns false and the op's plain
 *        path runs after PlainInputs().
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_SAME_LAYOUT_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_SAME_LAYOUT_H_

#if MXNET_USE_ONEDNN

#include <memory>
#include <utility>
#include <vector>

#include "operator/onednn/onednn_layout.h"

namespace mxnet {
namespace op {
namespace onednn {

/*!
 * \brief The inputs' blocked data when a position-wise op may run on it: inputs [0, n) all
 *        blocked in one dense descriptor, shaped like output 0, and output 0 may be left blocked
 *        for this request (kWriteTo or kWriteInplace). Empty otherwise.
 */
std::vector<std::shared_ptr<const BlockedData>> SameDenseBlockedInputs(const std::vector<TBlob>& in, size_t n,
                                                                       OpReqType req, const TBlob& out);

/*!
 * \brief When SameDenseBlockedInputs allows, runs the op's own plain kernel
 *        `kernel(ins, out)` on blobs pointing at the blocked buffers (inputs [0, n) replaced,
 *        output 0 a fresh buffer in the same format, to be written with kWriteTo), installs that
 *        buffer on output 0 and returns true. Returns false, having done nothing, otherwise.
 */
template <typename Kernel>
bool RunOnSameLayout(const std::vector<TBlob>& in, size_t n, OpReqType req, const TBlob& out, Kernel&& kernel) {
  const auto src = SameDenseBlockedInputs(in, n, req, out);
  if (src.empty()) return false;
  auto dst = std::make_shared<BlockedData>(src[0]->desc(), PlainDesc(out));
  std::vector<TBlob> ins = in;
  for (size_t i = 0; i < n; ++i) ins[i].dptr_ = src[i]->ptr();
  TBlob o = out;
  o.dptr_ = dst->ptr();
  kernel(ins, o);
  SetBlockedOutput(0, std::move(dst));
  return true;
}

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
