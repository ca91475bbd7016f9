/*!
 * \file conv_property.cc
 * \brief Convolution (2-D) -> [BatchNorm] -> [add] -> [activation] into one `_sg_onednn_conv`.
 *
 *        Links, each optional but in this order, each the only reader of the previous one:
 *        - BatchNorm on the convolution's channel axis, its mean/var outputs unread;
 *        - elemwise_add (_plus, _Plus, _add) or broadcast_add with the chain on either side;
 *          the other operand becomes the `sum` input;
 *        - Activation relu/sigmoid/tanh/softrelu/softsign, or the relu/sigmoid/tanh/softsign op.
 *        The fused node reads the convolution's inputs, then BatchNorm's gamma, beta and
 *        moving statistics (which stay auxiliary states), then the sum; a sum the graph
 *        reached before the convolution goes first (sum_first), so variables keep their order.
 */
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/subgraph/graph_rewrite.h"
#include "graph/subgraph/properties.h"
#include "operator/nn/conv_param.h"

namespace mxnet {
namespace graph {
namespace subgraph {
namespace {

const std::vector<std::string> kConvActs{"relu", "sigmoid", "tanh", "softrelu", "softsign"};

/*! \brief The convolution's parameters (its parser ran when the node was made). */
const op::ConvolutionParam* ConvParam(const Node& n) {
  if (!IsOp(n, "Convolution") || n.attrs.parsed.type() != typeid(op::ConvolutionParam)) return nullptr;
  return &n.attrs.get<op::ConvolutionParam>();
}

bool IsConv2D(const Node& n) {
  const op::ConvolutionParam* p = ConvParam(n);
  return p && p->kernel.ndim() == 2 && n.inputs.size() == (p->no_bias ? 2u : 3u);
}

/*! \brief The channel axis of a 2-D convolution's output: 1 (NCHW) or 3 (NHWC). */
int ChannelAxis(const Node& conv) { return op::ChannelLast(ConvParam(conv)->layout) ? 3 : 1; }

bool FoldableBatchNorm(const Node& bn, const Node& conv, const EntryReads& reads) {
  if (!IsOp(bn, "BatchNorm") || bn.inputs.size() != 5 || reads.Reads(&bn, 1) > 0 || reads.Reads(&bn, 2) > 0)
    return false;
  int axis = 0;
  try {
    axis = std::stoi(AttrOr(bn, "axis", "1"));
  } catch (const std::exception&) {
    return false;
  }
  if (axis < 0) axis += 4;
  return axis == ChannelAxis(conv);
}

bool IsAdd(const Node& n) { return (IsOp(n, "elemwise_add") || IsOp(n, "broadcast_add")) && n.inputs.size() == 2; }

/*! \brief One matched chain. */
struct Chain {
  Node* conv{nullptr};
  Node* bn{nullptr};
  Node* add{nullptr};
  uint32_t add_slot{0};  // which operand of add the chain is
  Node* act{nullptr};
  std::string act_type;
  Node* last() const { return act ? act : add ? add : bn ? bn : conv; }
};

Chain Match(Node* conv, const EntryReads& reads, const ConvFuseOptions& opt,
            const std::unordered_set<const Node*>& taken) {
  Chain c;
  c.conv = conv;
  // A link already fused into an earlier chain (an add both chains reach) ends this one.
  auto next = [&](const Node* n) {
    const Read* r = reads.SoleRead(n, 0);
    return r && !taken.count(r->node) ? r : nullptr;
  };
  const Read* r = next(conv);
  if (opt.bn && r && r->input == 0 && FoldableBatchNorm(*r->node, *conv, reads)) {
    c.bn = r->node;
    r = next(c.bn);
  }
  if (opt.sum && r && IsAdd(*r->node)) {
    c.add = r->node;
    c.add_slot = r->input;
    r = next(c.add);
  }
  if (opt.act && r && r->input == 0 && FusableActivation(*r->node, kConvActs, &c.act_type)) c.act = r->node;
  return c;
}

NodePtr BuildFused(const Chain& c, const EntryReads& reads, int id) {
  std::unordered_map<std::string, std::string> dict = c.conv->attrs.dict;
  std::vector<NodeEntry> inputs = c.conv->inputs;
  std::string what = "conv_";
  if (c.bn) {
    what += "bn_";
    dict["with_bn"] = "True";
    dict["eps"] = AttrOr(*c.bn, "eps", "0.001");
    dict["fix_gamma"] = AttrBool(*c.bn, "fix_gamma", true) ? "True" : "False";
    inputs.insert(inputs.end(), c.bn->inputs.begin() + 1, c.bn->inputs.end());
  }
  if (c.add) {
    what += "add_";
    dict["with_sum"] = "True";
    const NodeEntry& sum = c.add->inputs[1 - c.add_slot];
    if (c.add_slot == 1) {
      dict["sum_first"] = "True";
      inputs.insert(inputs.begin(), sum);
    } else {
      inputs.push_back(sum);
    }
  }
  if (c.act) {
    what += "act_";
    dict["with_act"] = "True";
    dict["act_type"] = c.act_type;
  }
  return MakeFusedNode("_sg_onednn_conv", dict, inputs, reads, *c.last(), 0,
                       "sg_onednn_" + what + std::to_string(id));
}

}  // namespace

int FuseConv(Symbol* sym, const ConvFuseOptions& options) {
  const EntryReads reads(*sym);
  Rewiring rewiring;
  std::unordered_set<const Node*> taken;
  int made = 0;
  for (const NodePtr& n : reads.order()) {
    if (taken.count(n.get()) || !IsConv2D(*n) || !n->control_deps.empty() || reads.HasControlUsers(n.get())) continue;
    const Chain c = Match(n.get(), reads, options, taken);
    if (!c.bn && !c.add && !c.act) continue;
    const NodePtr fused = BuildFused(c, reads, made++);
    for (const Node* m : {c.conv, c.bn, c.add, c.act})
      if (m) taken.insert(m);
    rewiring.Replace(c.last(), 0, NodeEntry{fused, 0, 0});
  }
  rewiring.Apply(sym);
  return made;
}

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet
