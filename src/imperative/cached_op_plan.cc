/*!
 * \file cached_op_plan.cc
 * \brief Building a CachedOp plan, allocating a state and running a node range.
 */
#include "imperative/cached_op_plan.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "graph/cse.h"
#include "graph/gradient.h"
#include "graph/subgraph.h"
#include "mxnet/engine.h"
#include "mxnet/env.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {
namespace {

using graph::IndexedGraph;
using graph::NodeEntry;
using graph::NodePtr;

int BulkSetting(int flag, env::Var specific) {
  if (!env::GetBool(env::Var::MXNET_EXEC_BULK_EXEC_TRAIN)) return 0;
  if (flag >= 0) return flag;
  return static_cast<int>(env::IsSet(specific) ? env::GetInt(specific)
                                               : env::GetInt(env::Var::MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN));
}

std::string Unknown(const IndexedGraph& g, const std::vector<TShape>& shapes, const std::vector<int>& types) {
  std::ostringstream os;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const uint32_t e = g.entry_id(nid, 0);
    if (shapes[e].IsKnown() && types[e] >= 0) continue;
    const auto& n = *g.nodes()[nid];
    os << (n.is_variable() ? "input " : "output of ") << n.attrs.name;
    if (!n.is_variable()) os << " (" << n.op()->name << ")";
    os << ": shape " << shapes[e] << ", dtype " << types[e];
    return os.str();
  }
  return "";
}

}  // namespace

std::shared_ptr<CachedOpPlan> BuildCachedOpPlan(const graph::Symbol& sym, const CachedOpConfig& config,
                                                const PlanRequest& req) {
  auto plan = std::make_shared<CachedOpPlan>();
  plan->train = req.train;
  graph::Symbol s = sym.Copy();
  if (env::GetBool(env::Var::MXNET_ELIMINATE_COMMON_EXPR)) graph::EliminateCommonExpr(&s);
  const bool want_grad = std::find(req.grad.begin(), req.grad.end(), true) != req.grad.end();
  // Folding uses BatchNorm's running statistics and the fused ops have no gradient:
  // inference only.
  if (!req.train && !want_grad && req.ctx.dev_type == Context::kCPU) {
    const std::string backend = config.backend == "default" ? graph::DefaultInferenceBackend() : config.backend;
    plan->num_fused = graph::PartitionForInference(&s, backend);
  }
  const std::vector<NodePtr> inputs = s.ListInputs(graph::InputOption::kAll);
  MX_CHECK(inputs.size() == req.shapes.size()) << "CachedOp: the graph's inputs changed while planning";

  std::vector<NodeEntry> all = s.outputs;
  const size_t num_out = all.size();
  std::vector<NodeEntry> xs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (req.grad[i]) {
      plan->grad_inputs.push_back(i);
      xs.push_back(NodeEntry{inputs[i], 0, 0});
    }
  graph::GradientResult gr;
  if (!xs.empty()) {
    graph::GradientOptions gopt;
    gopt.sum_cap = static_cast<int>(env::GetInt(env::Var::MXNET_EXEC_INPLACE_GRAD_SUM_CAP));
    gopt.mirror = env::GetBool(env::Var::MXNET_BACKWARD_DO_MIRROR) || env::GetInt(env::Var::MXNET_MEMORY_OPT) > 0;
    gr = graph::BuildGradient(all, xs, gopt);
    all.insert(all.end(), gr.grads.begin(), gr.grads.end());
  }
  plan->num_forward_nodes = IndexedGraph(s.outputs).num_nodes();
  plan->graph = std::make_unique<IndexedGraph>(all);
  const IndexedGraph& g = *plan->graph;

  // Shapes and dtypes from the inputs; head gradients take their output's.
  plan->shapes.assign(g.num_entries(), TShape());
  plan->dtypes.assign(g.num_entries(), -1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const uint32_t e = g.entry_id(NodeEntry{inputs[i], 0, 0});
    plan->input_entries.push_back(e);
    plan->shapes[e] = req.shapes[i];
    plan->dtypes[e] = req.dtypes[i];
  }
  {
    IndexedGraph fwd(s.outputs);
    std::vector<TShape> fs(fwd.num_entries());
    std::vector<int> ft(fwd.num_entries(), -1);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const uint32_t e = fwd.entry_id(NodeEntry{inputs[i], 0, 0});
      fs[e] = req.shapes[i];
      ft[e] = req.dtypes[i];
    }
    graph::InferShapes(fwd, &fs);
    graph::InferTypes(fwd, &ft);
    for (size_t o = 0; o < gr.head_grads.size(); ++o) {
      if (!g.has_node(gr.head_grads[o].get())) continue;
      const uint32_t src = fwd.entry_id(s.outputs[o]);
      const uint32_t dst = g.entry_id(NodeEntry{gr.head_grads[o], 0, 0});
      plan->shapes[dst] = fs[src];
      plan->dtypes[dst] = ft[src];
    }
  }
  const size_t unknown_shapes = graph::InferShapes(g, &plan->shapes);
  const size_t unknown_types = graph::InferTypes(g, &plan->dtypes);
  if (unknown_shapes > 0 || unknown_types > 0)
    MX_THROW("ValueError") << "CachedOp: cannot infer every shape and dtype of the graph from its inputs; first "
                              "unknown: "
                           << Unknown(g, plan->shapes, plan->dtypes);

  // Entries from outside (inputs, head gradients) and entries handed out (outputs,
  // gradients) are not planned: the first are bound, the second allocated per call.
  std::vector<bool> external(g.num_entries(), false);
  plan->fresh.assign(g.num_entries(), false);
  for (uint32_t nid : g.input_nodes()) external[g.entry_id(nid, 0)] = true;
  std::unordered_set<uint32_t> seen;
  for (size_t o = 0; o < num_out; ++o) {
    const uint32_t e = g.entry_id(all[o]);
    plan->output_entries.push_back(e);
    const bool copy = external[e] || !seen.insert(e).second;
    plan->output_copy.push_back(copy);
    if (!copy) {
      plan->fresh[e] = true;
      external[e] = true;
    }
  }
  for (const NodeEntry& ge : gr.grads) {
    const uint32_t e = g.entry_id(ge);
    plan->grad_entries.push_back(e);
    if (!external[e]) {
      plan->fresh[e] = true;
      external[e] = true;
    }
  }
  plan->head_grad_entries.assign(num_out, -1);
  for (size_t o = 0; o < gr.head_grads.size(); ++o)
    if (g.has_node(gr.head_grads[o].get())) plan->head_grad_entries[o] = g.entry_id(NodeEntry{gr.head_grads[o], 0, 0});

  plan->readers.assign(g.num_entries(), 0);
  for (const auto& n : g.nodes())
    for (const auto& in : n->inputs) ++plan->readers[g.entry_id(in)];
  for (const auto& o : g.outputs()) ++plan->readers[g.entry_id(o)];

  // Entry ids per node, looked up once here rather than by hash on every call.
  plan->node_entries.resize(g.num_nodes());
  plan->input_count.resize(g.num_nodes());
  plan->unused_outputs.resize(g.num_nodes());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const auto& n = *g.nodes()[nid];
    if (n.is_variable()) continue;
    auto& ids = plan->node_entries[nid];
    for (const auto& in : n.inputs) ids.push_back(g.entry_id(in));
    plan->input_count[nid] = static_cast<uint32_t>(ids.size());
    for (uint32_t o = 0; o < g.num_outputs(nid); ++o) ids.push_back(g.entry_id(nid, o));
  }

  graph::PlanOptions popt;
  popt.enable_inplace = env::GetBool(env::Var::MXNET_EXEC_ENABLE_INPLACE);
  popt.match_range = static_cast<int>(env::GetInt(env::Var::NNVM_EXEC_MATCH_RANGE));
  popt.num_temp = static_cast<int>(env::GetInt(env::Var::MXNET_EXEC_NUM_TEMP));
  plan->memory = graph::PlanMemory(g, plan->shapes, plan->dtypes, external, popt);
  for (int r = 1; r < popt.match_range; r *= 2) {
    graph::PlanOptions o = popt;
    o.match_range = r;
    graph::MemoryPlan p = graph::PlanMemory(g, plan->shapes, plan->dtypes, external, o);
    if (p.planned_bytes < plan->memory.planned_bytes) plan->memory = std::move(p);
  }

  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g.nodes()[nid]->is_variable()) continue;
    auto& unused = plan->unused_outputs[nid];
    for (uint32_t o = 0; o < g.num_outputs(nid); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      unused.push_back(plan->memory.storage_id[e] >= 0 && plan->readers[e] == 0 && plan->shapes[e].Size() > 0);
    }
  }

  const int infer_bulk = env::GetBool(env::Var::MXNET_EXEC_BULK_EXEC_INFERENCE) ? static_cast<int>(g.num_nodes()) : 0;
  plan->bulk_forward = req.train || req.record
                           ? BulkSetting(config.forward_bulk_size, env::Var::MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD)
                           : (config.forward_bulk_size >= 0 ? config.forward_bulk_size : infer_bulk);
  plan->bulk_backward = BulkSetting(config.backward_bulk_size, env::Var::MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_BWD);
  return plan;
}

std::shared_ptr<CachedOpState> MakeState(std::shared_ptr<const CachedOpPlan> plan, Context ctx) {
  auto st = std::make_shared<CachedOpState>();
  st->plan = std::move(plan);
  st->ctx = ctx;
  return st;
}

void AllocateBlocks(CachedOpState* state) {
  const CachedOpPlan& plan = *state->plan;
  if (state->entries.empty()) state->entries.assign(plan.graph->num_entries(), NDArray());
  if (!state->blocks.empty()) return;
  for (size_t b = 0; b < plan.memory.block_bytes.size(); ++b) {
    const int dt = plan.memory.block_dtype[b];
    const int64_t elems = static_cast<int64_t>((plan.memory.block_bytes[b] + DTypeSize(dt) - 1) / DTypeSize(dt));
    state->blocks.emplace_back(TShape{std::max<int64_t>(elems, 1)}, state->ctx, true, dt);
  }
  for (uint32_t e = 0; e < plan.graph->num_entries(); ++e) {
    const int sid = plan.memory.storage_id[e];
    if (sid < 0) continue;
    const int64_t n = plan.shapes[e].Size();
    const NDArray& blk = state->blocks[sid];
    state->entries[e] = n == 0 ? NDArray(plan.shapes[e], state->ctx, true, plan.dtypes[e])
                               : (n == blk.Size() ? blk.Reshape(plan.shapes[e])
                                                  : blk.Slice(0, n).Reshape(plan.shapes[e]));
  }
}

void ReleaseExternal(CachedOpState* state) {
  const auto& ids = state->plan->memory.storage_id;
  for (size_t e = 0; e < state->entries.size(); ++e)
    if (ids[e] < 0) state->entries[e] = NDArray();
}

void RunPlanNodes(const CachedOpPlan& plan, CachedOpState* state, uint32_t begin, uint32_t end, bool train, int bulk,
                  const std::vector<bool>* bound) {
  const IndexedGraph& g = *plan.graph;
  const bool rec = SetIsRecording(false), was_train = SetIsTraining(train);
  const bool symbolic = Engine::SetSymbolicPush(true);  // the profiler files these under its symbolic bit
  Engine* engine = Engine::Get();
  const int prev = engine->set_bulk_size(std::max(bulk, 0));
  auto restore = [&] {
    engine->set_bulk_size(0);  // flushes the last segment
    engine->set_bulk_size(prev);
    Engine::SetSymbolicPush(symbolic);
    SetIsTraining(was_train);
    SetIsRecording(rec);
  };
  try {
    std::vector<NDArray>& entries = state->entries;
    std::vector<NDArray*> ins, outs;
    for (uint32_t nid = begin; nid < end; ++nid) {
      const graph::Node& n = *g.nodes()[nid];
      if (n.is_variable()) continue;
      const std::vector<uint32_t>& ids = plan.node_entries[nid];
      const uint32_t nin = plan.input_count[nid];
      ins.clear();
      outs.clear();
      for (uint32_t k = 0; k < nin; ++k) ins.push_back(&entries[ids[k]]);
      for (uint32_t k = nin; k < ids.size(); ++k) {
        const uint32_t e = ids[k];
        NDArray& arr = entries[e];
        if (plan.fresh[e] && !(bound && (*bound)[e])) arr = NDArray(plan.shapes[e], state->ctx, true, plan.dtypes[e]);
        outs.push_back(&arr);
      }
      // The plan's node outlives the pushed kernel through this alias: no copy of its attrs.
      Invoke(state->ctx, std::shared_ptr<const op::NodeAttrs>(g.nodes()[nid], &n.attrs), ins, outs,
             plan.unused_outputs[nid], true);
    }
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

}  // namespace imperative
}  // namespace mxnet
