/*!
 * \file c_api_executor.cc
 * \brief The Executor C API (MXNet 1.x signatures): bind, simple_bind, forward, backward,
 *        outputs, reshape, monitor, and the memory plan for introspection.
 */
#include <map>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "graph/executor_bind.h"
#include "mxnet/c_api.h"

using mxnet::Context;
using mxnet::NDArray;
using mxnet::TShape;
using mxnet::graph::GraphExecutor;
using mxnet::graph::Symbol;

namespace {
struct OutputsTag {};
struct ArraysTag {};
struct BufferTag {};
struct StrTag {};

GraphExecutor* Exec(ExecutorHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "Executor handle is NULL";
  return static_cast<GraphExecutor*>(h);
}

NDArray* ND(NDArrayHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "NDArray handle is NULL";
  return static_cast<NDArray*>(h);
}

mxnet::op::OpReqType ReqFromString(const std::string& s) {
  if (s == "null") return mxnet::op::kNullOp;
  if (s == "write" || s == "inplace") return mxnet::op::kWriteTo;
  if (s == "add") return mxnet::op::kAddTo;
  MX_THROW("ValueError") << "grad_req must be 'null', 'write' or 'add', got '" << s << "'";
  return mxnet::op::kNullOp;
}

mxnet::op::OpReqType ReqFromCode(mx_uint c) {
  MX_CHECK_KIND(c == 0 || c == 1 || c == 2 || c == 3, "ValueError") << "grad_req code must be 0, 1 or 3, got " << c;
  return c == 0 ? mxnet::op::kNullOp : c == 3 ? mxnet::op::kAddTo : mxnet::op::kWriteTo;
}

std::map<std::string, TShape> ShapesByName(mx_uint n, const char** names, const int* data, const mx_uint* idx) {
  std::map<std::string, TShape> shapes;
  for (mx_uint i = 0; i < n; ++i) {
    MX_CHECK_KIND(idx[i + 1] >= idx[i] && idx[i + 1] - idx[i] <= 32, "ValueError") << "shape of " << names[i] << " has an invalid length";
    std::vector<mxnet::dim_t> d(data + idx[i], data + idx[i + 1]);
    shapes[names[i]] = TShape(d);
  }
  return shapes;
}

/*! \brief New handles for arrays (NULL for none), kept in a thread-local list per tag. */
template <typename Tag>
NDArrayHandle* ReturnHandles(const std::vector<NDArray>& arrays) {
  auto& v = mxnet::capi::ThreadLocalReturn<Tag, std::vector<NDArrayHandle>>();
  v.clear();
  for (const auto& a : arrays) v.push_back(a.is_none() ? nullptr : new NDArray(a));
  return v.data();
}

struct ArgTag {};
struct GradTag {};
struct AuxTag {};

void ReturnBound(GraphExecutor* ex, mx_uint* num_in_args, NDArrayHandle** in_args, NDArrayHandle** arg_grads,
                 mx_uint* num_aux_states, NDArrayHandle** aux_states) {
  *num_in_args = static_cast<mx_uint>(ex->args().size());
  *in_args = ReturnHandles<ArgTag>(ex->args());
  *arg_grads = ReturnHandles<GradTag>(ex->grads());
  *num_aux_states = static_cast<mx_uint>(ex->aux().size());
  *aux_states = ReturnHandles<AuxTag>(ex->aux());
}
}  // namespace

int MXExecutorBindEX(SymbolHandle symbol_handle, int dev_type, int dev_id, mx_uint num_map_keys, const char** map_keys,
                     const int* map_dev_types, const int* map_dev_ids, mx_uint len, NDArrayHandle* in_args,
                     NDArrayHandle* arg_grad_store, mx_uint* grad_req_type, mx_uint aux_states_len,
                     NDArrayHandle* aux_states, ExecutorHandle shared_exec, ExecutorHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(symbol_handle != nullptr, "ValueError") << "Symbol handle is NULL";
  const Context ctx = Context::Create(dev_type, dev_id);
  for (mx_uint i = 0; i < num_map_keys; ++i)
    MX_CHECK_KIND(Context::Create(map_dev_types[i], map_dev_ids[i]) == ctx, "ValueError")
        << "group2ctx: group " << map_keys[i] << " is placed on another device; this build runs a graph on one device";
  std::vector<NDArray> args, grads, aux;
  std::vector<mxnet::op::OpReqType> reqs;
  for (mx_uint i = 0; i < len; ++i) {
    args.push_back(*ND(in_args[i]));
    grads.push_back(arg_grad_store && arg_grad_store[i] ? *ND(arg_grad_store[i]) : NDArray());
    reqs.push_back(grad_req_type ? ReqFromCode(grad_req_type[i]) : mxnet::op::kNullOp);
  }
  for (mx_uint i = 0; i < aux_states_len; ++i) aux.push_back(*ND(aux_states[i]));
  *out = new GraphExecutor(*static_cast<Symbol*>(symbol_handle), ctx, args, grads, reqs, aux,
                           static_cast<GraphExecutor*>(shared_exec));
  API_END();
}

int MXExecutorSimpleBindEx(SymbolHandle symbol_handle, int dev_type, int dev_id, const mx_uint num_g2c_keys,
                           const char** g2c_keys, const int* g2c_dev_types, const int* g2c_dev_ids,
                           const mx_uint provided_grad_req_list_len, const char** provided_grad_req_names,
                           const char** provided_grad_req_types, const mx_uint num_provided_arg_shapes,
                           const char** provided_arg_shape_names, const int* provided_arg_shape_data,
                           const mx_uint* provided_arg_shape_idx, const mx_uint num_provided_arg_dtypes,
                           const char** provided_arg_dtype_names, const int* provided_arg_dtypes,
                           const mx_uint num_provided_arg_stypes, const char** provided_arg_stype_names,
                           const int* provided_arg_stypes, const mx_uint num_shared_arg_names,
                           const char** shared_arg_name_list, int* shared_buffer_len,
                           const char** shared_buffer_name_list, NDArrayHandle* shared_buffer_handle_list,
                           const char*** updated_shared_buffer_name_list,
                           NDArrayHandle** updated_shared_buffer_handle_list, mx_uint* num_in_args,
                           NDArrayHandle** in_args, NDArrayHandle** arg_grads, mx_uint* num_aux_states,
                           NDArrayHandle** aux_states, ExecutorHandle shared_exec_handle, ExecutorHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(symbol_handle != nullptr, "ValueError") << "Symbol handle is NULL";
  mxnet::graph::SimpleBindArgs a;
  a.ctx = Context::Create(dev_type, dev_id);
  for (mx_uint i = 0; i < num_g2c_keys; ++i)
    MX_CHECK_KIND(Context::Create(g2c_dev_types[i], g2c_dev_ids[i]) == a.ctx, "ValueError")
        << "group2ctx: group " << g2c_keys[i] << " is placed on another device; this build runs a graph on one device";
  for (mx_uint i = 0; i < provided_grad_req_list_len; ++i) {
    if (provided_grad_req_names == nullptr || provided_grad_req_names[i] == nullptr)
      a.default_req = ReqFromString(provided_grad_req_types[i]);
    else
      a.reqs[provided_grad_req_names[i]] = ReqFromString(provided_grad_req_types[i]);
  }
  // A list of per-name reqs leaves the others null (MXNet's dict semantics).
  if (provided_grad_req_list_len > 0 && provided_grad_req_names && provided_grad_req_names[0])
    a.default_req = mxnet::op::kNullOp;
  a.shapes = ShapesByName(num_provided_arg_shapes, provided_arg_shape_names, provided_arg_shape_data,
                          provided_arg_shape_idx);
  for (mx_uint i = 0; i < num_provided_arg_dtypes; ++i) a.dtypes[provided_arg_dtype_names[i]] = provided_arg_dtypes[i];
  for (mx_uint i = 0; i < num_provided_arg_stypes; ++i)
    MX_CHECK_KIND(provided_arg_stypes[i] <= 0, "ValueError")
        << "simple_bind: " << provided_arg_stype_names[i] << " asks for a sparse storage type; this build binds dense arrays only";
  for (mx_uint i = 0; i < num_shared_arg_names; ++i) a.shared_arg_names.emplace_back(shared_arg_name_list[i]);
  std::map<std::string, NDArray> buffer;
  const bool use_buffer = shared_buffer_len && *shared_buffer_len >= 0;
  if (use_buffer)
    for (int i = 0; i < *shared_buffer_len; ++i) buffer[shared_buffer_name_list[i]] = *ND(shared_buffer_handle_list[i]);
  a.shared_buffer = use_buffer ? &buffer : nullptr;
  a.shared_exec = static_cast<GraphExecutor*>(shared_exec_handle);
  auto ex = mxnet::graph::SimpleBind(*static_cast<Symbol*>(symbol_handle), a);
  if (use_buffer) {
    auto& names = mxnet::capi::ThreadLocalReturn<BufferTag, std::vector<std::string>>();
    auto& name_ptrs = mxnet::capi::ThreadLocalReturn<BufferTag, std::vector<const char*>>();
    names.clear();
    name_ptrs.clear();
    std::vector<NDArray> arrays;
    for (const auto& kv : buffer) {
      names.push_back(kv.first);
      arrays.push_back(kv.second);
    }
    for (const auto& n : names) name_ptrs.push_back(n.c_str());
    *shared_buffer_len = static_cast<int>(names.size());
    *updated_shared_buffer_name_list = name_ptrs.data();
    *updated_shared_buffer_handle_list = ReturnHandles<BufferTag>(arrays);
  }
  ReturnBound(ex.get(), num_in_args, in_args, arg_grads, num_aux_states, aux_states);
  *out = ex.release();
  API_END();
}

int MXExecutorForward(ExecutorHandle handle, int is_train) {
  API_BEGIN();
  Exec(handle)->Forward(is_train != 0);
  API_END();
}

int MXExecutorBackward(ExecutorHandle handle, mx_uint len, NDArrayHandle* head_grads) {
  return MXExecutorBackwardEx(handle, len, head_grads, 1);
}

int MXExecutorBackwardEx(ExecutorHandle handle, mx_uint len, NDArrayHandle* head_grads, int is_train) {
  API_BEGIN();
  std::vector<NDArray> hg;
  for (mx_uint i = 0; i < len; ++i) hg.push_back(head_grads[i] ? *ND(head_grads[i]) : NDArray());
  Exec(handle)->Backward(hg, is_train != 0);
  API_END();
}

int MXExecutorOutputs(ExecutorHandle handle, mx_uint* out_size, NDArrayHandle** out) {
  API_BEGIN();
  const auto& outs = Exec(handle)->outputs();
  *out_size = static_cast<mx_uint>(outs.size());
  *out = ReturnHandles<OutputsTag>(outs);
  API_END();
}

int MXExecutorFree(ExecutorHandle handle) {
  API_BEGIN();
  delete static_cast<GraphExecutor*>(handle);
  API_END();
}

int MXExecutorPrint(ExecutorHandle handle, const char** out_str) {
  API_BEGIN();
  auto& s = mxnet::capi::ThreadLocalReturn<StrTag, std::string>();
  s = Exec(handle)->DebugStr();
  *out_str = s.c_str();
  API_END();
}

int MXExecutorGetOptimizedSymbol(ExecutorHandle handle, SymbolHandle* out) {
  API_BEGIN();
  *out = new Symbol(Exec(handle)->OptimizedSymbol());
  API_END();
}

int MXExecutorSetMonitorCallback(ExecutorHandle handle, ExecutorMonitorCallback callback, void* callback_handle) {
  return MXExecutorSetMonitorCallbackEX(handle, callback, callback_handle, false);
}

int MXExecutorSetMonitorCallbackEX(ExecutorHandle handle, ExecutorMonitorCallback callback, void* callback_handle,
                                   bool monitor_all) {
  API_BEGIN();
  if (!callback) {
    Exec(handle)->SetMonitor(nullptr, false);
  } else {
    // The callback owns the handle it is given (Python wraps and frees it).
    Exec(handle)->SetMonitor(
        [callback, callback_handle](const std::string& name, const NDArray& arr) {
          callback(name.c_str(), new NDArray(arr), callback_handle);
        },
        monitor_all);
  }
  API_END();
}

int MXExecutorReshapeEx(int partial_shaping, int allow_up_sizing, int dev_type, int dev_id, mx_uint num_map_keys,
                        const char** map_keys, const int* map_dev_types, const int* map_dev_ids,
                        const mx_uint num_provided_arg_shapes, const char** provided_arg_shape_names,
                        const int* provided_arg_shape_data, const mx_uint* provided_arg_shape_idx,
                        mx_uint* num_in_args, NDArrayHandle** in_args, NDArrayHandle** arg_grads,
                        mx_uint* num_aux_states, NDArrayHandle** aux_states, ExecutorHandle shared_exec,
                        ExecutorHandle* out) {
  API_BEGIN();
  GraphExecutor* ex = Exec(shared_exec);
  MX_CHECK_KIND(Context::Create(dev_type, dev_id) == ex->ctx(), "ValueError")
      << "reshape: the new executor must stay on " << ex->ctx().ToString();
  auto shapes = ShapesByName(num_provided_arg_shapes, provided_arg_shape_names, provided_arg_shape_data,
                             provided_arg_shape_idx);
  auto nex = mxnet::graph::Reshape(ex, shapes, partial_shaping != 0, allow_up_sizing != 0);
  ReturnBound(nex.get(), num_in_args, in_args, arg_grads, num_aux_states, aux_states);
  *out = nex.release();
  API_END();
}

int MXExecutorGetMemoryPlan(ExecutorHandle handle, uint64_t* planned_bytes, uint64_t* unshared_bytes,
                            mx_uint* num_inplace, mx_uint* num_shared) {
  API_BEGIN();
  const auto& p = Exec(handle)->plan();
  *planned_bytes = p.planned_bytes;
  *unshared_bytes = p.unshared_bytes;
  *num_inplace = p.num_inplace;
  *num_shared = p.num_shared;
  API_END();
}
