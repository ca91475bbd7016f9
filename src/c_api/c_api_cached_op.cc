/*!
 * \file c_api_cached_op.cc
 * \brief The CachedOp C API: create from a symbol and flags, invoke, free.
 */
#include <string>
#include <utility>
#include <vector>

#include "c_api/api_guard.h"
#include "imperative/cached_op.h"
#include "mxnet/c_api.h"

using mxnet::NDArray;
using mxnet::imperative::CachedOp;
using mxnet::imperative::CachedOpConfig;
using mxnet::imperative::CachedOpPtr;

namespace {
struct OutputsTag {};

CachedOp* Op(CachedOpHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "CachedOp handle is NULL";
  return static_cast<CachedOpPtr*>(h)->get();
}
}  // namespace

int MXCreateCachedOpEx(SymbolHandle handle, int num_flags, const char** keys, const char** vals, CachedOpHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(handle != nullptr, "ValueError") << "CachedOp: symbol handle is NULL";
  MX_CHECK_KIND(num_flags >= 0, "ValueError") << "CachedOp: negative flag count";
  std::vector<std::pair<std::string, std::string>> flags;
  for (int i = 0; i < num_flags; ++i) {
    MX_CHECK_KIND(keys[i] && vals[i], "ValueError") << "CachedOp: flag " << i << " is NULL";
    flags.emplace_back(keys[i], vals[i]);
  }
  const auto& sym = *static_cast<mxnet::graph::Symbol*>(handle);
  *out = new CachedOpPtr(std::make_shared<CachedOp>(sym, CachedOpConfig::Parse(flags)));
  API_END();
}

int MXCreateCachedOp(SymbolHandle handle, CachedOpHandle* out) {
  return MXCreateCachedOpEx(handle, 0, nullptr, nullptr, out);
}

int MXInvokeCachedOpEx(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                       NDArrayHandle** outputs, const int** out_stypes) {
  API_BEGIN();
  CachedOp* op = Op(handle);
  MX_CHECK_KIND(num_inputs >= 0, "ValueError") << "CachedOp: negative input count";
  std::vector<NDArray*> ins;
  for (int i = 0; i < num_inputs; ++i) {
    MX_CHECK_KIND(inputs[i] != nullptr, "ValueError") << "CachedOp: input " << i << " is NULL";
    ins.push_back(static_cast<NDArray*>(inputs[i]));
  }
  const int nout = static_cast<int>(op->num_outputs());
  std::vector<NDArray*> outs;
  if (*outputs != nullptr) {
    MX_CHECK_KIND(*num_outputs == nout, "ValueError")
        << "CachedOp: expected " << nout << " output arrays, got " << *num_outputs;
    for (int i = 0; i < nout; ++i) {
      MX_CHECK_KIND((*outputs)[i] != nullptr, "ValueError") << "CachedOp: output " << i << " is NULL";
      outs.push_back(static_cast<NDArray*>((*outputs)[i]));
    }
    op->Forward(ins, outs);
  } else {
    std::vector<NDArray> fresh(nout);
    for (auto& f : fresh) outs.push_back(&f);
    op->Forward(ins, outs);
    auto& handles = mxnet::capi::ThreadLocalReturn<OutputsTag, std::vector<NDArrayHandle>>();
    handles.clear();
    for (auto& f : fresh) handles.push_back(new NDArray(f));
    *num_outputs = nout;
    *outputs = handles.data();
  }
  auto& stypes = mxnet::capi::ThreadLocalReturn<OutputsTag, std::vector<int>>();
  stypes.assign(*num_outputs, 0);
  if (out_stypes) *out_stypes = stypes.data();
  API_END();
}

int MXInvokeCachedOp(CachedOpHandle handle, int num_inputs, NDArrayHandle* inputs, int* num_outputs,
                     NDArrayHandle** outputs) {
  return MXInvokeCachedOpEx(handle, num_inputs, inputs, num_outputs, outputs, nullptr);
}

int MXFreeCachedOp(CachedOpHandle handle) {
  API_BEGIN();
  delete static_cast<CachedOpPtr*>(handle);
  API_END();
}

int MXCachedOpGetInfo(CachedOpHandle handle, mx_uint* num_plans, int* num_fused) {
  API_BEGIN();
  CachedOp* op = Op(handle);
  if (num_plans) *num_plans = static_cast<mx_uint>(op->num_plans());
  if (num_fused) *num_fused = op->last_num_fused();
  API_END();
}
