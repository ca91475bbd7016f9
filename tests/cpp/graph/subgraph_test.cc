// The CPU subgraph backend on hand-built graphs: which chains fuse into which ops with which
// attributes and inputs, where a branch cuts a chain, the environment switches, backend
// names, and the folded-BatchNorm cache of the fused convolution.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "graph/subgraph.h"
#include "mxnet/env.h"
#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "operator/nn/conv_bn_fold.h"

using mxnet::graph::InputOption;
using mxnet::graph::PartitionForInference;
using mxnet::graph::Symbol;
using mxnet::op::Node;
using mxnet::op::NodePtr;
using Params = std::vector<std::pair<std::string, std::string>>;

namespace {

Symbol Var(const std::string& name) { return Symbol::CreateVariable(name); }

Symbol Apply(const std::string& op, const std::vector<Symbol>& args, const std::string& name, const Params& p = {}) {
  Symbol s = Symbol::CreateAtomic(mxnet::op::Op::Get(op), p);
  s.Compose(args, {}, name);
  return s;
}

Symbol Conv(const Symbol& x, const std::string& name) {
  return Apply("Convolution", {x}, name, {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}});
}
Symbol BN(const Symbol& x, const std::string& name) { return Apply("BatchNorm", {x}, name, {{"eps", "1e-5"}}); }
Symbol Act(const Symbol& x, const std::string& name, const std::string& t = "relu") {
  return Apply("Activation", {x}, name, {{"act_type", t}});
}

/*! \brief The op nodes, in order: "op:name". */
std::vector<std::string> OpNodes(const Symbol& s) {
  std::vector<std::string> out;
  for (const NodePtr& n : s.TopoNodes())
    if (!n->is_variable()) out.push_back(n->op()->name + ":" + n->attrs.name);
  return out;
}

const Node* FindOp(const Symbol& s, const std::string& op) {
  for (const NodePtr& n : s.TopoNodes())
    if (!n->is_variable() && n->op()->name == op) return n.get();
  return nullptr;
}

std::vector<std::string> InputNames(const Node& n) {
  std::vector<std::string> out;
  for (const auto& in : n.inputs) out.push_back(in.node->is_variable() ? in.node->attrs.name : "<" + in.node->attrs.name + ">");
  return out;
}

std::string Attr(const Node& n, const std::string& k) {
  auto it = n.attrs.dict.find(k);
  return it == n.attrs.dict.end() ? "<none>" : it->second;
}

/*! \brief Partitions a copy and checks the inputs and outputs stayed. */
int Partition(Symbol* s, const std::string& backend = "ONEDNN") {
  const auto args = s->ListInputNames(InputOption::kReadOnlyArgs);
  const auto aux = s->ListInputNames(InputOption::kAuxiliaryStates);
  const auto outs = s->ListOutputNames();
  const int n = PartitionForInference(s, backend);
  EXPECT_EQ(s->ListInputNames(InputOption::kReadOnlyArgs), args);
  EXPECT_EQ(s->ListInputNames(InputOption::kAuxiliaryStates), aux);
  EXPECT_EQ(s->ListOutputNames(), outs);
  return n;
}

/*! \brief Sets env variables for a scope. */
struct EnvScope {
  std::vector<std::string> names;
  EnvScope(std::initializer_list<std::pair<const char*, const char*>> kv) {
    for (const auto& p : kv) {
      mxnet::env::Set(p.first, p.second);
      names.push_back(p.first);
    }
  }
  ~EnvScope() {
    for (const auto& n : names) mxnet::env::Unset(n);
  }
};

}  // namespace

TEST(Subgraph, ConvBatchNormReluBecomesOneFusedConv) {
  Symbol s = Act(BN(Conv(Var("data"), "conv0"), "bn0"), "relu0");
  EXPECT_EQ(Partition(&s), 1);
  ASSERT_EQ(OpNodes(s), std::vector<std::string>{"_sg_onednn_conv:relu0"});  // a graph output keeps its name
  const Node& f = *FindOp(s, "_sg_onednn_conv");
  EXPECT_EQ(InputNames(f), (std::vector<std::string>{"data", "conv0_weight", "conv0_bias", "bn0_gamma", "bn0_beta",
                                                     "bn0_moving_mean", "bn0_moving_var"}));
  EXPECT_EQ(Attr(f, "with_bn"), "True");
  EXPECT_EQ(Attr(f, "with_act"), "True");
  EXPECT_EQ(Attr(f, "act_type"), "relu");
  EXPECT_EQ(Attr(f, "eps"), "1e-5");
  EXPECT_EQ(Attr(f, "with_sum"), "<none>");
  EXPECT_EQ(Attr(f, "num_filter"), "4");
  EXPECT_EQ(s.ListOutputNames(), std::vector<std::string>{"relu0_output"});
}

TEST(Subgraph, InnerChainsGetGeneratedNames) {
  Symbol s = Apply("Pooling", {Act(BN(Conv(Var("data"), "conv0"), "bn0"), "relu0")}, "pool",
                   {{"kernel", "(2, 2)"}, {"pool_type", "max"}});
  EXPECT_EQ(Partition(&s), 1);
  EXPECT_EQ(OpNodes(s), (std::vector<std::string>{"_sg_onednn_conv:sg_onednn_conv_bn_act_0", "Pooling:pool"}));
}

TEST(Subgraph, ResidualAddJoinsAsSumOnEitherSide) {
  Symbol x = Var("data");
  Symbol other = Apply("FullyConnected", {x}, "other", {{"num_hidden", "4"}, {"flatten", "False"}});
  // The chain is the right operand: the sum goes first, keeping the variables' order.
  Symbol s = Act(Apply("elemwise_add", {other, BN(Conv(x, "conv0"), "bn0")}, "add"), "relu0");
  Partition(&s);
  const Node* f = nullptr;
  for (const NodePtr& n : s.TopoNodes())
    if (!n->is_variable() && Attr(*n, "with_sum") == "True") f = n.get();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(Attr(*f, "sum_first"), "True");
  EXPECT_EQ(InputNames(*f), (std::vector<std::string>{"<other>", "data", "conv0_weight", "conv0_bias", "bn0_gamma",
                                                      "bn0_beta", "bn0_moving_mean", "bn0_moving_var"}));
  // The chain on the left, through the _plus alias: the sum goes last.
  Symbol t = Act(Apply("_plus", {BN(Conv(x, "conv0"), "bn0"), Var("res")}, "add"), "relu0", "sigmoid");
  Partition(&t);
  ASSERT_EQ(OpNodes(t), std::vector<std::string>{"_sg_onednn_conv:relu0"});
  const Node& g = *FindOp(t, "_sg_onednn_conv");
  EXPECT_EQ(Attr(g, "sum_first"), "<none>");
  EXPECT_EQ(Attr(g, "act_type"), "sigmoid");
  EXPECT_EQ(InputNames(g).back(), "res");
  // Both operands are convolution chains: the first in graph order takes the add, the other
  // chain's output is its sum.
  Symbol u = Act(Apply("elemwise_add", {BN(Conv(x, "left"), "bnl"), BN(Conv(x, "right"), "bnr")}, "add"), "relu0");
  EXPECT_EQ(Partition(&u), 2);
  EXPECT_EQ(OpNodes(u), (std::vector<std::string>{"_sg_onednn_conv:sg_onednn_conv_bn_1", "_sg_onednn_conv:relu0"}));
  EXPECT_EQ(InputNames(*u.outputs[0].node).back(), "<sg_onednn_conv_bn_1>");
}

TEST(Subgraph, ABranchCutsTheChain) {
  Symbol x = Var("data");
  // BatchNorm's output is also a graph output: conv + bn fuse, the relu stays.
  Symbol bn = BN(Conv(x, "conv0"), "bn0");
  Symbol s = Symbol::Group({Act(bn, "relu0"), bn});
  EXPECT_EQ(Partition(&s), 1);
  EXPECT_EQ(OpNodes(s), (std::vector<std::string>{"_sg_onednn_conv:bn0", "Activation:relu0"}));
  EXPECT_EQ(Attr(*FindOp(s, "_sg_onednn_conv"), "with_act"), "<none>");
  // The convolution's output is read twice: no convolution chain; the BatchNorm + relu fuse.
  Symbol conv = Conv(x, "conv1");
  Symbol t = Apply("elemwise_add", {Act(BN(conv, "bn1"), "relu1"), conv}, "add");
  Partition(&t);
  EXPECT_EQ(FindOp(t, "_sg_onednn_conv"), nullptr);
  EXPECT_NE(FindOp(t, "_contrib_BatchNormWithReLU"), nullptr);
  EXPECT_NE(FindOp(t, "Convolution"), nullptr);
}

TEST(Subgraph, BatchNormStatisticsReadElsewhereKeepTheBatchNorm) {
  Symbol bn = Apply("BatchNorm", {Conv(Var("data"), "conv0")}, "bn0", {{"output_mean_var", "True"}});
  Symbol s = Symbol::Group({Act(bn.GetOutput(0), "relu0"), bn.GetOutput(1)});
  Partition(&s);
  EXPECT_NE(FindOp(s, "BatchNorm"), nullptr);
  EXPECT_EQ(FindOp(s, "_contrib_BatchNormWithReLU"), nullptr);
}

TEST(Subgraph, FullyConnectedWithActivation) {
  Symbol fc = Apply("FullyConnected", {Var("data")}, "fc", {{"num_hidden", "3"}});
  Symbol s = Apply("FullyConnected", {Act(fc, "act", "tanh")}, "fc2", {{"num_hidden", "2"}});
  EXPECT_EQ(Partition(&s), 1);
  EXPECT_EQ(OpNodes(s), (std::vector<std::string>{"_sg_onednn_fully_connected:sg_onednn_fully_connected_eltwise_0",
                                                  "FullyConnected:fc2"}));
  EXPECT_EQ(Attr(*FindOp(s, "_sg_onednn_fully_connected"), "act_type"), "tanh");
  // softsign is not taken, and an FC that is also a graph output stays.
  Symbol t = Act(fc, "act", "softsign");
  EXPECT_EQ(Partition(&t), 0);
  Symbol u = Symbol::Group({Act(fc, "act"), fc});
  EXPECT_EQ(Partition(&u), 0);
}

TEST(Subgraph, BatchNormReluWithoutConvolution) {
  Symbol s = Apply("relu", {BN(Var("data"), "bn0")}, "r");
  EXPECT_EQ(Partition(&s), 1);
  ASSERT_EQ(OpNodes(s), std::vector<std::string>{"_contrib_BatchNormWithReLU:r"});
  EXPECT_EQ(s.ListInputNames(InputOption::kAuxiliaryStates), (std::vector<std::string>{"bn0_moving_mean", "bn0_moving_var"}));
}

TEST(Subgraph, IdentitiesAreDroppedUnlessOutputs) {
  Symbol x = Var("data");
  Symbol c = Apply("_copy", {x}, "copy");
  Symbol d = Apply("Dropout", {c}, "drop", {{"p", "0.5"}});
  Symbol keep = Apply("Dropout", {d}, "always", {{"mode", "always"}});
  Symbol s = Symbol::Group({Apply("exp", {keep}, "e"), Apply("_copy", {x}, "out_copy")});
  EXPECT_EQ(Partition(&s), 2);
  EXPECT_EQ(OpNodes(s), (std::vector<std::string>{"Dropout:always", "exp:e", "_copy:out_copy"}));
}

TEST(Subgraph, SwitchesTurnSingleRewritesOff) {
  const auto chain = [] { return Act(BN(Conv(Var("data"), "conv0"), "bn0"), "relu0"); };
  {
    EnvScope e{{"MXNET_DISABLE_ONEDNN_FUSE_CONV_BN", "1"}};
    Symbol s = chain();
    Partition(&s);
    EXPECT_EQ(OpNodes(s), (std::vector<std::string>{"Convolution:conv0", "_contrib_BatchNormWithReLU:relu0"}));
  }
  {
    EnvScope e{{"MXNET_DISABLE_MKLDNN_FUSE_CONV_RELU", "1"}};  // MXNet 1.x's name
    Symbol s = chain();
    Partition(&s);
    EXPECT_EQ(OpNodes(s), (std::vector<std::string>{"_sg_onednn_conv:sg_onednn_conv_bn_0", "Activation:relu0"}));
  }
  {
    EnvScope e{{"MXNET_DISABLE_ONEDNN_CONV_OPT", "1"}, {"MXNET_DISABLE_ONEDNN_FUSE_BN_RELU", "1"}};
    Symbol s = chain();
    EXPECT_EQ(Partition(&s), 0);
  }
  {
    EnvScope e{{"MXNET_DISABLE_ONEDNN_FUSE_CONV_SUM", "1"}};
    Symbol s = Act(Apply("elemwise_add", {BN(Conv(Var("data"), "conv0"), "bn0"), Var("res")}, "add"), "relu0");
    Partition(&s);
    EXPECT_EQ(Attr(*FindOp(s, "_sg_onednn_conv"), "with_sum"), "<none>");
    EXPECT_NE(FindOp(s, "elemwise_add"), nullptr);
  }
  for (const char* name : {"MXNET_DISABLE_MKLDNN_FC_OPT", "MXNET_DISABLE_ONEDNN_FUSE_FC_ELTWISE"}) {
    EnvScope e{{name, "1"}};
    Symbol s = Act(Apply("FullyConnected", {Var("data")}, "fc", {{"num_hidden", "3"}}), "act");
    EXPECT_EQ(Partition(&s), 0) << name;
  }
}

TEST(Subgraph, BackendNames) {
  const auto chain = [] { return Act(BN(Conv(Var("data"), "conv0"), "bn0"), "relu0"); };
  for (const char* none : {"", "NONE", "none"}) {
    Symbol s = chain();
    EXPECT_EQ(Partition(&s, none), 0);
    EXPECT_EQ(OpNodes(s).size(), 3u);
  }
  Symbol s = chain();
  EXPECT_EQ(Partition(&s, "MKLDNN"), 1);
  Symbol t = chain();
  try {
    PartitionForInference(&t, "TensorRT");
    FAIL() << "no error";
  } catch (const mxnet::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'TensorRT' is not available"), std::string::npos) << e.what();
  }
}

TEST(Subgraph, DefaultBackendFollowsTheVariable) {
  EXPECT_EQ(mxnet::graph::DefaultInferenceBackend(), MXNET_USE_ONEDNN ? "ONEDNN" : "");
  {
    EnvScope e{{"MXNET_SUBGRAPH_BACKEND", "NONE"}};
    EXPECT_EQ(mxnet::graph::DefaultInferenceBackend(), "");
  }
  {
    EnvScope e{{"MXNET_SUBGRAPH_BACKEND", ""}};
    EXPECT_EQ(mxnet::graph::DefaultInferenceBackend(), "");
  }
  {
    EnvScope e{{"MXNET_SUBGRAPH_BACKEND", "mkldnn"}};
    EXPECT_EQ(mxnet::graph::DefaultInferenceBackend(), "MKLDNN");
  }
}
