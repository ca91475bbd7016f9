/*!
 * \file backward.cc
 * \brief Reverse pass over the tape. Each op node's input gradients come from its
 *        FGradient as new nodes, evaluated right away (in reverse topological order) so the
 *        recursion depth stays that of one op's gradient expression.
 */
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "imperative/autograd_info.h"
#include "imperative/cached_op.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {
namespace {

/*! \brief Restores the recording/training flags on scope exit. */
struct ModeScope {
  bool rec, train;
  ModeScope(bool r, bool t) : rec(SetIsRecording(r)), train(SetIsTraining(t)) {}
  ~ModeScope() {
    SetIsRecording(rec);
    SetIsTraining(train);
  }
};

class Evaluator {
 public:
  Evaluator(bool retain, bool create_graph) : retain_(retain), create_graph_(create_graph) {}
  /*! \brief How to run a node evaluated for the first time (ignored when it ran before). */
  struct RunOptions {
    const std::vector<bool>* unused{nullptr};        // outputs nothing reads: run with kNullOp
    std::vector<std::pair<uint32_t, NDArray>> into;  // outputs written straight into these arrays
  };
  /*! \brief Whether e's node has a value already (recorded, or evaluated by this evaluator). */
  bool HasValue(const op::NodeEntry& e) { return Info(e.node) != nullptr || memo_.count(e.node.get()) > 0; }

  NDArray Value(const op::NodeEntry& e, const RunOptions* opt = nullptr) {
    if (AGInfo* info = Info(e.node)) {
      MX_CHECK_KIND(!info->freed, "MXNetError")
          << "backward: the recorded graph was freed by a previous backward; pass retain_graph=True to the "
             "first backward to run backward through it again";
      NDArray v = info->outputs.at(e.index);
      v.entry() = e;  // keeps the history when gradients are recorded (create_graph)
      return v;
    }
    auto it = memo_.find(e.node.get());
    if (it != memo_.end()) {
      const auto sk = skipped_.find(e.node.get());
      MX_CHECK(sk == skipped_.end() || e.index >= sk->second.size() || !sk->second[e.index])
          << "backward: output " << e.index << " of " << e.node->op()->name << " was skipped as unused";
      MX_CHECK(!it->second.outs.at(e.index).is_none())
          << "backward: output " << e.index << " of " << e.node->op()->name << " was read after its release";
      return it->second.outs.at(e.index);
    }
    const op::Node& n = *e.node;
    std::vector<NDArray> ins;
    for (const auto& in : n.inputs) ins.push_back(Value(in));
    std::vector<NDArray> outs;
    if (n.op()->name == "_backward_CustomFunction") {
      outs = RunCustom(n, ins);
    } else if (n.op()->name == "_backward_CachedOp") {
      std::vector<NDArray> into(n.op()->NumOutputs(n.attrs));
      if (opt)
        for (const auto& kv : opt->into) into.at(kv.first) = kv.second;
      outs = CachedOpBackward(n.attrs, ins, into, retain_, create_graph_);
    } else {
      outs.resize(n.op()->NumOutputs(n.attrs));
      if (opt)
        for (const auto& kv : opt->into) outs.at(kv.first) = kv.second;
      std::vector<NDArray*> ip, opp;
      for (auto& a : ins) ip.push_back(&a);
      for (auto& a : outs) opp.push_back(&a);
      if (opt && opt->unused) {
        Invoke(ins.empty() ? Context::CPU() : ins[0].ctx(), n.attrs, ip, opp, *opt->unused);
        skipped_[e.node.get()] = *opt->unused;
      } else {
        Invoke(ins.empty() ? Context::CPU() : ins[0].ctx(), n.attrs, ip, opp);
      }
    }
    memo_[e.node.get()] = Memo{e.node, outs};
    evaluated_.push_back(e.node.get());
    return outs.at(e.index);
  }

  /*! \brief Nodes evaluated since the last call (each once), oldest first. */
  std::vector<const op::Node*> TakeEvaluated() { return std::move(evaluated_); }
  /*! \brief Drops this evaluator's reference to output index of node (nothing reads it again). */
  void Release(const op::Node* node, uint32_t index) {
    auto it = memo_.find(node);
    if (it != memo_.end() && index < it->second.outs.size()) it->second.outs[index] = NDArray();
  }

 private:
  std::vector<NDArray> RunCustom(const op::Node& n, const std::vector<NDArray>& ins) {
    const auto& p = n.attrs.get<CustomFunctionParam>();
    std::vector<NDArray> ograds(ins.begin(), ins.begin() + p.num_outputs), igrads;
    for (uint32_t i = p.num_outputs; i < ins.size(); ++i) igrads.push_back(InvokeByName("zeros_like", {ins[i]})[0]);
    (*p.backward)(ograds, igrads, std::vector<int>(igrads.size(), op::kWriteTo), IsTraining());
    return igrads;
  }
  // The node is kept alive with its values: a released gradient's node may otherwise be freed
  // and a new node allocated at its address would find its entry.
  struct Memo {
    op::NodePtr node;
    std::vector<NDArray> outs;
  };
  bool retain_, create_graph_;
  std::unordered_map<const op::Node*, Memo> memo_;
  std::unordered_map<const op::Node*, std::vector<bool>> skipped_;
  std::vector<const op::Node*> evaluated_;
};

/*!
 * \brief Per gradient node among igrads, which of its outputs no needed input takes: those
 *        gradients (a first layer's data gradient, a frozen weight's) are never computed.
 */
std::unordered_map<const op::Node*, std::vector<bool>> UnusedOutputs(const std::vector<op::NodeEntry>& igrads,
                                                                     const std::vector<bool>& wanted) {
  std::unordered_map<const op::Node*, std::vector<bool>> unused;
  for (const auto& g : igrads) {
    const op::Node* n = g.node.get();
    if (n->is_variable() || unused.count(n)) continue;
    unused[n].assign(n->op()->NumOutputs(n->attrs), true);
  }
  for (size_t k = 0; k < igrads.size(); ++k) {
    auto it = unused.find(igrads[k].node.get());
    if (wanted[k] && it != unused.end() && igrads[k].index < it->second.size()) it->second[igrads[k].index] = false;
  }
  return unused;
}

op::NodeEntry Sum(const std::vector<op::NodeEntry>& parts) {
  op::NodeEntry acc = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) acc = op::MakeNode("elemwise_add", "_grad_sum", {acc, parts[i]});
  return acc;
}

}  // namespace

std::vector<NDArray> Backward(const std::vector<NDArray*>& heads, const std::vector<NDArray*>& head_grads,
                              const std::vector<NDArray*>& variables, bool retain_graph, bool create_graph,
                              bool is_train) {
  MX_CHECK_KIND(!heads.empty(), "ValueError") << "backward: no heads given";
  ModeScope mode(create_graph, is_train);
  Evaluator eval(retain_graph, create_graph);

  // Graph nodes reachable from the heads, inputs before users.
  std::vector<op::NodePtr> order;
  std::unordered_set<const op::Node*> seen;
  std::vector<std::pair<op::NodePtr, size_t>> stack;
  for (auto* h : heads) {
    MX_CHECK_KIND(h->entry().node != nullptr, "MXNetError")
        << "Cannot differentiate node because it is not in a computational graph. You need to set is_recording "
           "to true or use autograd.record() to save computational graphs for backward. If you want to "
           "differentiate the same graph twice, you need to pass retain_graph=True to backward.";
    if (seen.insert(h->entry().node.get()).second) stack.emplace_back(h->entry().node, 0);
    while (!stack.empty()) {
      auto& top = stack.back();
      if (top.second < top.first->inputs.size()) {
        const op::NodePtr& in = top.first->inputs[top.second++].node;
        if (seen.insert(in.get()).second) stack.emplace_back(in, 0);
      } else {
        order.push_back(top.first);
        stack.pop_back();
      }
    }
  }

  std::unordered_set<const op::Node*> targets;
  for (auto* v : variables) {
    MX_CHECK_KIND(v->entry().node != nullptr, "MXNetError")
        << "grad: a variable is not part of the recorded graph; call attach_grad() or mark_variables() first";
    targets.insert(v->entry().node.get());
  }
  // Consumers per variable: a kWriteTo variable with one gets its gradient written straight
  // into its buffer by the gradient op (no copy afterwards) when that op runs fresh for it.
  std::unordered_map<const op::Node*, int> uses;
  for (auto* h : heads)
    if (h->entry().node->is_variable()) ++uses[h->entry().node.get()];
  for (const auto& n : order)
    for (const auto& in : n->inputs)
      if (in.node->is_variable()) ++uses[in.node.get()];
  std::unordered_map<const op::Node*, bool> needs;
  for (const auto& n : order) {
    bool need;
    if (n->is_variable()) {
      AGInfo* info = Info(n);
      need = variables.empty() ? (info && info->marked && info->grad_req != op::kNullOp) : targets.count(n.get()) > 0;
    } else {
      need = false;
      for (const auto& in : n->inputs) need = need || needs[in.node.get()];
    }
    needs[n.get()] = need;
  }

  // Gradient contributions per (node, output), and how many contributions still to be summed
  // read each gradient value: once none does, the value is released (below).
  std::unordered_map<const op::Node*, std::vector<std::vector<op::NodeEntry>>> contrib;
  std::map<std::pair<const op::Node*, uint32_t>, int> readers;
  auto add = [&](const op::NodeEntry& at, const op::NodeEntry& g) {
    ++readers[{g.node.get(), g.index}];
    auto& slots = contrib[at.node.get()];
    const size_t nout = at.node->is_variable() ? 1 : Info(at.node) ? Info(at.node)->outputs.size() : 1;
    if (slots.size() < std::max<size_t>(nout, at.index + 1)) slots.resize(std::max<size_t>(nout, at.index + 1));
    slots[at.index].push_back(g);
  };
  for (size_t i = 0; i < heads.size(); ++i) {
    NDArray hg = i < head_grads.size() && head_grads[i] && !head_grads[i]->is_none()
                     ? *head_grads[i]
                     : InvokeByName("ones_like", {heads[i]->Detach()})[0];
    MX_CHECK_KIND(hg.shape() == heads[i]->shape(), "ValueError")
        << "backward: head gradient shape " << hg.shape() << " differs from head shape " << heads[i]->shape();
    add(heads[i]->entry(), EntryOf(hg));
  }

  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const op::NodePtr& n = *it;
    if (n->is_variable() || !needs[n.get()]) continue;
    auto cit = contrib.find(n.get());
    if (cit == contrib.end()) continue;
    AGInfo* info = Info(n);
    MX_CHECK_KIND(info && !info->freed, "MXNetError")
        << "backward: the recorded graph was freed by a previous backward; pass retain_graph=True to the first "
           "backward to run backward through it again";
    const op::Op* op = n->op();
    MX_CHECK_KIND(static_cast<bool>(op->gradient), "MXNetError")
        << "Operator " << op->name << " is non-differentiable because it didn't register FGradient attribute.";
    std::vector<op::NodeEntry> ograds;
    auto& slots = cit->second;
    slots.resize(info->outputs.size());
    for (uint32_t o = 0; o < slots.size(); ++o) {
      if (slots[o].empty())
        ograds.push_back(op::MakeNode("zeros_like", "_zero_ograd", {op::NodeEntry{n, o, 0}}));
      else
        ograds.push_back(slots[o].size() == 1 ? slots[o][0] : Sum(slots[o]));
    }
    std::vector<op::NodeEntry> igrads = op->gradient(n, ograds);
    MX_CHECK(igrads.size() == n->inputs.size())
        << op->name << ": gradient returned " << igrads.size() << " entries for " << n->inputs.size() << " inputs";
    std::vector<bool> wanted(igrads.size());
    for (size_t k = 0; k < igrads.size(); ++k) wanted[k] = needs[n->inputs[k].node.get()];
    // With create_graph the gradient ops are recorded for a second backward, which may need
    // every output; compute them all then.
    const auto unused = create_graph ? decltype(UnusedOutputs(igrads, wanted)){} : UnusedOutputs(igrads, wanted);
    // How each gradient node runs, decided for all its outputs before it first runs.
    std::unordered_map<const op::Node*, Evaluator::RunOptions> run;
    for (const auto& kv : unused) run[kv.first].unused = &kv.second;
    for (size_t k = 0; k < igrads.size(); ++k) {
      const op::NodePtr& var = n->inputs[k].node;
      AGInfo* vinfo = wanted[k] && var->is_variable() ? Info(var) : nullptr;
      const auto same = [&](const op::NodeEntry& o) { return o.node == igrads[k].node && o.index == igrads[k].index; };
      if (variables.empty() && !create_graph && vinfo && vinfo->marked && vinfo->grad_req == op::kWriteTo &&
          uses[var.get()] == 1 && !igrads[k].node->is_variable() && !eval.HasValue(igrads[k]) &&
          std::count_if(igrads.begin(), igrads.end(), same) == 1)
        run[igrads[k].node.get()].into.emplace_back(igrads[k].index, vinfo->grad);
    }
    for (size_t k = 0; k < igrads.size(); ++k) {
      if (!wanted[k]) continue;
      auto r = run.find(igrads[k].node.get());
      eval.Value(igrads[k], r == run.end() ? nullptr : &r->second);  // now: keeps the recursion shallow
      add(n->inputs[k], igrads[k]);
    }
    if (!create_graph) {
      // n's output gradients are consumed, and gradient values nothing is waiting to sum (the
      // ograds, their sums, zeros for missing ones) are dropped now, not when backward ends:
      // otherwise every activation's gradient is alive at once.
      for (const auto& slot : cit->second)
        for (const op::NodeEntry& g : slot)
          if (--readers[{g.node.get(), g.index}] <= 0) eval.Release(g.node.get(), g.index);
      contrib.erase(cit);
      for (const op::Node* done : eval.TakeEvaluated())
        for (uint32_t o = 0; o < done->op()->NumOutputs(done->attrs); ++o)
          if (readers[{done, o}] <= 0) eval.Release(done, o);
    }
    // Every user of n's outputs came later in the recorded order, so its gradient has run:
    // n's saved outputs are read by nothing from here on, unless one is itself a gradient
    // still to be summed (a recorded head gradient passed through).
    bool read_later = false;
    for (uint32_t o = 0; o < info->outputs.size(); ++o) read_later = read_later || readers[{n.get(), o}] > 0;
    if (!retain_graph && !create_graph && !read_later) {
      info->freed = true;
      info->outputs.clear();
    }
  }

  std::vector<NDArray> results;
  auto total_for = [&](const op::NodePtr& var, const NDArray& like) -> NDArray {
    auto cit = contrib.find(var.get());
    if (cit == contrib.end() || cit->second.empty() || cit->second[0].empty())
      return InvokeByName("zeros_like", {like.Detach()})[0];
    return eval.Value(Sum(cit->second[0]));
  };
  if (!variables.empty()) {
    for (auto* v : variables) {
      NDArray g = total_for(v->entry().node, *v);
      // A fresh array: the gradient may be a head gradient or a saved value otherwise.
      results.push_back(InvokeByName("_copy", {g})[0]);
    }
  } else {
    for (const auto& n : order) {
      if (!n->is_variable() || !needs[n.get()]) continue;
      AGInfo* info = Info(n);
      NDArray g = total_for(n, info->outputs[0]);
      NDArray buf = info->grad;
      if (g.SameData(buf) && g.shape() == buf.shape()) {
        // the gradient op wrote the buffer itself (see uses above)
      } else if (info->grad_req == op::kAddTo) {
        NDArray old = buf.Detach();
        std::vector<NDArray*> ins{&old, &g}, outs{&buf};
        Invoke(buf.ctx(), op::MakeAttrs(op::Op::Get("elemwise_add"), {}), ins, outs);
      } else {
        std::vector<NDArray*> ins{&g}, outs{&buf};
        Invoke(buf.ctx(), op::MakeAttrs(op::Op::Get("_copy"), {}), ins, outs);
      }
      if (create_graph) info->grad.entry() = buf.entry();
      info->fresh_grad = true;
    }
  }

  if (!retain_graph) {
    for (const auto& n : order) {
      if (n->is_variable()) continue;
      if (AGInfo* info = Info(n)) {
        info->freed = true;
        info->outputs.clear();
      }
    }
  }
  return results;
}

}  // namespace imperative
}  // namespace mxnet
