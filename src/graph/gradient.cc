/*!
 * \file gradient.cc
 * \brief Symbolic backward: walks the forward graph in reverse, asks each op's FGradient for
 *        its input gradients as new nodes, and sums contributions per entry.
 */
#include "graph/gradient.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "graph/indexed_graph.h"

namespace mxnet {
namespace graph {
namespace {

NodeEntry SumTerms(const std::vector<NodeEntry>& terms, const std::string& base, int cap) {
  if (terms.size() == 1) return terms[0];
  if (static_cast<int>(terms.size()) < cap)
    return op::MakeNode("add_n", base + "_sum_grad", terms, {{"num_args", std::to_string(terms.size())}});
  // Long sums accumulate pairwise, one buffer live at a time.
  NodeEntry acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i)
    acc = op::MakeNode("elemwise_add", base + "_sum_grad_" + std::to_string(i - 1), {acc, terms[i]});
  return op::MakeNode("_copy", base + "_sum_grad_final", {acc});
}

bool IsTrue(const std::string& v) { return v == "1" || v == "True" || v == "true"; }

/*! \brief A gradient known to be zero (from a non-differentiable path such as stop_gradient). */
bool IsZero(const NodeEntry& e) {
  return !e.node->is_variable() && (e.node->op()->name == "zeros_like" || e.node->op()->name == "_zeros");
}

/*! \brief Drops zero terms: zeros add nothing, and a node whose output gradients are all
 *         zero needs no backward node at all. */
void DropZeros(std::vector<NodeEntry>* terms) {
  terms->erase(std::remove_if(terms->begin(), terms->end(), IsZero), terms->end());
}

}  // namespace

bool ShouldMirror(const Node& n, const GradientOptions& opt) {
  if (n.is_variable()) return false;
  auto it = n.attrs.dict.find("__force_mirroring__");
  if (it != n.attrs.dict.end()) return IsTrue(it->second);
  if (!opt.mirror) return false;
  static const std::unordered_set<std::string> kKeep = {"Dropout",     "Convolution",   "FullyConnected", "Concat",
                                                         "SoftmaxOutput", "Deconvolution", "Embedding",     "dot",
                                                         "batch_dot"};
  if (kKeep.count(n.op()->name)) return false;
  // Random ops would draw new numbers when recomputed.
  if (n.op()->resource_request)
    for (const auto& r : n.op()->resource_request(n.attrs))
      if (r.type != op::ResourceRequest::kTempSpace) return false;
  return true;
}

GradientResult BuildGradient(const std::vector<NodeEntry>& ys, const std::vector<NodeEntry>& xs,
                             const GradientOptions& opt) {
  IndexedGraph fwd(ys);
  const auto& nodes = fwd.nodes();
  GradientResult res;

  std::unordered_set<const Node*> targets;
  for (const auto& x : xs) targets.insert(x.node.get());
  std::vector<bool> need(nodes.size(), false);
  for (uint32_t nid = 0; nid < nodes.size(); ++nid) {
    const Node& n = *nodes[nid];
    if (n.is_variable()) {
      need[nid] = targets.count(&n) > 0;
      continue;
    }
    for (const auto& in : n.inputs) need[nid] = need[nid] || need[fwd.node_id(in.node.get())];
  }

  std::vector<std::vector<NodeEntry>> contrib(fwd.num_entries());
  for (size_t i = 0; i < ys.size(); ++i) {
    NodePtr v = Node::Create();
    v->attrs.name = "_head_grad_" + std::to_string(i);
    res.head_grads.push_back(v);
    contrib[fwd.entry_id(ys[i])].push_back(NodeEntry{v, 0, 0});
  }

  // Mirrors: copies of forward nodes whose outputs the backward reads instead of the
  // originals, recomputed when first needed there. Inputs a mirror would write (BatchNorm's
  // moving statistics) become copies, so recomputing changes no state; a gradient node that
  // reads such an input (a backward that updates those statistics) gets the original back.
  std::unordered_map<const Node*, NodePtr> mirror;
  std::unordered_map<const Node*, NodeEntry> mirror_input_copy;
  for (const NodePtr& n : nodes) {
    if (!ShouldMirror(*n, opt)) continue;
    NodePtr m = Node::Create();
    m->attrs = n->attrs;
    m->attrs.name += "_mirror";
    m->inputs = n->inputs;
    for (uint32_t i = 0; i < m->inputs.size(); ++i) {
      auto it = mirror.find(m->inputs[i].node.get());
      if (it != mirror.end()) m->inputs[i].node = it->second;
      if (IsMutatedInput(*n, i)) {
        const NodeEntry original = m->inputs[i];
        m->inputs[i] = op::MakeNode("_copy", m->attrs.name + "_in" + std::to_string(i), {original});
        mirror_input_copy[m->inputs[i].node.get()] = original;
      }
    }
    mirror[n.get()] = m;
    ++res.num_mirrored;
  }

  std::unordered_set<const Node*> existing;
  for (const auto& n : nodes) existing.insert(n.get());
  for (const auto& kv : mirror) existing.insert(kv.second.get());
  for (const auto& v : res.head_grads) existing.insert(v.get());

  for (int64_t nid = static_cast<int64_t>(nodes.size()) - 1; nid >= 0; --nid) {
    const NodePtr& n = nodes[nid];
    if (n->is_variable() || !need[nid]) continue;
    const uint32_t nout = fwd.num_outputs(static_cast<uint32_t>(nid));
    bool any = false;
    for (uint32_t o = 0; o < nout; ++o) {
      DropZeros(&contrib[fwd.entry_id(nid, o)]);
      any = any || !contrib[fwd.entry_id(nid, o)].empty();
    }
    if (!any) continue;  // nothing downstream depends on n: its inputs get no contribution
    const op::Op* op = n->op();
    MX_CHECK_KIND(static_cast<bool>(op->gradient), "MXNetError")
        << "Operator " << op->name << " (node " << n->attrs.name
        << ") is non-differentiable because it didn't register FGradient attribute.";
    std::vector<NodeEntry> ograds;
    for (uint32_t o = 0; o < nout; ++o) {
      auto& terms = contrib[fwd.entry_id(nid, o)];
      if (terms.empty())
        ograds.push_back(op::MakeNode("zeros_like", n->attrs.name + "_out" + std::to_string(o) + "_zero_grad",
                                      {NodeEntry{n, o, 0}}));
      else
        ograds.push_back(SumTerms(terms, OutputName(NodeEntry{n, o, 0}), opt.sum_cap));
    }
    // The node FGradient sees: its mirror, or (when some input is mirrored) a stand-in whose
    // inputs are the mirrors; references to the stand-in's own outputs go back to n.
    NodePtr gnode = n;
    bool stand_in = false;
    auto mit = mirror.find(n.get());
    if (mit != mirror.end()) {
      gnode = mit->second;
    } else {
      for (const auto& in : n->inputs)
        if (mirror.count(in.node.get())) stand_in = true;
      if (stand_in) {
        gnode = Node::Create();
        gnode->attrs = n->attrs;
        gnode->inputs = n->inputs;
        for (auto& in : gnode->inputs) {
          auto it = mirror.find(in.node.get());
          if (it != mirror.end()) in.node = it->second;
        }
      }
    }
    std::vector<NodeEntry> igrads = op->gradient(gnode, ograds);
    MX_CHECK(igrads.size() == n->inputs.size())
        << op->name << ": gradient returned " << igrads.size() << " entries for " << n->inputs.size() << " inputs";
    // Register the new nodes (and undo the stand-in) by walking them once.
    std::vector<Node*> stack;
    for (auto& g : igrads) {
      if (stand_in && g.node == gnode) g.node = n;
      if (existing.insert(g.node.get()).second) stack.push_back(g.node.get());
    }
    while (!stack.empty()) {
      Node* x = stack.back();
      stack.pop_back();
      for (auto& in : x->inputs) {
        if (stand_in && in.node == gnode) in.node = n;
        auto copy = mirror_input_copy.find(in.node.get());
        if (copy != mirror_input_copy.end()) in = copy->second;
        if (existing.insert(in.node.get()).second) stack.push_back(in.node.get());
      }
    }
    for (size_t k = 0; k < igrads.size(); ++k) {
      const uint32_t in_id = fwd.node_id(n->inputs[k].node.get());
      if (need[in_id]) contrib[fwd.entry_id(n->inputs[k])].push_back(igrads[k]);
    }
  }

  for (const auto& x : xs) {
    if (!fwd.has_node(x.node.get())) {  // an argument the outputs do not depend on
      res.grads.push_back(op::MakeNode("zeros_like", x.node->attrs.name + "_zero_grad", {x}));
      continue;
    }
    auto& terms = contrib[fwd.entry_id(x)];
    DropZeros(&terms);
    if (terms.empty())
      res.grads.push_back(op::MakeNode("zeros_like", x.node->attrs.name + "_zero_grad", {x}));
    else
      res.grads.push_back(SumTerms(terms, x.node->attrs.name, opt.sum_cap));
  }
  return res;
}

}  // namespace graph
}  // namespace mxnet
