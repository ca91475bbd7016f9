/*!
 * \file executor.cc
 * \brief GraphExecutor: builds the training graph, infers, plans and runs it.
 */
#include "graph/executor.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "graph/cse.h"
#include "graph/gradient.h"
#include "graph/subgraph.h"
#include "mxnet/engine.h"
#include "mxnet/env.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace graph {
namespace {

struct ModeScope {
  bool rec, train;
  explicit ModeScope(bool t) : rec(imperative::SetIsRecording(false)), train(imperative::SetIsTraining(t)) {}
  ~ModeScope() {
    imperative::SetIsRecording(rec);
    imperative::SetIsTraining(train);
  }
};

int BulkSetting(env::Var specific) {
  if (!env::GetBool(env::Var::MXNET_EXEC_BULK_EXEC_TRAIN)) return 0;
  return static_cast<int>(env::IsSet(specific) ? env::GetInt(specific)
                                               : env::GetInt(env::Var::MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN));
}

std::string UnknownList(const IndexedGraph& g, const std::vector<TShape>* shapes, const std::vector<int>* types) {
  std::ostringstream os;
  int listed = 0;
  for (uint32_t nid : g.input_nodes()) {
    const uint32_t e = g.entry_id(nid, 0);
    const bool unknown = shapes ? !(*shapes)[e].IsKnown() : (*types)[e] < 0;
    if (!unknown || listed >= 10) continue;
    os << g.nodes()[nid]->attrs.name << ": ";
    if (shapes) os << (*shapes)[e]; else os << (*types)[e];
    os << ", ";
    ++listed;
  }
  for (uint32_t nid = 0; nid < g.num_nodes() && listed < 10; ++nid) {
    if (g.nodes()[nid]->is_variable()) continue;
    const uint32_t e = g.entry_id(nid, 0);
    const bool unknown = shapes ? !(*shapes)[e].IsKnown() : (*types)[e] < 0;
    if (!unknown) continue;
    os << "output of " << g.nodes()[nid]->attrs.name << " (" << g.nodes()[nid]->op()->name << "), ";
    ++listed;
  }
  return os.str();
}

}  // namespace

GraphExecutor::GraphExecutor(const Symbol& sym, Context ctx, const std::vector<NDArray>& args,
                             const std::vector<NDArray>& grads, const std::vector<op::OpReqType>& reqs,
                             const std::vector<NDArray>& aux, GraphExecutor* shared)
    : symbol_(sym), ctx_(ctx), args_(args), grads_(grads), reqs_(reqs), aux_(aux) {
  optimized_ = sym.Copy();
  if (env::GetBool(env::Var::MXNET_ELIMINATE_COMMON_EXPR)) num_cse_removed_ = EliminateCommonExpr(&optimized_);
  // Inference executors on CPU run the subgraph backend's fusions (MXNET_SUBGRAPH_BACKEND).
  bool inference = true;
  for (size_t i = 0; i < reqs.size(); ++i)
    inference = inference && (reqs[i] == op::kNullOp || i >= grads.size() || grads[i].is_none());
  if (inference && ctx.dev_type == Context::kCPU) PartitionForInference(&optimized_, DefaultInferenceBackend());
  const std::vector<NodePtr> arg_nodes = optimized_.ListInputs(InputOption::kReadOnlyArgs);
  const std::vector<NodePtr> aux_nodes = optimized_.ListInputs(InputOption::kAuxiliaryStates);
  MX_CHECK_KIND(args.size() == arg_nodes.size(), "ValueError")
      << "bind: the symbol has " << arg_nodes.size() << " arguments, " << args.size() << " arrays given";
  MX_CHECK_KIND(aux.size() == aux_nodes.size(), "ValueError")
      << "bind: the symbol has " << aux_nodes.size() << " auxiliary states, " << aux.size() << " arrays given";
  grads_.resize(args.size());
  reqs_.resize(args.size(), op::kNullOp);
  for (size_t i = 0; i < args.size(); ++i) {
    MX_CHECK_KIND(!args[i].is_none(), "ValueError") << "bind: argument " << arg_nodes[i]->attrs.name << " is empty";
    MX_CHECK_KIND(args[i].ctx() == ctx, "ValueError")
        << "bind: argument " << arg_nodes[i]->attrs.name << " is on " << args[i].ctx().ToString() << ", the executor on "
        << ctx.ToString();
    if (grads_[i].is_none()) reqs_[i] = op::kNullOp;
    if (reqs_[i] == op::kWriteInplace) reqs_[i] = op::kWriteTo;
  }
  for (size_t i = 0; i < aux.size(); ++i)
    MX_CHECK_KIND(!aux[i].is_none(), "ValueError") << "bind: auxiliary state " << aux_nodes[i]->attrs.name << " is empty";

  // Gradient graph.
  std::vector<NodeEntry> all = optimized_.outputs;
  num_outputs_ = all.size();
  std::vector<size_t> grad_args;
  std::vector<NodeEntry> xs;
  for (size_t i = 0; i < args.size(); ++i)
    if (reqs_[i] != op::kNullOp) {
      grad_args.push_back(i);
      xs.push_back(NodeEntry{arg_nodes[i], 0, 0});
    }
  GradientResult gr;
  if (!xs.empty()) {
    GradientOptions gopt;
    gopt.sum_cap = static_cast<int>(env::GetInt(env::Var::MXNET_EXEC_INPLACE_GRAD_SUM_CAP));
    gopt.mirror = env::GetBool(env::Var::MXNET_BACKWARD_DO_MIRROR) || env::GetInt(env::Var::MXNET_MEMORY_OPT) > 0;
    gr = BuildGradient(all, xs, gopt);
    num_mirrored_ = gr.num_mirrored;
    head_grad_vars_ = gr.head_grads;
    all.insert(all.end(), gr.grads.begin(), gr.grads.end());
  }
  num_forward_nodes_ = IndexedGraph(optimized_.outputs).num_nodes();
  graph_ = std::make_unique<IndexedGraph>(all);
  const IndexedGraph& g = *graph_;

  // Shapes and dtypes: forward first (head gradients take the outputs' shapes), then all.
  std::unordered_map<const Node*, NDArray> bound;
  for (size_t i = 0; i < args.size(); ++i) bound[arg_nodes[i].get()] = args[i];
  for (size_t i = 0; i < aux.size(); ++i) bound[aux_nodes[i].get()] = aux[i];
  IndexedGraph fwd(optimized_.outputs);
  auto seed = [&](const IndexedGraph& gg, std::vector<TShape>* s, std::vector<int>* t) {
    s->assign(gg.num_entries(), TShape());
    t->assign(gg.num_entries(), -1);
    for (uint32_t nid : gg.input_nodes()) {
      auto it = bound.find(gg.nodes()[nid].get());
      if (it == bound.end()) continue;
      (*s)[gg.entry_id(nid, 0)] = it->second.shape();
      (*t)[gg.entry_id(nid, 0)] = it->second.dtype();
    }
  };
  std::vector<TShape> fshapes;
  std::vector<int> ftypes;
  seed(fwd, &fshapes, &ftypes);
  InferShapes(fwd, &fshapes);
  InferTypes(fwd, &ftypes);
  for (size_t i = 0; i < head_grad_vars_.size(); ++i) {
    const uint32_t e = fwd.entry_id(optimized_.outputs[i]);
    NDArray hg(fshapes[e].IsKnown() ? fshapes[e] : TShape{1}, ctx, true, ftypes[e] < 0 ? kFloat32 : ftypes[e]);
    bound[head_grad_vars_[i].get()] = hg;
  }
  seed(g, &shapes_, &dtypes_);
  if (InferShapes(g, &shapes_) > 0)
    MX_THROW("ValueError") << "InferShape pass cannot decide shapes for the following arguments (-1 means unknown "
                              "dimensions). Please consider providing them as inputs:\n"
                           << UnknownList(g, &shapes_, nullptr);
  if (InferTypes(g, &dtypes_) > 0)
    MX_THROW("TypeError") << "InferType pass cannot decide dtypes for the following arguments (-1 means unknown "
                             "dtype). Please consider providing them as inputs:\n"
                          << UnknownList(g, nullptr, &dtypes_);

  // Which entries live in arrays from outside: variables, and gradients written straight
  // into the user's arrays.
  std::vector<bool> external(g.num_entries(), false);
  entries_.assign(g.num_entries(), NDArray());
  for (uint32_t nid : g.input_nodes()) {
    auto it = bound.find(g.nodes()[nid].get());
    MX_CHECK(it != bound.end()) << "bind: variable " << g.nodes()[nid]->attrs.name << " has no array";
    external[g.entry_id(nid, 0)] = true;
    entries_[g.entry_id(nid, 0)] = it->second;
  }
  std::vector<int> grad_uses(g.num_entries(), 0);
  for (size_t k = 0; k < gr.grads.size(); ++k) ++grad_uses[g.entry_id(gr.grads[k])];
  std::vector<bool> is_fwd_output(g.num_entries(), false);
  for (size_t i = 0; i < num_outputs_; ++i) is_fwd_output[g.entry_id(all[i])] = true;
  for (size_t k = 0; k < gr.grads.size(); ++k) {
    const size_t a = grad_args[k];
    const uint32_t e = g.entry_id(gr.grads[k]);
    const bool direct = reqs_[a] == op::kWriteTo && !gr.grads[k].node->is_variable() && grad_uses[e] == 1 &&
                        !is_fwd_output[e] && !external[e] && grads_[a].shape() == shapes_[e] &&
                        grads_[a].dtype() == dtypes_[e] && grads_[a].ctx() == ctx;
    if (direct) {
      external[e] = true;
      entries_[e] = grads_[a];
    } else {
      grad_copies_.push_back(GradCopy{e, a, reqs_[a] == op::kAddTo});
    }
  }

  readers_.assign(g.num_entries(), 0);
  for (const auto& n : g.nodes())
    for (const auto& in : n->inputs) ++readers_[g.entry_id(in)];
  for (const auto& o : g.outputs()) ++readers_[g.entry_id(o)];

  PlanOptions popt;
  popt.enable_inplace = env::GetBool(env::Var::MXNET_EXEC_ENABLE_INPLACE);
  popt.match_range = static_cast<int>(env::GetInt(env::Var::NNVM_EXEC_MATCH_RANGE));
  popt.num_temp = static_cast<int>(env::GetInt(env::Var::MXNET_EXEC_NUM_TEMP));
  // Like NNVM, try match ranges 1, 2, 4, ... up to the setting and keep the smallest plan.
  plan_ = PlanMemory(g, shapes_, dtypes_, external, popt);
  for (int r = 1; r < popt.match_range; r *= 2) {
    PlanOptions o = popt;
    o.match_range = r;
    MemoryPlan p = PlanMemory(g, shapes_, dtypes_, external, o);
    if (p.planned_bytes < plan_.planned_bytes) plan_ = std::move(p);
  }

  // Blocks, reusing the shared executor's where one is large enough.
  std::vector<bool> lent(shared ? shared->blocks_.size() : 0, false);
  for (size_t b = 0; b < plan_.block_bytes.size(); ++b) {
    const int dt = plan_.block_dtype[b];
    const int64_t elems = static_cast<int64_t>((plan_.block_bytes[b] + DTypeSize(dt) - 1) / DTypeSize(dt));
    NDArray blk;
    for (size_t s = 0; shared && s < shared->blocks_.size(); ++s) {
      const NDArray& c = shared->blocks_[s];
      if (!lent[s] && c.dtype() == dt && c.Size() >= elems && c.ctx() == ctx) {
        lent[s] = true;
        blk = c;
        break;
      }
    }
    if (blk.is_none()) blk = NDArray(TShape{std::max<int64_t>(elems, 1)}, ctx, true, dt);
    blocks_.push_back(blk);
  }
  for (uint32_t e = 0; e < g.num_entries(); ++e) {
    const int sid = plan_.storage_id[e];
    if (sid < 0) continue;
    const int64_t n = shapes_[e].Size();
    const NDArray& blk = blocks_[sid];
    entries_[e] = n == 0 ? NDArray(shapes_[e], ctx, true, dtypes_[e])
                         : (n == blk.Size() ? blk.Reshape(shapes_[e]) : blk.Slice(0, n).Reshape(shapes_[e]));
  }
  for (size_t i = 0; i < num_outputs_; ++i) outputs_.push_back(entries_[g.entry_id(all[i])]);

  const bool training = !xs.empty();
  bulk_infer_ = env::GetBool(env::Var::MXNET_EXEC_BULK_EXEC_INFERENCE) ? static_cast<int>(g.num_nodes()) : 0;
  bulk_fwd_ = training ? BulkSetting(env::Var::MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD) : bulk_infer_;
  bulk_bwd_ = BulkSetting(env::Var::MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD);
  segment_.assign(g.num_nodes(), -1);
  int seg = 0, count = 0;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g.nodes()[nid]->is_variable()) continue;
    const int limit = nid < num_forward_nodes_ ? bulk_fwd_ : bulk_bwd_;
    if (nid == num_forward_nodes_ && count > 0) {
      ++seg;
      count = 0;
    }
    segment_[nid] = seg;
    if (++count >= std::max(limit, 1)) {
      ++seg;
      count = 0;
    }
  }
  DumpIfAsked();
}

void GraphExecutor::RunNodes(uint32_t begin, uint32_t end, bool is_train, int bulk) {
  ModeScope mode(is_train);
  const IndexedGraph& g = *graph_;
  Engine* engine = Engine::Get();
  struct SymbolicScope {  // the profiler files these ops under its symbolic mode bit
    bool prev{Engine::SetSymbolicPush(true)};
    ~SymbolicScope() { Engine::SetSymbolicPush(prev); }
  } symbolic;
  const int prev = engine->set_bulk_size(monitor_ ? 0 : std::max(bulk, 0));
  try {
    for (uint32_t nid = begin; nid < end; ++nid) {
      const Node& n = *g.nodes()[nid];
      if (n.is_variable()) continue;
      std::vector<NDArray*> ins, outs;
      for (const auto& in : n.inputs) ins.push_back(&entries_[g.entry_id(in)]);
      const uint32_t nout = g.num_outputs(nid);
      for (uint32_t o = 0; o < nout; ++o) outs.push_back(&entries_[g.entry_id(nid, o)]);
      if (monitor_ && monitor_all_) {
        const auto names = n.op()->InputNames(n.attrs);
        for (size_t i = 0; i < n.inputs.size(); ++i)
          monitor_(n.inputs[i].node->is_variable() ? n.inputs[i].node->attrs.name
                                                   : n.attrs.name + "_" + (i < names.size() ? names[i] : "input" + std::to_string(i)),
                   *ins[i]);
      }
      std::vector<bool> unused(nout);
      for (uint32_t o = 0; o < nout; ++o) {
        const uint32_t e = g.entry_id(nid, o);
        unused[o] = plan_.storage_id[e] >= 0 && entries_[e].Size() > 0 && readers_[e] == 0;
      }
      imperative::Invoke(ctx_, n.attrs, ins, outs, unused);
      if (monitor_)
        for (uint32_t o = 0; o < n.op()->NumVisibleOutputs(n.attrs); ++o) monitor_(OutputName(NodeEntry{g.nodes()[nid], o, 0}), *outs[o]);
    }
  } catch (...) {
    engine->set_bulk_size(0);
    engine->set_bulk_size(prev);
    throw;
  }
  engine->set_bulk_size(0);  // flushes the last segment
  engine->set_bulk_size(prev);
}

void GraphExecutor::Forward(bool is_train) { RunNodes(0, num_forward_nodes_, is_train, is_train ? bulk_fwd_ : bulk_infer_); }

void GraphExecutor::Backward(const std::vector<NDArray>& head_grads, bool is_train) {
  if (head_grad_vars_.empty()) return;  // nothing to differentiate (every grad_req null)
  const IndexedGraph& g = *graph_;
  MX_CHECK_KIND(head_grads.empty() || head_grads.size() == head_grad_vars_.size(), "ValueError")
      << "backward: " << head_grads.size() << " head gradients for " << head_grad_vars_.size() << " outputs";
  for (size_t i = 0; i < head_grad_vars_.size(); ++i) {
    // Gradients that ignore an output's head gradient (zero-gradient ops such as sign or
    // argmax, BatchNorm's mean/var outputs) leave its variable out of the graph.
    if (!g.has_node(head_grad_vars_[i].get())) continue;
    NDArray& dst = entries_[g.entry_id(NodeEntry{head_grad_vars_[i], 0, 0})];
    if (!head_grads.empty() && !head_grads[i].is_none()) {
      MX_CHECK_KIND(head_grads[i].shape() == dst.shape(), "ValueError")
          << "backward: head gradient " << i << " has shape " << head_grads[i].shape() << ", output "
          << OutputName(optimized_.outputs[i]) << " has shape " << dst.shape();
      CopyFromTo(head_grads[i], dst);
      ones_in_head_grads_ = false;
    } else if (!ones_in_head_grads_) {
      // A loss output's gradient ignores its head gradient; others get ones, as autograd does.
      NDArray like = dst.Detach(), tmp;
      std::vector<NDArray*> ins{&like}, outs{&tmp};
      imperative::Invoke(ctx_, op::MakeAttrs(op::Op::Get("ones_like"), {}), ins, outs);
      CopyFromTo(tmp, dst);
    }
  }
  ones_in_head_grads_ = head_grads.empty() || std::all_of(head_grads.begin(), head_grads.end(),
                                                          [](const NDArray& a) { return a.is_none(); });
  RunNodes(num_forward_nodes_, g.num_nodes(), is_train, bulk_bwd_);
  ModeScope mode(is_train);
  for (const auto& gc : grad_copies_) {
    NDArray& src = entries_[gc.entry];
    NDArray& dst = grads_[gc.arg];
    if (gc.add) {
      NDArray old = dst;
      std::vector<NDArray*> ins{&old, &src}, outs{&dst};
      imperative::Invoke(ctx_, op::MakeAttrs(op::Op::Get("elemwise_add"), {}), ins, outs);
    } else {
      CopyFromTo(src, dst);
    }
  }
}

void GraphExecutor::SetMonitor(MonitorCallback cb, bool monitor_all) {
  monitor_ = std::move(cb);
  monitor_all_ = monitor_all;
}

Symbol GraphExecutor::OptimizedSymbol() const { return optimized_.Copy(); }

}  // namespace graph
}  // namespace mxnet
