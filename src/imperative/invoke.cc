/*!
 * \file invoke.cc
 * \brief Imperative invoke: inference, output allocation, push to the engine, recording.
 */
#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "common/scratch_vector.h"
#include "mxnet/env.h"
#include "mxnet/imperative.h"
#include "operator/kernel_dispatch.h"

namespace mxnet {
namespace imperative {
namespace {

thread_local bool tls_recording = false;
thread_local bool tls_training = false;

Context ResolveContext(Context default_ctx, const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs) {
  if (!inputs.empty()) {
    const Context c = inputs[0]->ctx();
    // Host contexts (cpu(0), cpu(1), pinned, shared) are all plain memory: 1.x lets them mix,
    // and the op runs on the first input's. A GPU array must meet arrays on its own device.
    for (size_t i = 1; i < inputs.size(); ++i)
      MX_CHECK_KIND(inputs[i]->ctx() == c || (c.IsHostMemory() && inputs[i]->ctx().IsHostMemory()), "ValueError")
          << attrs.op->name << ": all inputs must be on the same device, got " << c.ToString() << " and "
          << inputs[i]->ctx().ToString() << " (input " << i << ")";
    return c;
  }
  auto it = attrs.dict.find("ctx");
  if (it == attrs.dict.end() || it->second.empty() || it->second == "None") return default_ctx;
  const std::string& s = it->second;  // "cpu(0)", "gpu(1)", "cpu_pinned(0)"
  const size_t lp = s.find('(');
  const std::string kind = s.substr(0, lp);
  const int id = lp == std::string::npos ? 0 : std::atoi(s.c_str() + lp + 1);
  if (kind == "cpu") return Context::CPU(id);
  if (kind == "gpu") return Context::GPU(id);
  if (kind == "cpu_pinned") return Context::CPUPinned(id);
  if (kind == "cpu_shared") return Context::CPUShared(id);
  MX_THROW("ValueError") << attrs.op->name << ": invalid ctx '" << s << "'";
  return default_ctx;
}

struct RandomState {
  uint64_t key{0};
  uint32_t launches{0};
};
std::mutex random_mu;
uint32_t global_seed = 0;
bool global_seed_set = false;
std::unordered_map<int64_t, RandomState>& RandomStates() {
  static auto* m = new std::unordered_map<int64_t, RandomState>();
  return *m;
}
/*!
 * \brief GPU scratch as 1.x keeps it: MXNET_GPU_TEMP_COPY grow-only blocks per device, handed
 *        out round-robin. A block is written by the op holding it (its engine var), so it never
 *        returns to the pool between ops and allocation stays off the GPU ops' path.
 */
struct GpuTempCopy {
  std::shared_ptr<op::TempSpace> space;
  engine::VarHandle var;
};
const GpuTempCopy& NextGpuTempCopy(int dev_id) {
  struct Device {
    std::vector<GpuTempCopy> copies;
    std::atomic<uint32_t> next{0};
  };
  static std::mutex mu;
  static auto* devices = new std::unordered_map<int, Device>();  // never freed: ops may outlive statics
  Device* d;
  {
    std::lock_guard<std::mutex> lk(mu);
    d = &(*devices)[dev_id];
    if (d->copies.empty()) {
      const int64_t n = std::max<int64_t>(1, env::GetInt(env::Var::MXNET_GPU_TEMP_COPY));
      for (int64_t i = 0; i < n; ++i) d->copies.push_back({std::make_shared<op::TempSpace>(), Engine::Get()->NewVariable()});
    }
  }
  return d->copies[d->next.fetch_add(1, std::memory_order_relaxed) % d->copies.size()];
}

int64_t CtxKey(Context c) { return (static_cast<int64_t>(c.dev_type) << 32) | static_cast<uint32_t>(c.dev_id); }
uint64_t KeyFor(uint32_t seed, Context c) {
  // Distinct devices seeded alike still get distinct streams.
  return (static_cast<uint64_t>(seed) << 32) ^ (static_cast<uint64_t>(CtxKey(c)) * 0x9E3779B97F4A7C15ull);
}

/*! \brief Infers the outputs' shapes and dtypes from the inputs and allocates the none ones. */
void InferOutputs(const op::NodeAttrs& attrs, Context ctx, const std::vector<NDArray*>& inputs,
                  const std::vector<NDArray*>& outputs) {
  const op::Op* op = attrs.op;
  const size_t nin = inputs.size(), nout = outputs.size();
  // Shapes and dtypes: inputs known, outputs known only when given.
  common::ScratchVector<TShape> ishape_buf, oshape_buf;
  common::ScratchVector<int> itype_buf, otype_buf;
  std::vector<TShape>& ishape = *ishape_buf;
  std::vector<TShape>& oshape = *oshape_buf;
  std::vector<int>& itype = *itype_buf;
  std::vector<int>& otype = *otype_buf;
  ishape.resize(nin);
  oshape.resize(nout);
  itype.resize(nin);
  otype.assign(nout, -1);
  for (size_t i = 0; i < nin; ++i) {
    ishape[i] = inputs[i]->shape();
    itype[i] = inputs[i]->dtype();
  }
  for (size_t i = 0; i < nout; ++i) {
    if (!outputs[i]->is_none()) {
      oshape[i] = outputs[i]->shape();
      otype[i] = outputs[i]->dtype();
    }
  }
  MX_CHECK_KIND(op->infer_shape && op->infer_type, "ValueError") << op->name << ": no shape/dtype inference";
  // Inference may only fill in outputs: an input it changes is a mismatch (checked against
  // the arrays themselves, so no copies of the lists are kept).
  auto input_shapes = [&] {
    std::vector<TShape> given(nin);
    for (size_t i = 0; i < nin; ++i) given[i] = inputs[i]->shape();
    return op::ShapesToString(given);
  };
  bool shape_ok = op->infer_shape(attrs, &ishape, &oshape);
  for (size_t i = 0; shape_ok && i < nin; ++i) shape_ok = ishape[i] == inputs[i]->shape();
  MX_CHECK_KIND(shape_ok, "ValueError") << op->name << ": cannot infer output shapes from input shapes "
                                        << input_shapes();
  for (size_t i = 0; i < nout; ++i)
    MX_CHECK_KIND(oshape[i].IsKnown(), "ValueError")
        << op->name << ": output " << i << " shape " << oshape[i] << " unknown for input shapes " << input_shapes();
  bool type_ok = op->infer_type(attrs, &itype, &otype);
  for (size_t i = 0; type_ok && i < nin; ++i) type_ok = itype[i] == inputs[i]->dtype();
  MX_CHECK_KIND(type_ok, "TypeError") << op->name << ": cannot infer output dtypes from the input dtypes";
  for (size_t i = 0; i < nout; ++i)
    if (outputs[i]->is_none()) *outputs[i] = NDArray(oshape[i], ctx, true, otype[i]);
}

}  // namespace

bool IsRecording() { return tls_recording; }
bool SetIsRecording(bool v) {
  std::swap(tls_recording, v);
  return v;
}
bool IsTraining() { return tls_training; }
bool SetIsTraining(bool v) {
  std::swap(tls_training, v);
  return v;
}

void RandomSeed(uint32_t seed) {
  std::lock_guard<std::mutex> lk(random_mu);
  global_seed = seed;
  global_seed_set = true;
  for (auto& kv : RandomStates()) {
    const Context c{static_cast<Context::DeviceType>(kv.first >> 32), static_cast<int32_t>(kv.first & 0xffffffff)};
    kv.second = RandomState{KeyFor(seed, c), 0};
  }
}

void RandomSeedContext(uint32_t seed, Context ctx) {
  std::lock_guard<std::mutex> lk(random_mu);
  RandomStates()[CtxKey(ctx)] = RandomState{KeyFor(seed, ctx), 0};
}

op::RandomStream NextRandomStream(Context ctx) {
  std::lock_guard<std::mutex> lk(random_mu);
  auto& states = RandomStates();
  auto it = states.find(CtxKey(ctx));
  if (it == states.end()) {
    // MXNet's default seed before any mx.random.seed call is fixed, so fresh processes agree.
    it = states.emplace(CtxKey(ctx), RandomState{KeyFor(global_seed_set ? global_seed : 0, ctx), 0}).first;
  }
  return op::RandomStream(it->second.key, it->second.launches++);
}

void Invoke(Context default_ctx, const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
            const std::vector<NDArray*>& outputs) {
  Invoke(default_ctx, attrs, inputs, outputs, {});
}

void Invoke(Context default_ctx, const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
            const std::vector<NDArray*>& outputs, const std::vector<bool>& unused) {
  Invoke(default_ctx, std::make_shared<const op::NodeAttrs>(attrs), inputs, outputs, unused);
}

void Invoke(Context default_ctx, std::shared_ptr<const op::NodeAttrs> shared_attrs, const std::vector<NDArray*>& inputs,
            const std::vector<NDArray*>& outputs, const std::vector<bool>& unused, bool planned) {
  const op::NodeAttrs& attrs = *shared_attrs;
  const op::Op* op = attrs.op;
  const uint32_t nin = op->NumInputs(attrs), nout = op->NumOutputs(attrs);
  MX_CHECK_KIND(inputs.size() == nin, "ValueError")
      << op->name << ": expected " << nin << " inputs, got " << inputs.size();
  MX_CHECK_KIND(outputs.size() == nout, "ValueError")
      << op->name << ": expected " << nout << " outputs, got " << outputs.size();
  for (size_t i = 0; i < nin; ++i)
    MX_CHECK_KIND(!inputs[i]->is_none(), "ValueError") << op->name << ": input " << i << " is an empty (none) array";
  const Context ctx = ResolveContext(default_ctx, attrs, inputs);
  const op::KernelList& kernels = op->Kernels(ctx.dev_type);
  MX_CHECK_KIND(!kernels.impls.empty(), "ValueError")
      << op->name << ": no kernel for " << ctx.ToString() << (ctx.dev_type == Context::kGPU ? " (built without CUDA)" : "");

  if (planned) {
    // A graph plan inferred every shape and allocated every output already.
    for (uint32_t i = 0; i < nout; ++i)
      MX_CHECK(!outputs[i]->is_none()) << op->name << ": a planned call without output " << i;
  } else {
    InferOutputs(attrs, ctx, inputs, outputs);
  }
  for (uint32_t i = 0; i < nout; ++i)
    MX_CHECK_KIND(outputs[i]->ctx() == ctx || (ctx.IsHostMemory() && outputs[i]->ctx().IsHostMemory()), "ValueError")
        << op->name << ": output " << i << " is on " << outputs[i]->ctx().ToString() << ", inputs on "
        << ctx.ToString();

  // An output sharing memory with an input the op does not declare in-place gets a
  // temporary and a copy back, so kernels never see unexpected aliasing.
  op::InplacePairs inplace = op->inplace_option ? op->inplace_option(attrs) : op::InplacePairs{};
  std::vector<NDArray> run_out(nout);
  std::vector<op::OpReqType> req(nout, op::kWriteTo);
  struct CopyBack {
    uint32_t output;
    NDArray temporary;  // what the op writes
    NDArray target;     // the caller's array
  };
  std::vector<CopyBack> copy_back;
  for (uint32_t o = 0; o < nout; ++o) {
    run_out[o] = *outputs[o];
    if (o < unused.size() && unused[o]) {
      req[o] = op::kNullOp;
      continue;
    }
    for (uint32_t i = 0; i < nin; ++i) {
      if (!inputs[i]->SameChunk(*outputs[o])) continue;
      const bool declared = std::find(inplace.begin(), inplace.end(), std::make_pair<int, int>(i, o)) != inplace.end();
      if (declared && inputs[i]->SameData(*outputs[o]) && inputs[i]->shape() == outputs[o]->shape()) {
        req[o] = op::kWriteInplace;
      } else {
        run_out[o] = NDArray(outputs[o]->shape(), ctx, true, outputs[o]->dtype());
        copy_back.push_back(CopyBack{o, run_out[o], *outputs[o]});
        req[o] = op::kWriteTo;
        break;
      }
    }
  }

  // Engine vars: writes = outputs + mutated inputs; reads = the other inputs. No var twice.
  std::vector<engine::VarHandle> writes, reads;
  writes.reserve(nout + 1);
  reads.reserve(nin);
  auto add_unique = [](std::vector<engine::VarHandle>* v, engine::VarHandle h) {
    if (std::find(v->begin(), v->end(), h) == v->end()) v->push_back(h);
  };
  for (auto& o : run_out) {
    o.CheckAndAlloc();
    add_unique(&writes, o.var());
  }
  if (op->mutate_inputs)
    for (uint32_t i : op->mutate_inputs(attrs)) add_unique(&writes, inputs[i]->var());
  for (auto* in : inputs)
    if (std::find(writes.begin(), writes.end(), in->var()) == writes.end()) add_unique(&reads, in->var());

  op::OpContext opctx;
  opctx.is_train = tls_training;
  if (op->resource_request) {
    for (const auto& r : op->resource_request(attrs)) {
      op::Resource res;
      res.type = r.type;
      res.ctx = ctx;
      if (r.type == op::ResourceRequest::kTempSpace) {
        if (ctx.dev_type == Context::kGPU) {
          const GpuTempCopy& copy = NextGpuTempCopy(ctx.dev_id);
          res.space = copy.space;
          add_unique(&writes, copy.var);  // ops holding the same block run one after another
        } else {
          res.space = std::make_shared<op::TempSpace>();
        }
      } else {
        res.random = NextRandomStream(ctx);
      }
      opctx.requested.push_back(std::move(res));
    }
  }
  std::vector<NDArray> in_copy(nin);
  for (uint32_t i = 0; i < nin; ++i) in_copy[i] = inputs[i]->Detach();
  const bool keep_layout = kernels.any_layouts;
  const Context::DeviceType dev = ctx.dev_type;
  // Inputs this op writes (mutate_inputs) lose their cached layout copies like outputs do.
  std::vector<bool> in_written(nin);
  for (uint32_t i = 0; i < nin; ++i)
    in_written[i] = std::find(writes.begin(), writes.end(), inputs[i]->var()) != writes.end();
  // The lists move into the pushed function: copying them cost an allocation each.
  Engine::Get()->PushSync(
      [op, dev, shared_attrs, opctx = std::move(opctx), in_copy = std::move(in_copy), run_out = std::move(run_out),
       req = std::move(req), keep_layout, in_written = std::move(in_written)](RunContext rctx) mutable {
        common::ScratchVector<TBlob> ib_buf, ob_buf;
        std::vector<TBlob>& ib = *ib_buf;
        std::vector<TBlob>& ob = *ob_buf;
        ib.resize(in_copy.size());
        ob.resize(run_out.size());
        // Ops that read backend (oneDNN blocked) layouts get their inputs unconverted; every
        // other kernel sees plain data. All kernels get the arrays through KernelArrays, so they
        // can keep cached layout copies of inputs they only read (data_for_read keeps those).
        // An input this op writes loses its cached copy (data()), unless it holds a layout the
        // op reads in place (a layout and a cached copy never coexist).
        for (size_t i = 0; i < in_copy.size(); ++i) {
          if (keep_layout)
            ib[i] = in_written[i] && !in_copy[i].opaque_layout() ? in_copy[i].data() : in_copy[i].data_keep_layout();
          else
            ib[i] = in_written[i] ? in_copy[i].data() : in_copy[i].data_for_read();
        }
        // An in-place output is also an input: converting it here would hide the input's layout
        // from the kernel. The kernel either installs a new layout or writes every element
        // plainly (after converting its inputs), so a layout still there afterwards is stale.
        // data() on the other outputs drops their cached copies, at run time: a reader pushed
        // earlier (which may still cache one) has finished by now, one pushed later has not started.
        // An output overwritten whole (kWriteTo) drops a layout left by an earlier occupant of
        // its memory (a graph's shared block) instead of converting data about to be replaced.
        common::ScratchVector<std::shared_ptr<const OpaqueLayout>> inplace_layout_buf;
        std::vector<std::shared_ptr<const OpaqueLayout>>& inplace_layout = *inplace_layout_buf;
        inplace_layout.resize(run_out.size());
        for (size_t i = 0; i < run_out.size(); ++i) {
          if (keep_layout && req[i] == op::kWriteInplace) inplace_layout[i] = run_out[i].opaque_layout();
          if (req[i] == op::kWriteTo && run_out[i].opaque_layout()) run_out[i].set_opaque_layout(nullptr);
          ob[i] = inplace_layout[i] ? run_out[i].data_keep_layout() : run_out[i].data();
        }
        opctx.run_ctx = rctx;
        {
          const KernelArrays arrays{&in_copy, &run_out, &ib, &ob, keep_layout};
          KernelArraysScope scope(&arrays);
          op::RunKernel(*op, dev, *shared_attrs, opctx, &ib, req, &ob);
        }
        for (size_t i = 0; i < run_out.size(); ++i) {
          if (inplace_layout[i] && run_out[i].opaque_layout() == inplace_layout[i])
            run_out[i].set_opaque_layout(nullptr);
          // Left blocked: the layout holds the data, its plain memory goes back to the pool.
          if (keep_layout && run_out[i].opaque_layout()) run_out[i].ReleasePlainMemory();
        }
      },
      ctx, reads, writes, FnProperty::kCompute, 0, op->name.c_str());
  // Outputs written through a temporary get their version from the copy below.
  for (uint32_t o = 0; o < nout; ++o) {
    bool through_temporary = false;
    for (const auto& cb : copy_back) through_temporary = through_temporary || cb.output == o;
    if (!through_temporary) outputs[o]->BumpVersion();
  }
  if (op->mutate_inputs)  // e.g. BatchNorm's moving statistics: written too, so counted too
    for (uint32_t i : op->mutate_inputs(attrs)) inputs[i]->BumpVersion();
  for (auto& cb : copy_back) {
    cb.temporary.BumpVersion();
    CopyFromTo(cb.temporary, cb.target);
  }

  if (tls_recording) RecordOp(attrs, inputs, outputs);
}

std::vector<NDArray> InvokeByName(const std::string& op_name, const std::vector<NDArray>& inputs,
                                  const std::unordered_map<std::string, std::string>& params) {
  const op::Op* op = op::Op::Get(op_name);
  auto dict = params;
  if (!op->key_var_num_args.empty() && !dict.count(op->key_var_num_args))
    dict[op->key_var_num_args] = std::to_string(inputs.size());
  op::NodeAttrs attrs = op::MakeAttrs(op, dict);
  std::vector<NDArray> ins = inputs, outs(op->NumOutputs(attrs));
  std::vector<NDArray*> ip, opp;
  for (auto& a : ins) ip.push_back(&a);
  for (auto& a : outs) opp.push_back(&a);
  Invoke(ins.empty() ? Context::CPU() : ins[0].ctx(), attrs, ip, opp);
  outs.resize(op->NumVisibleOutputs(attrs));
  return outs;
}

}  // namespace imperative
}  // namespace mxnet
