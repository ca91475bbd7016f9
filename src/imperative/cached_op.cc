/*!
 * \file cached_op.cc
 * \brief CachedOp: flags, the bounded plan cache, forward, and the recorded node whose
 *        gradient runs the plan's backward part.
 */
#include "imperative/cached_op.h"

#include <algorithm>
#include <sstream>

#include "imperative/autograd_info.h"
#include "imperative/cached_op_plan.h"
#include "mxnet/env.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace imperative {
namespace {

bool ParseBool(const std::string& key, const std::string& v) {
  std::string s = v;
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  if (s == "1" || s == "true") return true;
  if (s == "0" || s == "false") return false;
  MX_THROW("ValueError") << "CachedOp: flag " << key << " must be True or False, got '" << v << "'";
  return false;
}

int ParseInt(const std::string& key, const std::string& v, int lowest) {
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  MX_CHECK_KIND(!v.empty() && *end == '\0' && x >= lowest, "ValueError")
      << "CachedOp: flag " << key << " must be an integer >= " << lowest << ", got '" << v << "'";
  return static_cast<int>(x);
}

std::vector<uint32_t> ParseIndices(const std::string& key, const std::string& v) {
  std::vector<uint32_t> out;
  std::string digits;
  for (char c : v + ",") {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits.push_back(c);
    } else if (c == ',' || c == ']' || c == ')' || c == ' ' || c == '[' || c == '(' || c == 'L') {
      if (!digits.empty()) out.push_back(static_cast<uint32_t>(std::stoul(digits)));
      digits.clear();
    } else {
      MX_THROW("ValueError") << "CachedOp: flag " << key << " must be a list of input indices, got '" << v << "'";
    }
  }
  return out;
}

/*! \brief What a recorded CachedOp call keeps for its backward. */
struct CachedOpCall {
  CachedOpPtr op;
  std::shared_ptr<CachedOpState> state;
  uint64_t generation{0};
  uint32_t num_inputs{0}, num_outputs{0};
  /*! \brief Frees a static state for other calls once the recorded node is gone. */
  struct Lease {
    Lease(std::shared_ptr<CachedOpState> s, uint64_t g) : state(std::move(s)), generation(g) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    std::shared_ptr<CachedOpState> state;
    uint64_t generation;
    ~Lease() {
      std::lock_guard<std::mutex> lk(state->mu);
      if (state->generation == generation) state->busy = false;
    }
  };
  std::shared_ptr<Lease> lease;
};

}  // namespace

CachedOpConfig CachedOpConfig::Parse(const std::vector<std::pair<std::string, std::string>>& flags) {
  CachedOpConfig c;
  for (const auto& kv : flags) {
    const std::string& k = kv.first;
    if (k == "static_alloc") c.static_alloc = ParseBool(k, kv.second);
    else if (k == "static_shape") c.static_shape = ParseBool(k, kv.second);
    else if (k == "inline_limit") c.inline_limit = ParseInt(k, kv.second, 0);
    else if (k == "forward_bulk_size") c.forward_bulk_size = ParseInt(k, kv.second, 0);
    else if (k == "backward_bulk_size") c.backward_bulk_size = ParseInt(k, kv.second, 0);
    else if (k == "data_indices") c.data_indices = ParseIndices(k, kv.second);
    else if (k == "param_indices") c.param_indices = ParseIndices(k, kv.second);
    else if (k == "backend" || k == "subgraph") c.backend = kv.second.empty() ? "default" : kv.second;
    else if (k == "is_dynamic") ParseBool(k, kv.second);  // every call is checked against its plan anyway
    else
      MX_THROW("ValueError") << "CachedOp: unknown flag '" << k
                             << "' (known: static_alloc, static_shape, inline_limit, forward_bulk_size, "
                                "backward_bulk_size, data_indices, param_indices, backend)";
  }
  MX_CHECK_KIND(!c.static_shape || c.static_alloc, "ValueError") << "static_alloc must be True when static_shape is True";
  return c;
}

CachedOp::CachedOp(const graph::Symbol& sym, const CachedOpConfig& config) : symbol_(sym.Copy()), config_(config) {
  MX_CHECK_KIND(!symbol_.outputs.empty(), "ValueError") << "CachedOp: the symbol has no outputs";
  input_nodes_ = symbol_.ListInputs(graph::InputOption::kAll);
  const auto aux = symbol_.ListInputs(graph::InputOption::kAuxiliaryStates);
  for (const auto& n : input_nodes_) mutated_.push_back(std::find(aux.begin(), aux.end(), n) != aux.end());
  for (const auto& n : symbol_.TopoNodes()) num_op_nodes_ += n->is_variable() ? 0 : 1;
  const size_t nin = input_nodes_.size();
  if (!config_.data_indices.empty() || !config_.param_indices.empty()) {
    std::vector<int> covered(nin, 0);
    for (auto* list : {&config_.data_indices, &config_.param_indices})
      for (uint32_t i : *list) {
        MX_CHECK_KIND(i < nin, "ValueError")
            << "CachedOp: input index " << i << " in data_indices/param_indices, the symbol has " << nin << " inputs";
        ++covered[i];
      }
    for (size_t i = 0; i < nin; ++i)
      MX_CHECK_KIND(covered[i] == 1, "ValueError")
          << "CachedOp: data_indices and param_indices must name every input exactly once; input " << i << " ("
          << input_nodes_[i]->attrs.name << ") is named " << covered[i] << " times";
  }
}

size_t CachedOp::num_plans() const {
  std::lock_guard<std::mutex> lk(mu_);
  return plans_.size();
}

CachedOp::Key CachedOp::MakeKey(const std::vector<NDArray*>& inputs, bool record) const {
  Key k;
  k.ctx = inputs.empty() ? Context::CPU() : inputs[0]->ctx();
  k.train = IsTraining();
  k.record = record;
  k.shapes.reserve(inputs.size());
  k.dtypes.reserve(inputs.size());
  k.grad.assign(inputs.size(), false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray& a = *inputs[i];
    MX_CHECK_KIND(a.ctx() == k.ctx, "ValueError")
        << "CachedOp: all inputs must be on one device; input 0 is on " << k.ctx.ToString() << ", input " << i << " ("
        << input_nodes_[i]->attrs.name << ") on " << a.ctx().ToString();
    k.shapes.push_back(a.shape());
    k.dtypes.push_back(a.dtype());
    k.grad[i] = record && !mutated_[i] && a.entry().node != nullptr;
  }
  return k;
}

CachedOp::Cached* CachedOp::Lookup(const Key& key) {
  for (auto it = plans_.begin(); it != plans_.end(); ++it) {
    if (!(it->key == key)) continue;
    if (it != plans_.begin()) plans_.splice(plans_.begin(), plans_, it);
    return &plans_.front();
  }
  PlanRequest req;
  req.ctx = key.ctx;
  req.train = key.train;
  req.record = key.record;
  req.shapes = key.shapes;
  req.dtypes = key.dtypes;
  req.grad = key.grad;
  Cached c;
  c.key = key;
  c.plan = BuildCachedOpPlan(symbol_, config_, req);
  plans_.push_front(std::move(c));
  const size_t cap = static_cast<size_t>(std::max<int64_t>(1, env::GetInt(env::Var::MXNET_CACHEDOP_MAX_PLANS)));
  while (plans_.size() > cap) plans_.pop_back();
  return &plans_.front();
}

void CachedOp::Forward(const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs) {
  MX_CHECK_KIND(inputs.size() == num_inputs(), "ValueError")
      << "CachedOp: expected " << num_inputs() << " inputs, got " << inputs.size();
  MX_CHECK_KIND(outputs.size() == num_outputs(), "ValueError")
      << "CachedOp: expected " << num_outputs() << " outputs, got " << outputs.size();
  for (size_t i = 0; i < inputs.size(); ++i)
    MX_CHECK_KIND(inputs[i] && !inputs[i]->is_none(), "ValueError")
        << "CachedOp: input " << i << " (" << input_nodes_[i]->attrs.name << ") is empty";
  const bool record = IsRecording();
  const Context ctx = inputs.empty() ? Context::CPU() : inputs[0]->ctx();
  if (record && !config_.static_alloc && num_op_nodes_ <= static_cast<size_t>(config_.inline_limit)) {
    ForwardInlined(inputs, outputs, ctx);
    return;
  }
  const Key key = MakeKey(inputs, record);
  std::shared_ptr<const CachedOpPlan> plan;
  std::shared_ptr<CachedOpState> state;
  {
    std::lock_guard<std::mutex> lk(mu_);
    Cached* c = Lookup(key);
    plan = c->plan;
    last_num_fused_ = plan->num_fused;
    if (config_.static_alloc) {
      if (!c->static_state) c->static_state = MakeState(plan, ctx);
      bool idle = false;
      if (c->static_state->busy.compare_exchange_strong(idle, record)) state = c->static_state;
    }
  }
  if (!state) state = MakeState(plan, ctx);  // per call, or a static one still held by the tape
  std::unique_lock<std::mutex> pushing(state->mu);
  AllocateBlocks(state.get());
  for (size_t i = 0; i < inputs.size(); ++i) state->entries[plan->input_entries[i]] = inputs[i]->Detach();
  const uint64_t generation = ++state->generation;
  RunPlanNodes(*plan, state.get(), 0, plan->num_forward_nodes, key.train, plan->bulk_forward);
  for (size_t o = 0; o < outputs.size(); ++o) {
    const NDArray& v = state->entries[plan->output_entries[o]];
    if (plan->output_copy[o]) {
      NDArray copy(v.shape(), ctx, true, v.dtype());
      CopyFromTo(v, copy);
      if (outputs[o]->is_none()) *outputs[o] = copy;
      else CopyFromTo(copy, *outputs[o]);
    } else if (outputs[o]->is_none()) {
      *outputs[o] = v;
    } else {
      CopyFromTo(v, *outputs[o]);
    }
  }
  // An inference call keeps nothing of the caller's; a recorded one keeps its arrays for backward.
  if (config_.static_alloc && !record) ReleaseExternal(state.get());
  pushing.unlock();
  if (!record) return;

  CachedOpCall call;
  call.op = shared_from_this();
  call.state = state;
  call.generation = generation;
  call.num_inputs = static_cast<uint32_t>(inputs.size());
  call.num_outputs = static_cast<uint32_t>(outputs.size());
  if (state->busy) call.lease = std::make_shared<CachedOpCall::Lease>(state, generation);
  op::NodeAttrs attrs;
  attrs.op = op::Op::Get("_CachedOp");
  attrs.name = "_cachedop";
  attrs.parsed = call;
  RecordOp(attrs, inputs, outputs);
}

void CachedOp::ForwardInlined(const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs, Context ctx) {
  // Small graphs under autograd: the tape records the inner ops, as if run one by one.
  const graph::IndexedGraph g(symbol_.outputs);
  std::vector<NDArray> entries(g.num_entries());
  for (size_t i = 0; i < inputs.size(); ++i) entries[g.entry_id(graph::NodeEntry{input_nodes_[i], 0, 0})] = *inputs[i];
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const graph::Node& n = *g.nodes()[nid];
    if (n.is_variable()) continue;
    std::vector<NDArray*> ins, outs;
    for (const auto& in : n.inputs) ins.push_back(&entries[g.entry_id(in)]);
    for (uint32_t o = 0; o < g.num_outputs(nid); ++o) outs.push_back(&entries[g.entry_id(nid, o)]);
    Invoke(ctx, n.attrs, ins, outs);
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const NDArray& v = entries[g.entry_id(symbol_.outputs[o])];
    if (outputs[o]->is_none() && !v.entry().node->is_variable()) {
      *outputs[o] = v;
    } else {
      NDArray src = v;
      std::vector<NDArray*> ins{&src}, outs{outputs[o]};
      Invoke(ctx, op::MakeAttrs(op::Op::Get("_copy"), {}), ins, outs);
    }
  }
}

std::vector<NDArray> CachedOpBackward(const op::NodeAttrs& attrs, const std::vector<NDArray>& ograds,
                                      const std::vector<NDArray>& into, bool retain, bool create_graph) {
  const auto& call = attrs.get<CachedOpCall>();
  MX_CHECK_KIND(!create_graph, "MXNetError")
      << "A hybridized block (CachedOp) does not support higher order gradients; call hybridize(False) on the block, "
         "or hybridize(inline_limit=N) with N at least its number of ops, to record its ops one by one";
  CachedOpState& st = *call.state;
  const CachedOpPlan& plan = *st.plan;
  std::lock_guard<std::mutex> lk(st.mu);
  MX_CHECK_KIND(!st.entries.empty() && st.generation == call.generation, "MXNetError")
      << "backward: the hybridized block's saved values for this graph were released (by an earlier backward "
         "without retain_graph=True) or overwritten by a later call; pass retain_graph=True to the first backward";
  for (size_t o = 0; o < plan.head_grad_entries.size(); ++o) {
    if (plan.head_grad_entries[o] < 0) continue;
    const NDArray& hg = ograds.at(o);
    const uint32_t e = static_cast<uint32_t>(plan.head_grad_entries[o]);
    MX_CHECK_KIND(hg.shape() == plan.shapes[e], "ValueError")
        << "backward: head gradient " << o << " has shape " << hg.shape() << ", the output has " << plan.shapes[e];
    st.entries[e] = hg.Detach();
  }
  // A gradient the plan computes into a fresh array goes straight into the caller's buffer
  // when it fits (the tape passes a variable's kWriteTo gradient buffer): no copy afterwards.
  std::vector<bool> direct(plan.graph->num_entries(), false);
  for (size_t k = 0; k < plan.grad_inputs.size(); ++k) {
    const NDArray& dst = into.at(plan.grad_inputs[k]);
    const uint32_t e = plan.grad_entries[k];
    if (!dst.is_none() && plan.fresh[e] && !direct[e] && dst.shape() == plan.shapes[e] &&
        dst.dtype() == plan.dtypes[e] && dst.ctx() == st.ctx) {
      st.entries[e] = dst;
      direct[e] = true;
    }
  }
  RunPlanNodes(plan, &st, plan.num_forward_nodes, plan.graph->num_nodes(), IsTraining(), plan.bulk_backward,
               &direct);
  std::vector<NDArray> igrads(call.num_inputs);
  for (size_t k = 0; k < plan.grad_inputs.size(); ++k) igrads[plan.grad_inputs[k]] = st.entries[plan.grad_entries[k]];
  if (!retain) {
    if (call.op->config().static_alloc) {
      ReleaseExternal(&st);
      st.busy = false;
    } else {
      st.entries.clear();
      st.blocks.clear();
    }
  }
  return igrads;
}

namespace {
uint32_t CallNumIn(const op::NodeAttrs& a) { return a.get<CachedOpCall>().num_inputs; }
uint32_t CallNumOut(const op::NodeAttrs& a) { return a.get<CachedOpCall>().num_outputs; }
}  // namespace

MXNET_REGISTER_OP(_CachedOp)
    .describe("A recorded call of a CachedOp (a hybridized block); not callable directly.")
    .set_num_inputs(CallNumIn)
    .set_num_outputs(CallNumOut)
    .set_gradient([](const op::NodePtr& n, const std::vector<op::NodeEntry>& ograds) {
      auto bwd = op::Node::Create();
      bwd->attrs.op = op::Op::Get("_backward_CachedOp");
      bwd->attrs.name = n->attrs.name + "_backward";
      bwd->attrs.parsed = n->attrs.parsed;
      bwd->inputs = ograds;
      std::vector<op::NodeEntry> out;
      for (uint32_t i = 0; i < CallNumIn(n->attrs); ++i) out.push_back(op::NodeEntry{bwd, i, 0});
      return out;
    });

MXNET_REGISTER_OP(_backward_CachedOp)
    .describe("Backward of a recorded CachedOp call; runs the gradient part of its plan.")
    .set_num_inputs(CallNumOut)
    .set_num_outputs(CallNumIn);

}  // namespace imperative
}  // namespace mxnet
