/*!
 * \file graph_rewrite.cc
 * \brief Entry reads, rewiring and fused-node construction for the subgraph properties.
 */
#include "graph/subgraph/graph_rewrite.h"

#include <algorithm>
#include <cctype>

namespace mxnet {
namespace graph {
namespace subgraph {

EntryReads::EntryReads(const Symbol& sym) : order_(sym.TopoNodes()) {
  for (const NodePtr& n : order_) {
    for (uint32_t i = 0; i < n->inputs.size(); ++i)
      readers_[{n->inputs[i].node.get(), n->inputs[i].index}].push_back(Read{n.get(), i});
    for (const NodePtr& d : n->control_deps) control_targets_.insert(d.get());
  }
  for (const NodeEntry& e : sym.outputs) ++outputs_[{e.node.get(), e.index}];
}

const std::vector<Read>& EntryReads::Readers(const Node* n, uint32_t index) const {
  static const std::vector<Read> kNone;
  auto it = readers_.find({n, index});
  return it == readers_.end() ? kNone : it->second;
}

int EntryReads::OutputUses(const Node* n, uint32_t index) const {
  auto it = outputs_.find({n, index});
  return it == outputs_.end() ? 0 : it->second;
}

const Read* EntryReads::SoleRead(const Node* n, uint32_t index) const {
  const std::vector<Read>& r = Readers(n, index);
  if (r.size() != 1 || OutputUses(n, index) > 0) return nullptr;
  const Node* next = r[0].node;
  if (next->is_variable() || !next->control_deps.empty() || HasControlUsers(next)) return nullptr;
  return &r[0];
}

void Rewiring::Replace(const Node* n, uint32_t index, const NodeEntry& with) { map_[{n, index}] = with; }

NodeEntry Rewiring::Resolve(NodeEntry e) const {
  // Chains: an identity dropped in front of another, a fused node reading a replaced entry.
  for (auto it = map_.find({e.node.get(), e.index}); it != map_.end(); it = map_.find({e.node.get(), e.index})) {
    const uint32_t version = e.version;
    e = it->second;
    e.version = version;
  }
  return e;
}

void Rewiring::Apply(Symbol* sym) const {
  if (map_.empty()) return;
  for (NodeEntry& o : sym->outputs) o = Resolve(o);
  std::vector<Node*> stack;
  std::unordered_set<const Node*> seen;
  for (const NodeEntry& o : sym->outputs)
    if (seen.insert(o.node.get()).second) stack.push_back(o.node.get());
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (NodeEntry& in : n->inputs) {
      in = Resolve(in);
      if (seen.insert(in.node.get()).second) stack.push_back(in.node.get());
    }
    for (const NodePtr& d : n->control_deps)
      if (seen.insert(d.get()).second) stack.push_back(d.get());
  }
}

bool IsOp(const Node& n, const char* name) {
  if (n.is_variable()) return false;
  const op::Op* op = op::Op::Find(name);
  return op != nullptr && n.op() == op;
}

std::string AttrOr(const Node& n, const std::string& key, const std::string& def) {
  auto it = n.attrs.dict.find(key);
  return it == n.attrs.dict.end() ? def : it->second;
}

bool AttrBool(const Node& n, const std::string& key, bool def) {
  auto it = n.attrs.dict.find(key);
  if (it == n.attrs.dict.end()) return def;
  std::string v = it->second;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v == "true" || v == "1";
}

bool FusableActivation(const Node& n, const std::vector<std::string>& allowed, std::string* act_type) {
  if (n.is_variable() || n.inputs.size() != 1) return false;
  std::string act;
  if (IsOp(n, "Activation")) {
    act = AttrOr(n, "act_type", "");
  } else {
    for (const char* unary : {"relu", "sigmoid", "tanh", "softsign"})
      if (IsOp(n, unary)) act = unary;
  }
  if (act.empty() || std::find(allowed.begin(), allowed.end(), act) == allowed.end()) return false;
  *act_type = act;
  return true;
}

NodePtr MakeFusedNode(const std::string& op_name, std::unordered_map<std::string, std::string> dict,
                      std::vector<NodeEntry> inputs, const EntryReads& reads, const Node& last, uint32_t index,
                      const std::string& generated) {
  // A graph output keeps its name (and so the symbol's list_outputs) under the fused node.
  const std::string name = reads.OutputUses(&last, index) > 0 ? last.attrs.name : generated;
  NodePtr n = Node::Create();
  n->attrs = op::MakeAttrs(op::Op::Get(op_name), dict, name);
  n->inputs = std::move(inputs);
  return n;
}

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet
