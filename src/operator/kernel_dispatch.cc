/*!
 * \file kernel_dispatch.cc
 * \brief Picks, caches, converts for, times and records kernel implementations (see kernel_dispatch.h).
 */
#include "operator/kernel_dispatch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace op {
namespace {

// ---- rules ------------------------------------------------------------------------------

struct Rules {
  std::string force_text, exclude_text;
  std::unordered_map<std::string, std::string> force_by_op;  // op -> implementation
  std::unordered_set<std::string> force_any;                 // implementations forced wherever present
  std::unordered_set<std::string> exclude;                   // names, tags and "Op:impl"
};

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss(text);
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::shared_ptr<const Rules> ParseRules(const std::string& force, const std::string& exclude) {
  auto r = std::make_shared<Rules>();
  r->force_text = force;
  r->exclude_text = exclude;
  for (const std::string& item : SplitList(force)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) {
      r->force_any.insert(item);
      continue;
    }
    const std::string op = item.substr(0, colon), impl = item.substr(colon + 1);
    MX_CHECK_KIND(!op.empty() && !impl.empty(), "ValueError")
        << "kernel rule '" << item << "': expected Op:implementation or an implementation name";
    const Op* found = Op::Find(op);
    MX_CHECK_KIND(found != nullptr, "ValueError") << "kernel rule '" << item << "': no operator named '" << op << "'";
    r->force_by_op[found->name] = impl;
  }
  for (const std::string& item : SplitList(exclude)) {
    MX_CHECK_KIND(item != kReferenceKernel && item.find(std::string(":") + kReferenceKernel) == std::string::npos,
                  "ValueError")
        << "kernel rule '" << item << "': the reference kernel cannot be excluded (force another one instead)";
    r->exclude.insert(item);
  }
  return r;
}

std::mutex rules_mu;
std::shared_ptr<const Rules> current_rules;  // guarded by rules_mu
std::atomic<uint64_t> rules_generation{1};
std::atomic<bool> any_force_by_op{false};

std::shared_ptr<const Rules> LoadRules() {
  std::lock_guard<std::mutex> lk(rules_mu);
  if (!current_rules) {
    current_rules = ParseRules(env::GetString(env::Var::MXNET_KERNEL_FORCE), env::GetString(env::Var::MXNET_KERNEL_EXCLUDE));
    any_force_by_op.store(!current_rules->force_by_op.empty());
  }
  return current_rules;
}

/*! \brief This thread's view of the rules, refreshed when they change. */
const Rules& ThreadRules(uint64_t generation) {
  thread_local std::shared_ptr<const Rules> rules;
  thread_local uint64_t seen = 0;
  if (seen != generation || !rules) {
    rules = LoadRules();
    seen = generation;
  }
  return *rules;
}

struct TagSwitch {
  std::string tag;
  std::function<bool()> enabled;
};
std::vector<TagSwitch>& TagSwitches() {
  static std::vector<TagSwitch> switches;
  return switches;
}

/*! \brief Bit i set: switch i excludes its tag now. */
uint64_t SwitchedOffMask() {
  uint64_t mask = 0;
  const auto& s = TagSwitches();
  for (size_t i = 0; i < s.size() && i < 64; ++i)
    if (!s[i].enabled()) mask |= uint64_t{1} << i;
  return mask;
}

bool Excluded(const Op& op, const KernelImpl& k, const Rules& rules, uint64_t off_mask) {
  if (k.name == kReferenceKernel) return false;
  const auto& s = TagSwitches();
  for (size_t i = 0; i < s.size() && i < 64; ++i)
    if ((off_mask >> i & 1) && (k.name == s[i].tag || k.HasTag(s[i].tag))) return true;
  if (rules.exclude.empty()) return false;
  if (rules.exclude.count(k.name) || rules.exclude.count(op.name + ":" + k.name)) return true;
  for (const std::string& t : k.tags)
    if (rules.exclude.count(t)) return true;
  return false;
}

// ---- describing a call ------------------------------------------------------------------

std::string ShapeText(const TShape& s) {
  std::string t;
  for (int i = 0; i < s.ndim(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t.empty() ? "scalar" : t;
}

std::string ProblemText(const KernelProblem& p) {
  std::string t = "in=";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    t += (i ? ";" : "") + ShapeText(p.inputs[i].shape_) + ":" + DTypeName(p.inputs[i].type_flag_) + ":";
    t += p.input_layouts[i] ? p.input_layouts[i]->Describe() : std::string("plain");
  }
  t += " out=";
  for (size_t i = 0; i < p.outputs.size(); ++i)
    t += (i ? ";" : "") + ShapeText(p.outputs[i].shape_) + ":" + DTypeName(p.outputs[i].type_flag_);
  t += std::string(" train=") + (p.ctx.is_train ? "1" : "0");
  return t;
}

std::string ListText(const KernelList& list) {
  std::string t;
  for (const KernelImpl* k : list.impls) t += (t.empty() ? "" : ", ") + k->name;
  return t;
}

// ---- choosing ---------------------------------------------------------------------------

const KernelImpl& Choose(const Op& op, Context::DeviceType dev, const KernelList& list, const KernelProblem& p,
                         const Rules& rules, uint64_t off_mask) {
  const std::string* forced = nullptr;
  auto f = rules.force_by_op.find(op.name);
  if (f != rules.force_by_op.end()) {
    forced = &f->second;
  } else if (!rules.force_any.empty()) {
    for (const KernelImpl* k : list.impls)
      if (rules.force_any.count(k->name)) forced = &k->name;
  }
  if (forced) {
    for (const KernelImpl* k : list.impls) {
      if (k->name != *forced) continue;
      MX_CHECK_KIND(!k->accepts || k->accepts(p), "ValueError")
          << op.name << ": forced kernel '" << *forced << "' does not accept this call (" << ProblemText(p) << ")";
      return *k;
    }
    MX_THROW("ValueError") << op.name << ": forced kernel '" << *forced << "' is not one of its "
                           << (dev == Context::kGPU ? "gpu" : "cpu") << " kernels (" << ListText(list) << ")";
  }
  for (const KernelImpl* k : list.impls)
    if (!Excluded(op, *k, rules, off_mask) && (!k->accepts || k->accepts(p)) && (!k->worth || k->worth(p))) return *k;
  MX_THROW("ValueError") << op.name << ": no kernel accepts this call (" << ProblemText(p) << "; kernels "
                         << ListText(list) << ", excluded: " << rules.exclude_text << ")";
  return *list.impls.back();  // not reached: the line above throws
}

void AppendBytes(std::string* key, const void* p, size_t n) { key->append(static_cast<const char*>(p), n); }
template <typename T>
void AppendValue(std::string* key, T v) {
  AppendBytes(key, &v, sizeof(v));
}

/*! \brief Everything a choice may depend on, as bytes, into *key (reused: no allocation per call). */
void ChoiceKey(const Op& op, Context::DeviceType dev, const KernelProblem& p, uint64_t off_mask, std::string* out) {
  std::string& key = *out;
  key.clear();
  AppendValue(&key, op.index);
  AppendValue(&key, static_cast<int>(dev));
  AppendValue(&key, off_mask);
  AppendValue(&key, p.ctx.is_train);
  for (OpReqType r : p.req) AppendValue(&key, static_cast<int8_t>(r));
  auto add_blob = [&key](const TBlob& b) {
    AppendValue(&key, b.type_flag_);
    AppendValue(&key, b.shape_.ndim());
    for (int i = 0; i < b.shape_.ndim(); ++i) AppendValue(&key, b.shape_[i]);
  };
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    add_blob(p.inputs[i]);
    if (p.input_layouts[i]) key += p.input_layouts[i]->Describe();
    key += '|';
  }
  for (const TBlob& b : p.outputs) add_blob(b);
  thread_local std::vector<const std::pair<const std::string, std::string>*> attrs;
  attrs.clear();
  for (const auto& kv : p.attrs.dict) attrs.push_back(&kv);
  std::sort(attrs.begin(), attrs.end(), [](auto* a, auto* b) { return a->first < b->first; });
  for (auto* kv : attrs) {
    key += kv->first;
    key += '=';
    key += kv->second;
    key += ';';
  }
}

/*! \brief The choice for p, from this thread's cache when the same call signature was seen. */
const KernelImpl& CachedChoice(const Op& op, Context::DeviceType dev, const KernelList& list, const KernelProblem& p) {
  const uint64_t generation = rules_generation.load(std::memory_order_acquire);
  const Rules& rules = ThreadRules(generation);
  const uint64_t off_mask = SwitchedOffMask();
  thread_local std::unordered_map<std::string, const KernelImpl*> cache;
  thread_local uint64_t cache_generation = 0;
  if (cache_generation != generation || cache.size() > 4096) {
    cache.clear();
    cache_generation = generation;
  }
  thread_local std::string key;
  ChoiceKey(op, dev, p, off_mask, &key);
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  const KernelImpl& k = Choose(op, dev, list, p, rules, off_mask);
  cache.emplace(key, &k);
  return k;
}

// ---- logging and tracing ----------------------------------------------------------------

std::atomic<bool> tracing{false};
std::mutex trace_mu;
std::vector<std::pair<std::string, std::string>> trace_records;  // guarded by trace_mu

void Record(const Op& op, const KernelImpl& k) {
  std::lock_guard<std::mutex> lk(trace_mu);
  if (tracing.load()) trace_records.emplace_back(op.name, k.name);
}

const KernelImpl& SelectFor(const Op& op, Context::DeviceType dev, const KernelList& list, const KernelProblem& p) {
  MX_CHECK_KIND(!list.impls.empty(), "ValueError") << op.name << ": no kernel for "
                                                   << (dev == Context::kGPU ? "gpu" : "cpu");
  static const bool env_rules_loaded [[maybe_unused]] = (LoadRules(), true);
  // The reference alone: nothing to choose, unless a rule names this op.
  if (list.impls.size() == 1 && list.impls[0]->name == kReferenceKernel &&
      !any_force_by_op.load(std::memory_order_relaxed))
    return *list.impls[0];
  if (!list.cache_choice) {  // predicates cheaper than a cache lookup
    const uint64_t generation = rules_generation.load(std::memory_order_acquire);
    return Choose(op, dev, list, p, ThreadRules(generation), SwitchedOffMask());
  }
  return CachedChoice(op, dev, list, p);
}

void Run(const Op& op, Context::DeviceType dev, const KernelImpl& k, const NodeAttrs& attrs, const OpContext& ctx,
         const KernelProblem& p) {
  const int64_t verbose = env::GetInt(env::Var::MXNET_KERNEL_VERBOSE);
  if (tracing.load(std::memory_order_relaxed)) Record(op, k);
  if (verbose <= 0) return k.compute(attrs, ctx, p.inputs, p.req, p.outputs);
  const std::string before = ProblemText(p);  // the inputs' layouts as the kernel saw them
  const auto t0 = std::chrono::steady_clock::now();
  k.compute(attrs, ctx, p.inputs, p.req, p.outputs);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "mxnet_kernel,exec,%s,%s,%s,%s,%.4f\n", dev == Context::kGPU ? "gpu" : "cpu", op.name.c_str(),
               k.name.c_str(), before.c_str(), ms);
}

/*! \brief Converts every input held in a backend layout to plain memory and repoints the kernel's blobs. */
void PlainInputs(const KernelArrays& k) {
  if (!k.inputs) return;
  for (const NDArray& a : *k.inputs) {
    if (!a.opaque_layout()) continue;
    a.MaterializePlain();
    auto fix = [&a](const std::vector<NDArray>* arrays, std::vector<TBlob>* blobs) {
      if (!arrays || !blobs) return;
      for (size_t j = 0; j < arrays->size() && j < blobs->size(); ++j)
        if ((*blobs)[j].dptr_ == nullptr && (*arrays)[j].SameChunk(a))
          (*blobs)[j].dptr_ = (*arrays)[j].data_keep_layout().dptr_;
    };
    fix(k.inputs, k.input_blobs);
    fix(k.outputs, k.output_blobs);
  }
}

}  // namespace

const KernelImpl& SelectKernel(const Op& op, Context::DeviceType dev, const KernelProblem& p) {
  return SelectFor(op, dev, op.Kernels(dev), p);
}

void RunKernel(const Op& op, Context::DeviceType dev, const NodeAttrs& attrs, const OpContext& ctx,
               std::vector<TBlob>* inputs, const std::vector<OpReqType>& req, std::vector<TBlob>* outputs) {
  const KernelList& list = op.Kernels(dev);
  const KernelArrays* arrays = KernelArrays::Current();
  const bool layouts = list.any_layouts && arrays && arrays->accepts_layouts && arrays->inputs &&
                       arrays->inputs->size() == inputs->size();
  // Reused per thread: the per-call path allocates nothing. A kernel calling RunKernelPlain gets its own.
  thread_local std::vector<const OpaqueLayout*> in_layouts;
  in_layouts.assign(inputs->size(), nullptr);
  if (layouts)
    for (size_t i = 0; i < inputs->size(); ++i) in_layouts[i] = (*arrays->inputs)[i].opaque_layout().get();
  const KernelProblem p{attrs, ctx, *inputs, req, *outputs, in_layouts};
  const KernelImpl& k = SelectFor(op, dev, list, p);
  if (layouts && k.layouts == KernelLayouts::kPlain) {
    PlainInputs(*arrays);
    std::fill(in_layouts.begin(), in_layouts.end(), nullptr);
  }
  Run(op, dev, k, attrs, ctx, p);
}

void RunKernelPlain(const Op& op, Context::DeviceType dev, const NodeAttrs& attrs, const OpContext& ctx,
                    const std::vector<TBlob>& inputs, const std::vector<OpReqType>& req,
                    const std::vector<TBlob>& outputs) {
  const KernelList& list = op.Kernels(dev);
  const std::vector<const OpaqueLayout*> in_layouts(inputs.size(), nullptr);
  const KernelProblem p{attrs, ctx, inputs, req, outputs, in_layouts};
  Run(op, dev, SelectFor(op, dev, list, p), attrs, ctx, p);
}

void SetKernelRules(const std::string& force, const std::string& exclude) {
  std::shared_ptr<const Rules> parsed = ParseRules(force, exclude);  // throws before changing anything
  std::lock_guard<std::mutex> lk(rules_mu);
  any_force_by_op.store(!parsed->force_by_op.empty());
  current_rules = std::move(parsed);
  rules_generation.fetch_add(1, std::memory_order_acq_rel);
}

std::pair<std::string, std::string> GetKernelRules() {
  std::shared_ptr<const Rules> r = LoadRules();
  return {r->force_text, r->exclude_text};
}

void RegisterKernelTagSwitch(const std::string& tag, std::function<bool()> enabled) {
  TagSwitches().push_back(TagSwitch{tag, std::move(enabled)});
}

void StartKernelTrace() {
  std::lock_guard<std::mutex> lk(trace_mu);
  trace_records.clear();
  tracing.store(true);
}

std::vector<std::pair<std::string, std::string>> StopKernelTrace() {
  std::lock_guard<std::mutex> lk(trace_mu);
  tracing.store(false);
  return std::move(trace_records);
}

}  // namespace op
}  // namespace mxnet
