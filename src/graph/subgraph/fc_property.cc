/*!
 * \file fc_property.cc
 * \brief FullyConnected -> activation (relu, sigmoid, tanh, softrelu) into one
 *        `_sg_onednn_fully_connected`, when the activation is the FullyConnected's only reader.
 */
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/subgraph/graph_rewrite.h"
#include "graph/subgraph/properties.h"

namespace mxnet {
namespace graph {
namespace subgraph {

int FuseFCActivation(Symbol* sym) {
  static const std::vector<std::string> kActs{"relu", "sigmoid", "tanh", "softrelu"};
  const EntryReads reads(*sym);
  Rewiring rewiring;
  int made = 0;
  for (const NodePtr& n : reads.order()) {
    if (!IsOp(*n, "FullyConnected") || !n->control_deps.empty() || reads.HasControlUsers(n.get())) continue;
    const Read* r = reads.SoleRead(n.get(), 0);
    std::string act;
    if (!r || !FusableActivation(*r->node, kActs, &act)) continue;
    std::unordered_map<std::string, std::string> dict = n->attrs.dict;
    dict["act_type"] = act;
    const NodePtr fused = MakeFusedNode("_sg_onednn_fully_connected", dict, n->inputs, reads, *r->node, 0,
                                        "sg_onednn_fully_connected_eltwise_" + std::to_string(made++));
    rewiring.Replace(r->node, 0, NodeEntry{fused, 0, 0});
  }
  rewiring.Apply(sym);
  return made;
}

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet
