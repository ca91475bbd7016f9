/*!
 * \file c_api_kernels.cc
 * \brief Kernel lists from outside: the implementations of an op, the force / exclude rules
 *        (mx.kernels.force / exclude), and a trace of which implementation each call ran.
 */
#include <string>
#include <utility>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/op.h"
#include "operator/kernel_dispatch.h"

namespace {
struct ImplNamesTag {};
struct ImplTagsTag {};
struct RulesTag {};
struct TraceTag {};
struct TraceImplsTag {};

/*! \brief Points *out at c-strings of `strings`, kept in thread-local storage of Tag. */
template <typename Tag>
void ReturnStrings(std::vector<std::string> strings, const char*** out) {
  auto& kept = mxnet::capi::ThreadLocalReturn<Tag, std::vector<std::string>>();
  auto& ptrs = mxnet::capi::ThreadLocalReturn<Tag, std::vector<const char*>>();
  kept = std::move(strings);
  ptrs.clear();
  for (const std::string& s : kept) ptrs.push_back(s.c_str());
  *out = ptrs.data();
}

mxnet::Context::DeviceType DeviceOf(int dev_type) {
  MX_CHECK_KIND(dev_type == mxnet::Context::kCPU || dev_type == mxnet::Context::kGPU, "ValueError")
      << "device type " << dev_type << " has no kernel lists (1 = cpu, 2 = gpu)";
  return static_cast<mxnet::Context::DeviceType>(dev_type);
}
}  // namespace

int MXKernelListImplementations(const char* op_name, int dev_type, mx_uint* out_size, const char*** out_names,
                                const char*** out_tags) {
  API_BEGIN();
  MX_CHECK_KIND(op_name != nullptr, "ValueError") << "MXKernelListImplementations: op name is NULL";
  const mxnet::op::Op* op = mxnet::op::Op::Get(op_name);
  std::vector<std::string> names, tags;
  for (const mxnet::op::KernelImpl* k : op->Kernels(DeviceOf(dev_type)).impls) {
    names.push_back(k->name);
    std::string t;
    for (const std::string& tag : k->tags) t += (t.empty() ? "" : ",") + tag;
    tags.push_back(t);
  }
  *out_size = static_cast<mx_uint>(names.size());
  ReturnStrings<ImplNamesTag>(std::move(names), out_names);
  ReturnStrings<ImplTagsTag>(std::move(tags), out_tags);
  API_END();
}

int MXKernelSetRules(const char* force, const char* exclude) {
  API_BEGIN();
  mxnet::op::SetKernelRules(force ? force : "", exclude ? exclude : "");
  API_END();
}

int MXKernelGetRules(const char** force, const char** exclude) {
  API_BEGIN();
  auto rules = mxnet::op::GetKernelRules();
  const char** out = nullptr;
  ReturnStrings<RulesTag>({rules.first, rules.second}, &out);
  *force = out[0];
  *exclude = out[1];
  API_END();
}

int MXKernelTraceStart() {
  API_BEGIN();
  mxnet::op::StartKernelTrace();
  API_END();
}

int MXKernelTraceStop(mx_uint* out_size, const char*** out_ops, const char*** out_impls) {
  API_BEGIN();
  std::vector<std::string> ops, impls;
  for (auto& r : mxnet::op::StopKernelTrace()) {
    ops.push_back(std::move(r.first));
    impls.push_back(std::move(r.second));
  }
  *out_size = static_cast<mx_uint>(ops.size());
  ReturnStrings<TraceTag>(std::move(ops), out_ops);
  ReturnStrings<TraceImplsTag>(std::move(impls), out_impls);
  API_END();
}
