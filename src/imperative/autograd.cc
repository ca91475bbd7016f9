/*!
 * \file autograd.cc
 * \brief The autograd tape: recorded ops are graph nodes (op::Node) whose info holds the
 *        values backward needs; backward asks each op's FGradient for its input gradients
 *        as new nodes and evaluates them with Invoke, so gradients run through the engine
 *        and, under create_graph, are themselves recorded.
 */
#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <unordered_set>

#include "imperative/autograd_info.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {

AGInfo* Info(const op::NodePtr& n) { return static_cast<AGInfo*>(n->info.get()); }

namespace {
std::atomic<uint64_t> leaf_count{0}, op_count{0};
}  // namespace

uint64_t NextLeafSeq() { return leaf_count.fetch_add(1, std::memory_order_relaxed); }
uint64_t NextOpSeq() { return op_count.fetch_add(1, std::memory_order_relaxed); }

void MarkVariables(const std::vector<NDArray*>& vars, const std::vector<uint32_t>& reqs,
                   const std::vector<NDArray*>& grads) {
  MX_CHECK_KIND(vars.size() == reqs.size() && vars.size() == grads.size(), "ValueError")
      << "mark_variables: " << vars.size() << " variables, " << reqs.size() << " grad_reqs, " << grads.size()
      << " gradients";
  for (size_t i = 0; i < vars.size(); ++i) {
    MX_CHECK_KIND(reqs[i] == op::kNullOp || reqs[i] == op::kWriteTo || reqs[i] == op::kWriteInplace ||
                      reqs[i] == op::kAddTo,
                  "ValueError")
        << "mark_variables: invalid grad_req " << reqs[i];
    MX_CHECK_KIND(grads[i]->shape() == vars[i]->shape(), "ValueError")
        << "mark_variables: gradient shape " << grads[i]->shape() << " differs from variable shape "
        << vars[i]->shape();
    op::NodePtr n = op::Node::Create();
    auto info = std::make_shared<AGInfo>();
    info->outputs = {vars[i]->Detach()};
    info->grad = grads[i]->Detach();
    info->grad_req = reqs[i] == op::kWriteInplace ? op::kWriteTo : static_cast<op::OpReqType>(reqs[i]);
    info->marked = true;
    info->seq = NextLeafSeq();
    n->info = info;
    vars[i]->entry() = op::NodeEntry{n, 0, vars[i]->version()};
  }
}

NDArray GetGrad(const NDArray& var) {
  const auto& e = var.entry();
  if (!e.node || !e.node->is_variable()) return NDArray();
  AGInfo* info = Info(e.node);
  return info && info->marked ? info->grad : NDArray();
}

bool GetFreshGrad(const NDArray& var) {
  const auto& e = var.entry();
  AGInfo* info = e.node ? Info(e.node) : nullptr;
  return info && info->fresh_grad;
}

void SetFreshGrad(const NDArray& var, bool fresh) {
  const auto& e = var.entry();
  AGInfo* info = e.node ? Info(e.node) : nullptr;
  MX_CHECK_KIND(info && info->marked, "ValueError") << "set_grad_state: the array has no attached gradient";
  info->fresh_grad = fresh;
}

op::NodeEntry EntryOf(const NDArray& arr) {
  if (arr.entry().node) return arr.entry();
  // An array outside the graph (a constant, a head gradient): a value node holding it.
  op::NodePtr n = op::Node::Create();
  auto info = std::make_shared<AGInfo>();
  info->outputs = {arr.Detach()};
  n->info = info;
  return op::NodeEntry{n, 0, arr.version()};
}

void RecordOp(const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs) {
  bool any = false;
  for (auto* in : inputs) any = any || in->entry().node != nullptr;
  if (!any) return;  // nothing upstream needs a gradient: outputs are constants
  op::NodePtr n = op::Node::Create();
  n->attrs = attrs;
  for (auto* in : inputs) {
    n->inputs.push_back(EntryOf(*in));
    if (!in->entry().node) Info(n->inputs.back().node)->seq = NextLeafSeq();
  }
  auto info = std::make_shared<AGInfo>();
  info->seq = NextOpSeq();
  for (auto* out : outputs) info->outputs.push_back(out->Detach());
  n->info = info;
  for (uint32_t i = 0; i < outputs.size(); ++i) outputs[i]->entry() = op::NodeEntry{n, i, outputs[i]->version()};
}

}  // namespace imperative
}  // namespace mxnet
