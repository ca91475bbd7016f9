/*!
 * \file gradient.h
 * \brief The gradient pass: backward nodes from each op's FGradient, contributions summed
 *        (ElementWiseSum below MXNET_EXEC_INPLACE_GRAD_SUM_CAP terms, else a _grad_add
 *        chain), optional mirroring (recompute in backward) to free activations early.
 */
#ifndef MXNET_GRAPH_GRADIENT_H_
#define MXNET_GRAPH_GRADIENT_H_

#include <string>
#include <vector>

#include "graph/symbol.h"

namespace mxnet {
namespace graph {

struct GradientOptions {
  /*! \brief Terms from which sums become a _grad_add chain. */
  int sum_cap{8};
  /*! \brief Mirror every op but the expensive ones (MXNET_BACKWARD_DO_MIRROR). */
  bool mirror{false};
};

struct GradientResult {
  /*! \brief One per x: d(sum of ys * head grads)/dx. */
  std::vector<NodeEntry> grads;
  /*! \brief The head-gradient variables `_head_grad_<i>`, one per y. */
  std::vector<NodePtr> head_grads;
  /*! \brief Forward nodes recomputed in backward. */
  size_t num_mirrored{0};
};

/*!
 * \brief Builds the gradient of ys with respect to xs (variable entries). Raises naming the
 *        op when a node on the path has no FGradient.
 */
GradientResult BuildGradient(const std::vector<NodeEntry>& ys, const std::vector<NodeEntry>& xs,
                             const GradientOptions& opt);

/*! \brief Whether a node is mirrored under opt (its __force_mirroring__ attr wins). */
bool ShouldMirror(const Node& n, const GradientOptions& opt);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_GRADIENT_H_
