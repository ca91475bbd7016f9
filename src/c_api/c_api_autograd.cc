/*!
 * \file c_api_autograd.cc
 * \brief MXAutograd* and MXCustomFunctionRecord.
 */
#include <utility>
#include <vector>

#include "c_api/api_guard.h"
#include "graph/symbol.h"
#include "imperative/autograd_symbol.h"
#include "mxnet/c_api.h"
#include "mxnet/imperative.h"

using mxnet::NDArray;
namespace imp = mxnet::imperative;

namespace {
struct GradsTag {};
std::vector<NDArray*> Handles(mx_uint n, NDArrayHandle* h, const char* what) {
  std::vector<NDArray*> v;
  for (mx_uint i = 0; i < n; ++i) {
    MX_CHECK_KIND(h[i] != nullptr, "ValueError") << what << " " << i << " is NULL";
    v.push_back(static_cast<NDArray*>(h[i]));
  }
  return v;
}
}  // namespace

int MXAutogradSetIsRecording(int is_recording, int* prev) {
  API_BEGIN();
  *prev = imp::SetIsRecording(is_recording != 0) ? 1 : 0;
  API_END();
}

int MXAutogradSetIsTraining(int is_training, int* prev) {
  API_BEGIN();
  *prev = imp::SetIsTraining(is_training != 0) ? 1 : 0;
  API_END();
}

int MXAutogradIsRecording(bool* curr) {
  API_BEGIN();
  *curr = imp::IsRecording();
  API_END();
}

int MXAutogradIsTraining(bool* curr) {
  API_BEGIN();
  *curr = imp::IsTraining();
  API_END();
}

int MXAutogradMarkVariables(mx_uint num_var, NDArrayHandle* var_handles, mx_uint* reqs_array,
                            NDArrayHandle* grad_handles) {
  API_BEGIN();
  std::vector<uint32_t> reqs(reqs_array, reqs_array + num_var);
  imp::MarkVariables(Handles(num_var, var_handles, "variable"), reqs, Handles(num_var, grad_handles, "gradient"));
  API_END();
}

int MXAutogradBackwardEx(mx_uint num_output, NDArrayHandle* output_handles, NDArrayHandle* ograd_handles,
                         mx_uint num_variables, NDArrayHandle* var_handles, int retain_graph, int create_graph,
                         int is_train, NDArrayHandle** grad_handles, int** grad_stypes) {
  API_BEGIN();
  std::vector<NDArray*> heads = Handles(num_output, output_handles, "head"), ograds;
  if (ograd_handles)
    for (mx_uint i = 0; i < num_output; ++i) ograds.push_back(static_cast<NDArray*>(ograd_handles[i]));
  std::vector<NDArray*> vars = Handles(num_variables, var_handles, "variable");
  std::vector<NDArray> grads =
      imp::Backward(heads, ograds, vars, retain_graph != 0, create_graph != 0, is_train != 0);
  if (num_variables > 0) {
    auto& handles = mxnet::capi::ThreadLocalReturn<GradsTag, std::vector<NDArrayHandle>>();
    auto& stypes = mxnet::capi::ThreadLocalReturn<GradsTag, std::vector<int>>();
    handles.clear();
    for (auto& g : grads) handles.push_back(new NDArray(g));
    stypes.assign(handles.size(), 0);
    if (grad_handles) *grad_handles = handles.data();
    if (grad_stypes) *grad_stypes = stypes.data();
  }
  API_END();
}

int MXAutogradBackward(mx_uint num_output, NDArrayHandle* output_handles, NDArrayHandle* ograd_handles,
                       int retain_graph) {
  return MXAutogradBackwardEx(num_output, output_handles, ograd_handles, 0, nullptr, retain_graph, 0, 1, nullptr,
                              nullptr);
}

int MXAutogradComputeGradient(mx_uint num_output, NDArrayHandle* output_handles) {
  return MXAutogradBackward(num_output, output_handles, nullptr, 0);
}

int MXAutogradGetSymbol(NDArrayHandle handle, SymbolHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(handle != nullptr && out != nullptr, "ValueError") << "MXAutogradGetSymbol: handle or out is NULL";
  mxnet::graph::Symbol sym;
  sym.outputs.push_back(imp::RecordedGraph(*static_cast<NDArray*>(handle)));
  *out = new mxnet::graph::Symbol(std::move(sym));
  API_END();
}

int MXCustomFunctionRecord(int num_inputs, NDArrayHandle* inputs, int num_outputs, NDArrayHandle* outputs,
                           struct MXCallbackList* callbacks) {
  API_BEGIN();
  MX_CHECK_KIND(callbacks != nullptr && callbacks->num_callbacks >= 2, "ValueError")
      << "MXCustomFunctionRecord: expected backward and delete callbacks";
  MX_CHECK_KIND(imp::IsRecording(), "MXNetError") << "autograd.Function can only be recorded in a record() scope";
  auto bwd = reinterpret_cast<MXCustomFunctionBwdFunc>(reinterpret_cast<void*>(callbacks->callbacks[0]));
  auto del = reinterpret_cast<MXCustomFunctionDelFunc>(reinterpret_cast<void*>(callbacks->callbacks[1]));
  void* bwd_state = callbacks->contexts[0];
  void* del_state = callbacks->contexts[1];
  auto backward = [bwd, bwd_state](const std::vector<NDArray>& ograds, const std::vector<NDArray>& igrads,
                                   const std::vector<int>& reqs, bool is_train) {
    // The callee takes ownership of the handles it receives, as in MXNet.
    std::vector<void*> ptrs;
    for (const auto& g : ograds) ptrs.push_back(new NDArray(g));
    for (const auto& g : igrads) ptrs.push_back(new NDArray(g));
    const int rc = bwd(static_cast<int>(ograds.size()), static_cast<int>(igrads.size()), ptrs.data(), reqs.data(),
                       is_train ? 1 : 0, bwd_state);
    MX_CHECK_KIND(rc != 0, "MXNetError") << "autograd.Function: the user-defined backward failed";
  };
  imp::RecordCustomFunction(Handles(num_inputs, inputs, "input"), Handles(num_outputs, outputs, "output"), backward,
                            [del, del_state]() { del(del_state); });
  API_END();
}
