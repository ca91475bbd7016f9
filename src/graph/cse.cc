/*!
 * \file cse.cc
 * \brief CSE by hashing (op, sorted attrs, input entries) in topological order; inputs are
 *        already canonical when a node is visited, so one pass merges whole chains.
 */
#include "graph/cse.h"

#include <map>
#include <sstream>
#include <unordered_map>

namespace mxnet {
namespace graph {
namespace {

bool Mergeable(const Node& n) {
  if (n.is_variable() || !n.control_deps.empty()) return false;
  if (n.op()->mutate_inputs && !n.op()->mutate_inputs(n.attrs).empty()) return false;
  if (n.op()->resource_request)
    for (const auto& r : n.op()->resource_request(n.attrs))
      if (r.type != op::ResourceRequest::kTempSpace) return false;
  return true;
}

}  // namespace

size_t EliminateCommonExpr(Symbol* s) {
  std::vector<NodePtr> order = s->TopoNodes();
  std::unordered_map<const Node*, NodePtr> canon;
  std::map<std::string, NodePtr> seen;
  size_t removed = 0;
  for (const NodePtr& n : order) {
    for (auto& in : n->inputs) {
      auto it = canon.find(in.node.get());
      if (it != canon.end()) in.node = it->second;
    }
    if (!Mergeable(*n)) continue;
    std::ostringstream key;
    key << n->op()->name << '\x01';
    for (const auto& kv : SortedAttrs(*n)) key << kv.first << '\x02' << kv.second << '\x03';
    for (const auto& in : n->inputs) key << in.node.get() << ':' << in.index << ',';
    auto res = seen.emplace(key.str(), n);
    if (!res.second) {
      canon[n.get()] = res.first->second;
      ++removed;
    }
  }
  for (auto& e : s->outputs) {
    auto it = canon.find(e.node.get());
    if (it != canon.end()) e.node = it->second;
  }
  // Outputs that became one entry get a copy each after the first, so they stay distinct arrays.
  for (size_t i = 0; i < s->outputs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (s->outputs[j].node == s->outputs[i].node && s->outputs[j].index == s->outputs[i].index) {
        const NodeEntry e = s->outputs[i];
        s->outputs[i] = op::MakeNode("_copy", e.node->attrs.name + "_" + std::to_string(i) + "_copy", {e});
        break;
      }
  return removed;
}

}  // namespace graph
}  // namespace mxnet
