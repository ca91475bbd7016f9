/*!
 * \file identity_property.cc
 * \brief Drops nodes that are the identity in inference: `_copy` (alias identity) and
 *        Dropout with mode='training' (its mask output unread). Readers then read the
 *        node's input directly. A node stays when its output is a graph output (the output
 *        keeps its own array and name) or a reader writes that input (an auxiliary state
 *        fed through a copy must not become the variable itself).
 */
#include "graph/subgraph/graph_rewrite.h"
#include "graph/subgraph/properties.h"

namespace mxnet {
namespace graph {
namespace subgraph {
namespace {

bool IsIdentity(const Node& n, const EntryReads& reads) {
  if (n.inputs.size() != 1 || !n.control_deps.empty() || reads.HasControlUsers(&n)) return false;
  if (IsOp(n, "_copy")) return true;
  return IsOp(n, "Dropout") && AttrOr(n, "mode", "training") == "training" && reads.Reads(&n, 1) == 0;
}

bool Droppable(const Node& n, const EntryReads& reads) {
  if (!IsIdentity(n, reads) || reads.OutputUses(&n, 0) > 0) return false;
  for (const Read& r : reads.Readers(&n, 0))
    if (IsMutatedInput(*r.node, r.input)) return false;
  return true;
}

}  // namespace

int DropIdentities(Symbol* sym) {
  const EntryReads reads(*sym);
  Rewiring rewiring;
  int dropped = 0;
  for (const NodePtr& n : reads.order()) {
    if (n->is_variable() || !Droppable(*n, reads)) continue;
    rewiring.Replace(n.get(), 0, n->inputs[0]);
    ++dropped;
  }
  rewiring.Apply(sym);
  return dropped;
}

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet
