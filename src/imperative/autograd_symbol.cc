/*!
 * \file autograd_symbol.cc
 * \brief Copies the autograd tape behind an array into a plain graph a Symbol can hold.
 */
#include "imperative/autograd_symbol.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "imperative/autograd_info.h"

namespace mxnet {
namespace imperative {

namespace {

/*! \brief Tape nodes reachable from root, inputs before users; iterative (tapes can be deep). */
std::vector<op::NodePtr> PostOrder(const op::NodePtr& root) {
  std::vector<op::NodePtr> order;
  std::unordered_map<const op::Node*, bool> seen;
  std::vector<std::pair<op::NodePtr, size_t>> stack{{root, 0}};
  seen[root.get()] = true;
  while (!stack.empty()) {
    auto& top = stack.back();
    if (top.second < top.first->inputs.size()) {
      const op::NodePtr& in = top.first->inputs[top.second++].node;
      if (in && !seen[in.get()]) {
        seen[in.get()] = true;
        stack.emplace_back(in, 0);
      }
    } else {
      order.push_back(top.first);
      stack.pop_back();
    }
  }
  return order;
}

class GraphCopier {
 public:
  /*! \brief The copy standing for tape entry e (a value node's copy is shared by equal data). */
  op::NodeEntry Map(const op::NodeEntry& e) {
    const op::Node* tape = e.node.get();
    AGInfo* info = Info(e.node);
    if (!tape->is_variable() || (info && info->marked) || !info || info->outputs.empty() || info->outputs[0].is_none())
      return op::NodeEntry{copies_.at(tape), e.index, 0};
    // An untracked input: the tape wraps each use in its own value node; uses of the same data
    // at the same version are one input of the computation.
    const NDArray& value = info->outputs[0];
    auto& same_key =
        values_[std::make_tuple(static_cast<const void*>(value.var()), value.byte_offset(), value.dtype(), e.version)];
    for (const auto& seen : same_key)
      if (seen.first == value.shape()) return op::NodeEntry{seen.second, 0, 0};
    same_key.emplace_back(value.shape(), copies_.at(tape));
    return op::NodeEntry{copies_.at(tape), 0, 0};
  }

  void Copy(const op::NodePtr& tape) {
    op::NodePtr c = op::Node::Create();
    AGInfo* info = Info(tape);
    const bool numbered = info && info->seq != AGInfo::kNoSeq;
    const uint64_t seq = numbered ? info->seq : (tape->is_variable() ? NextLeafSeq() : NextOpSeq());
    if (info) info->seq = seq;  // the same name on the next call
    if (tape->is_variable()) {
      c->attrs.name = (info && info->marked ? "var" : "null") + std::to_string(seq);
    } else {
      c->attrs = tape->attrs;  // op, parameter strings and their parsed form
      c->attrs.name = "node_" + std::to_string(seq);
      for (const auto& in : tape->inputs) c->inputs.push_back(Map(in));
    }
    copies_[tape.get()] = c;
  }

 private:
  std::unordered_map<const op::Node*, op::NodePtr> copies_;
  std::map<std::tuple<const void*, int64_t, int, uint32_t>, std::vector<std::pair<TShape, op::NodePtr>>> values_;
};

}  // namespace

op::NodeEntry RecordedGraph(const NDArray& arr) {
  const op::NodeEntry& head = arr.entry();
  MX_CHECK_KIND(head.node != nullptr, "MXNetError")
      << "autograd.get_symbol: the NDArray is not part of a computation graph: it was neither computed under "
         "autograd.record() from arrays with attached gradients nor marked with attach_grad. Did you forget to "
         "turn on recording?";
  GraphCopier copier;
  for (const op::NodePtr& n : PostOrder(head.node)) copier.Copy(n);
  return copier.Map(head);
}

}  // namespace imperative
}  // namespace mxnet
