/*!
 * \file autograd_info.h
 * \brief What the tape keeps per recorded node (op::Node::info).
 */
#ifndef MXNET_IMPERATIVE_AUTOGRAD_INFO_H_
#define MXNET_IMPERATIVE_AUTOGRAD_INFO_H_

#include <functional>
#include <vector>

#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {

struct AGInfo {
  /*! \brief Values of the node's outputs (a variable's own array), without graph entries. */
  std::vector<NDArray> outputs;
  /*! \brief Set when a backward without retain_graph consumed this node. */
  bool freed{false};
  // Marked variables only.
  bool marked{false};
  NDArray grad;
  op::OpReqType grad_req{op::kNullOp};
  bool fresh_grad{false};
  /*!
   * \brief Creation number, counted separately for leaves (marked variables and the value nodes
   *        of untracked inputs) and for recorded ops, as MXNet 1.x names them in
   *        autograd.get_symbol: var<N> / null<N> and node_<N>. kNoSeq: a value node made outside
   *        RecordOp (a head gradient), numbered when get_symbol first meets it.
   */
  static constexpr uint64_t kNoSeq = ~uint64_t{0};
  uint64_t seq{kNoSeq};
  /*! \brief Runs when the node goes (releases a user function's callbacks). */
  std::function<void()> on_delete;
  ~AGInfo() {
    if (on_delete) on_delete();
  }
};

AGInfo* Info(const op::NodePtr& n);
/*! \brief The graph entry of arr, wrapping arrays outside the graph in a value node. */
op::NodeEntry EntryOf(const NDArray& arr);
/*! \brief Next creation number of a leaf (shared by marked variables and value nodes) or of a recorded op. */
uint64_t NextLeafSeq();
uint64_t NextOpSeq();

/*! \brief Parsed attrs of _CustomFunction / _backward_CustomFunction nodes. */
struct CustomFunctionParam {
  uint32_t num_inputs{0}, num_outputs{0};
  std::shared_ptr<CustomBackward> backward;
};

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_AUTOGRAD_INFO_H_
