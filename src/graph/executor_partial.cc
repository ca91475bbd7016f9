/*!
 * \file executor_partial.cc
 * \brief Step-by-step forward (MXPredPartialForward): one node of the forward graph per call,
 *        so callers can inspect or time each op.
 */
#include "graph/executor.h"

namespace mxnet {
namespace graph {

void GraphExecutor::PartialForward(bool is_train, int step, int* step_left) {
  MX_CHECK_KIND(step >= 0, "ValueError") << "partial forward: step must be >= 0, got " << step;
  const uint32_t s = static_cast<uint32_t>(step);
  if (s >= num_forward_nodes_) {
    *step_left = 0;
    return;
  }
  // No bulking: each step is pushed (and may be waited on) by itself.
  RunNodes(s, s + 1, is_train, 0);
  *step_left = static_cast<int>(num_forward_nodes_ - s - 1);
}

}  // namespace graph
}  // namespace mxnet
