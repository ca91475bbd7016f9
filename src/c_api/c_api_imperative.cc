/*!
 * \file c_api_imperative.cc
 * \brief Operator listing and documentation, and MXImperativeInvoke.
 */
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "c_api/api_guard.h"
#include "common/scratch_vector.h"
#include "mxnet/c_api.h"
#include "mxnet/imperative.h"

using mxnet::NDArray;
using mxnet::op::Op;

namespace {
struct NamesTag {};
struct CreatorsTag {};
struct InfoTag {};
struct OutputsTag {};

const Op* AsOp(AtomicSymbolCreator c) {
  MX_CHECK_KIND(c != nullptr, "ValueError") << "operator handle is NULL";
  return static_cast<const Op*>(c);
}

int ListNames(mx_uint* out_size, const char*** out_array) {
  auto& names = mxnet::capi::ThreadLocalReturn<NamesTag, std::vector<std::string>>();
  auto& ptrs = mxnet::capi::ThreadLocalReturn<NamesTag, std::vector<const char*>>();
  names = mxnet::op::OpRegistry::Get()->ListAllNames();
  ptrs.clear();
  for (const auto& n : names) ptrs.push_back(n.c_str());
  *out_size = static_cast<mx_uint>(ptrs.size());
  *out_array = ptrs.data();
  return 0;
}
}  // namespace

int MXListAllOpNames(mx_uint* out_size, const char*** out_array) {
  API_BEGIN();
  ListNames(out_size, out_array);
  API_END();
}

int NNListAllOpNames(mx_uint* out_size, const char*** out_array) {
  API_BEGIN();
  ListNames(out_size, out_array);
  API_END();
}

int NNGetOpHandle(const char* op_name, OpHandle* op_out) {
  API_BEGIN();
  MX_CHECK_KIND(op_name != nullptr, "ValueError") << "NNGetOpHandle: name is NULL";
  *op_out = const_cast<Op*>(Op::Get(op_name));
  API_END();
}

int MXSymbolListAtomicSymbolCreators(mx_uint* out_size, AtomicSymbolCreator** out_array) {
  API_BEGIN();
  auto& v = mxnet::capi::ThreadLocalReturn<CreatorsTag, std::vector<AtomicSymbolCreator>>();
  v.clear();
  for (const Op* op : mxnet::op::OpRegistry::Get()->List()) v.push_back(op);
  *out_size = static_cast<mx_uint>(v.size());
  *out_array = v.data();
  API_END();
}

int MXSymbolGetAtomicSymbolName(AtomicSymbolCreator creator, const char** name) {
  API_BEGIN();
  *name = AsOp(creator)->name.c_str();
  API_END();
}

int MXSymbolGetAtomicSymbolInfo(AtomicSymbolCreator creator, const char** name, const char** description,
                                mx_uint* num_args, const char*** arg_names, const char*** arg_type_infos,
                                const char*** arg_descriptions, const char** key_var_num_args,
                                const char** return_type) {
  API_BEGIN();
  const Op* op = AsOp(creator);
  auto& bufs = mxnet::capi::ThreadLocalReturn<InfoTag, std::vector<std::vector<const char*>>>();
  bufs.assign(3, {});
  for (const auto& a : op->arguments) {
    bufs[0].push_back(a.name.c_str());
    bufs[1].push_back(a.type_info.c_str());
    bufs[2].push_back(a.description.c_str());
  }
  *name = op->name.c_str();
  *description = op->description.c_str();
  *num_args = static_cast<mx_uint>(op->arguments.size());
  *arg_names = bufs[0].data();
  *arg_type_infos = bufs[1].data();
  *arg_descriptions = bufs[2].data();
  *key_var_num_args = op->key_var_num_args.c_str();
  if (return_type) *return_type = "";
  API_END();
}

/*!
 * \brief The op's attributes parsed from the call's parameter strings, remembered per thread:
 *        a training loop repeats the same few calls, and parsing (string streams per field)
 *        was the larger part of an op call's cost in the library.
 */
namespace {
/*!
 * \brief An op without a parameter parser takes no parameters: a keyword it is called with is
 *        a mistake (a typo, a parameter of another op) that would otherwise vanish silently.
 *        Attributes ("__layout__" and the like, name, attr), the input count of a variadic op
 *        and the context the front end adds to calls without inputs are not parameters.
 */
void RejectUnknownKeywords(const Op* op, const std::unordered_map<std::string, std::string>& dict) {
  for (const auto& kv : dict) {
    const std::string& key = kv.first;
    if (key.compare(0, 2, "__") == 0 || key == "ctx" || key == "name" || key == "attr" || key == op->key_var_num_args)
      continue;
    bool is_input = false;
    for (const auto& a : op->arguments) is_input = is_input || a.name == key;
    MX_CHECK_KIND(!is_input, "TypeError") << op->name << ": input '" << key << "' must be an array, not a parameter";
    MX_THROW("TypeError") << op->name << " got an unexpected keyword argument '" << key
                          << "' (this operator takes no parameters)";
  }
}

std::shared_ptr<const mxnet::op::NodeAttrs> ParsedAttrs(const Op* op, int num_inputs, int num_params, const char** keys,
                                                        const char** vals) {
  // Shared, not referenced: an op run inside this call may call back in (a custom op) and
  // clear the cache.
  thread_local std::unordered_map<std::string, std::shared_ptr<const mxnet::op::NodeAttrs>> cache;
  thread_local std::string key;
  key.assign(reinterpret_cast<const char*>(&op), sizeof(op));
  if (!op->key_var_num_args.empty()) key.append(reinterpret_cast<const char*>(&num_inputs), sizeof(num_inputs));
  for (int i = 0; i < num_params; ++i) {
    key.append(keys[i]).push_back('\0');
    key.append(vals[i]).push_back('\0');
  }
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::unordered_map<std::string, std::string> dict;
  for (int i = 0; i < num_params; ++i) dict[keys[i]] = vals[i];
  // A count given by the caller stays: Invoke rejects a call whose inputs do not match it.
  if (!op->key_var_num_args.empty() && !dict.count(op->key_var_num_args))
    dict[op->key_var_num_args] = std::to_string(num_inputs);
  if (!op->attr_parser) RejectUnknownKeywords(op, dict);
  auto attrs = std::make_shared<const mxnet::op::NodeAttrs>(mxnet::op::MakeAttrs(op, dict));  // throws: not kept
  if (cache.size() >= 4096) cache.clear();  // bounded: calls with ever-new values (e.g. scalars)
  cache.emplace(key, attrs);
  return attrs;
}
}  // namespace

int MXImperativeInvokeEx(AtomicSymbolCreator creator, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                         NDArrayHandle** outputs, int num_params, const char** param_keys, const char** param_vals,
                         const int** out_stypes) {
  API_BEGIN();
  const Op* op = AsOp(creator);
  MX_CHECK_KIND(num_inputs >= 0 && num_params >= 0, "ValueError") << op->name << ": negative argument count";
  const std::shared_ptr<const mxnet::op::NodeAttrs> parsed =
      ParsedAttrs(op, num_inputs, num_params, param_keys, param_vals);
  const mxnet::op::NodeAttrs& attrs = *parsed;
  mxnet::common::ScratchVector<NDArray*> ins_buf, outs_buf;
  std::vector<NDArray*>& ins = *ins_buf;
  for (int i = 0; i < num_inputs; ++i) {
    MX_CHECK_KIND(inputs[i] != nullptr, "ValueError") << op->name << ": input " << i << " is NULL";
    ins.push_back(static_cast<NDArray*>(inputs[i]));
  }
  const int nout = static_cast<int>(op->NumOutputs(attrs));
  const int nvis = static_cast<int>(op->NumVisibleOutputs(attrs));
  std::vector<NDArray> hidden;  // outputs the caller does not see
  std::vector<NDArray*>& outs = *outs_buf;
  const bool user_outputs = *outputs != nullptr;
  if (user_outputs) {
    MX_CHECK_KIND(*num_outputs == nout || *num_outputs == nvis, "ValueError")
        << op->name << ": expected " << nvis << " output arrays, got " << *num_outputs;
    for (int i = 0; i < *num_outputs; ++i) {
      MX_CHECK_KIND((*outputs)[i] != nullptr, "ValueError") << op->name << ": output " << i << " is NULL";
      outs.push_back(static_cast<NDArray*>((*outputs)[i]));
    }
    hidden.resize(nout - *num_outputs);
    for (auto& h : hidden) outs.push_back(&h);
    mxnet::imperative::Invoke(mxnet::Context::CPU(), parsed, ins, outs, {});
  } else {
    mxnet::common::ScratchVector<NDArray> fresh_buf;
    std::vector<NDArray>& fresh = *fresh_buf;
    fresh.resize(nout);
    for (auto& f : fresh) outs.push_back(&f);
    mxnet::imperative::Invoke(mxnet::Context::CPU(), parsed, ins, outs, {});
    auto& handles = mxnet::capi::ThreadLocalReturn<OutputsTag, std::vector<NDArrayHandle>>();
    handles.clear();
    for (int i = 0; i < nvis; ++i) handles.push_back(new NDArray(fresh[i]));
    *num_outputs = nvis;
    *outputs = handles.data();
  }
  auto& stypes = mxnet::capi::ThreadLocalReturn<OutputsTag, std::vector<int>>();
  stypes.assign(*num_outputs, 0);
  if (out_stypes) *out_stypes = stypes.data();
  API_END();
}

int MXImperativeInvoke(AtomicSymbolCreator creator, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                       NDArrayHandle** outputs, int num_params, const char** param_keys, const char** param_vals) {
  return MXImperativeInvokeEx(creator, num_inputs, inputs, num_outputs, outputs, num_params, param_keys, param_vals,
                              nullptr);
}
