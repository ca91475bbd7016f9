/*!
 * \file bn_relu_property.cc
 * \brief BatchNorm -> relu into one `_contrib_BatchNormWithReLU` (same inputs and attributes),
 *        when the relu is the only reader of BatchNorm's output and its mean and variance
 *        outputs are unread. Runs after the convolution rewrite, which folds the BatchNorms
 *        that follow a convolution.
 */
#include <string>
#include <vector>

#include "graph/subgraph/graph_rewrite.h"
#include "graph/subgraph/properties.h"

namespace mxnet {
namespace graph {
namespace subgraph {

int FuseBatchNormReLU(Symbol* sym) {
  static const std::vector<std::string> kRelu{"relu"};
  const EntryReads reads(*sym);
  Rewiring rewiring;
  int made = 0;
  for (const NodePtr& n : reads.order()) {
    if (!IsOp(*n, "BatchNorm") || n->inputs.size() != 5 || !n->control_deps.empty() ||
        reads.HasControlUsers(n.get()) || reads.Reads(n.get(), 1) > 0 || reads.Reads(n.get(), 2) > 0)
      continue;
    const Read* r = reads.SoleRead(n.get(), 0);
    std::string act;
    if (!r || !FusableActivation(*r->node, kRelu, &act)) continue;
    const NodePtr fused = MakeFusedNode("_contrib_BatchNormWithReLU", n->attrs.dict, n->inputs, reads, *r->node, 0,
                                        "sg_onednn_batch_norm_relu_" + std::to_string(made++));
    rewiring.Replace(r->node, 0, NodeEntry{fused, 0, 0});
  }
  rewiring.Apply(sym);
  return made;
}

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet
