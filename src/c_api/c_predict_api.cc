/*!
 * \file c_predict_api.cc
 * \brief The predict C API (MXNet 1.x signatures): argument checks at the C boundary, the
 *        rest in Predictor.
 */
#include "mxnet/c_predict_api.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "c_api/predictor.h"
#include "graph/symbol_json.h"
#include "storage/device_allocators.h"

using mxnet::capi::InputShapes;
using mxnet::capi::Predictor;
using mxnet::capi::PredictorModel;

namespace {

Predictor* Pred(PredictorHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "PredictorHandle is NULL";
  return static_cast<Predictor*>(h);
}

InputShapes ParseInputs(mx_uint num, const char** keys, const mx_uint* indptr, const mx_uint* data) {
  InputShapes inputs;
  if (num == 0) return inputs;
  MX_CHECK_KIND(keys != nullptr, "ValueError") << "input_keys is NULL for " << num << " input(s)";
  MX_CHECK_KIND(indptr != nullptr, "ValueError") << "input_shape_indptr is NULL for " << num << " input(s)";
  for (mx_uint i = 0; i < num; ++i) {
    MX_CHECK_KIND(keys[i] != nullptr, "ValueError") << "input_keys[" << i << "] is NULL";
    const std::string key = keys[i];
    MX_CHECK_KIND(indptr[i + 1] > indptr[i], "ValueError")
        << "input '" << key << "': input_shape_indptr[" << i << "] = " << indptr[i] << " and input_shape_indptr["
        << i + 1 << "] = " << indptr[i + 1] << " give it no dimensions";
    MX_CHECK_KIND(indptr[i + 1] - indptr[i] <= 32, "ValueError")
        << "input '" << key << "' has " << indptr[i + 1] - indptr[i] << " dimensions (at most 32)";
    MX_CHECK_KIND(data != nullptr, "ValueError") << "input_shape_data is NULL";
    std::vector<mxnet::dim_t> dims;
    for (mx_uint k = indptr[i]; k < indptr[i + 1]; ++k) {
      MX_CHECK_KIND(data[k] > 0, "ValueError") << "input '" << key << "': dimension " << k - indptr[i] << " is "
                                               << data[k] << "; every dimension must be positive";
      dims.push_back(data[k]);
    }
    inputs.emplace_back(key, mxnet::TShape(dims));
  }
  return inputs;
}

mxnet::Context PredictContext(int dev_type, int dev_id) {
  MX_CHECK_KIND(dev_type == 1 || dev_type == 2, "ValueError")
      << "dev_type must be 1 (cpu) or 2 (gpu), got " << dev_type;
  MX_CHECK_KIND(dev_id >= 0, "ValueError") << "dev_id must be >= 0, got " << dev_id;
  // Fails here, naming the device, when there is no such GPU or no CUDA in this build.
  if (dev_type == 2) mxnet::storage::CheckGpuAvailable(dev_id);
  return mxnet::Context::Create(dev_type, dev_id);
}

mxnet::graph::Symbol LoadSymbol(const char* json) {
  MX_CHECK_KIND(json != nullptr, "ValueError") << "symbol_json_str is NULL";
  try {
    return mxnet::graph::LoadJson(json);
  } catch (const mxnet::Error& e) {
    MX_THROW(e.kind()) << "symbol JSON: " << e.what();
  }
  return {};
}

/*! \brief The shared part of every MXPredCreate* call: the first predictor. */
std::unique_ptr<Predictor> CreateFirst(const char* json, const void* param_bytes, int param_size, int dev_type,
                                       int dev_id, mx_uint num_inputs, const char** input_keys, const mx_uint* indptr,
                                       const mx_uint* shape_data, mx_uint num_outputs, const char** output_keys,
                                       mx_uint num_dtypes, const char** dtype_names, const int* dtypes) {
  PredictorModel model;
  model.ctx = PredictContext(dev_type, dev_id);
  model.symbol = LoadSymbol(json);
  const InputShapes inputs = ParseInputs(num_inputs, input_keys, indptr, shape_data);
  if (num_dtypes > 0) {
    MX_CHECK_KIND(dtype_names != nullptr && dtypes != nullptr, "ValueError")
        << "provided_arg_dtype_names or provided_arg_dtypes is NULL for " << num_dtypes << " dtype(s)";
    const auto names = model.symbol.ListInputNames(mxnet::graph::InputOption::kAll);
    for (mx_uint i = 0; i < num_dtypes; ++i) {
      MX_CHECK_KIND(dtype_names[i] != nullptr, "ValueError") << "provided_arg_dtype_names[" << i << "] is NULL";
      MX_CHECK_KIND(std::find(names.begin(), names.end(), dtype_names[i]) != names.end(), "ValueError")
          << "dtype given for '" << dtype_names[i] << "', which is not an input of the symbol";
      MX_CHECK_KIND(mxnet::DTypeSupported(dtypes[i]), "TypeError")
          << "dtype " << dtypes[i] << " given for '" << dtype_names[i] << "' is not a supported type flag";
      model.dtypes[dtype_names[i]] = dtypes[i];
    }
  }
  if (num_outputs > 0) {
    MX_CHECK_KIND(output_keys != nullptr, "ValueError") << "output_keys is NULL for " << num_outputs << " output(s)";
    std::vector<std::string> keys;
    for (mx_uint i = 0; i < num_outputs; ++i) {
      MX_CHECK_KIND(output_keys[i] != nullptr, "ValueError") << "output_keys[" << i << "] is NULL";
      keys.emplace_back(output_keys[i]);
    }
    model.symbol = mxnet::capi::SelectOutputs(model.symbol, keys);
  }
  const auto params = mxnet::capi::ParseParamBlob(param_bytes, param_size);
  return Predictor::Create(model, params, inputs);
}

}  // namespace

int MXPredCreate(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type, int dev_id,
                 mx_uint num_input_nodes, const char** input_keys, const mx_uint* input_shape_indptr,
                 const mx_uint* input_shape_data, PredictorHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXPredCreate: out is NULL";
  *out = CreateFirst(symbol_json_str, param_bytes, param_size, dev_type, dev_id, num_input_nodes, input_keys,
                     input_shape_indptr, input_shape_data, 0, nullptr, 0, nullptr, nullptr)
             .release();
  API_END();
}

int MXPredCreateEx(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type, int dev_id,
                   const mx_uint num_input_nodes, const char** input_keys, const mx_uint* input_shape_indptr,
                   const mx_uint* input_shape_data, const mx_uint num_provided_arg_dtypes,
                   const char** provided_arg_dtype_names, const int* provided_arg_dtypes, PredictorHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXPredCreateEx: out is NULL";
  *out = CreateFirst(symbol_json_str, param_bytes, param_size, dev_type, dev_id, num_input_nodes, input_keys,
                     input_shape_indptr, input_shape_data, 0, nullptr, num_provided_arg_dtypes,
                     provided_arg_dtype_names, provided_arg_dtypes)
             .release();
  API_END();
}

int MXPredCreatePartialOut(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                           int dev_id, mx_uint num_input_nodes, const char** input_keys,
                           const mx_uint* input_shape_indptr, const mx_uint* input_shape_data, mx_uint num_output_nodes,
                           const char** output_keys, PredictorHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXPredCreatePartialOut: out is NULL";
  *out = CreateFirst(symbol_json_str, param_bytes, param_size, dev_type, dev_id, num_input_nodes, input_keys,
                     input_shape_indptr, input_shape_data, num_output_nodes, output_keys, 0, nullptr, nullptr)
             .release();
  API_END();
}

int MXPredCreateMultiThread(const char* symbol_json_str, const void* param_bytes, int param_size, int dev_type,
                            int dev_id, mx_uint num_input_nodes, const char** input_keys,
                            const mx_uint* input_shape_indptr, const mx_uint* input_shape_data, int num_threads,
                            PredictorHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXPredCreateMultiThread: out is NULL";
  MX_CHECK_KIND(num_threads >= 1, "ValueError")
      << "MXPredCreateMultiThread: num_threads must be >= 1, got " << num_threads;
  // All or nothing: out is written only once every predictor exists.
  std::vector<std::unique_ptr<Predictor>> preds;
  preds.push_back(CreateFirst(symbol_json_str, param_bytes, param_size, dev_type, dev_id, num_input_nodes, input_keys,
                              input_shape_indptr, input_shape_data, 0, nullptr, 0, nullptr, nullptr));
  for (int i = 1; i < num_threads; ++i) preds.push_back(preds[0]->Clone());
  for (int i = 0; i < num_threads; ++i) out[i] = preds[i].release();
  API_END();
}

int MXPredReshape(mx_uint num_input_nodes, const char** input_keys, const mx_uint* input_shape_indptr,
                  const mx_uint* input_shape_data, PredictorHandle handle, PredictorHandle* out) {
  API_BEGIN();
  Predictor* p = Pred(handle);
  MX_CHECK_KIND(out != nullptr, "ValueError") << "MXPredReshape: out is NULL";
  *out = p->Reshape(ParseInputs(num_input_nodes, input_keys, input_shape_indptr, input_shape_data)).release();
  API_END();
}

int MXPredGetOutputShape(PredictorHandle handle, mx_uint index, mx_uint** shape_data, mx_uint* shape_ndim) {
  API_BEGIN();
  MX_CHECK_KIND(shape_data != nullptr && shape_ndim != nullptr, "ValueError")
      << "MXPredGetOutputShape: shape_data or shape_ndim is NULL";
  const auto& shape = Pred(handle)->output_shape(index);
  // The predictor owns the dims; callers only read them through this non-const pointer.
  *shape_data = const_cast<mx_uint*>(shape.data());
  *shape_ndim = static_cast<mx_uint>(shape.size());
  API_END();
}

int MXPredGetOutputType(PredictorHandle handle, mx_uint out_index, int* out_dtype) {
  API_BEGIN();
  MX_CHECK_KIND(out_dtype != nullptr, "ValueError") << "MXPredGetOutputType: out_dtype is NULL";
  *out_dtype = Pred(handle)->output(out_index).dtype();
  API_END();
}

int MXPredSetInput(PredictorHandle handle, const char* key, const mx_float* data, mx_uint size) {
  API_BEGIN();
  Predictor* p = Pred(handle);
  MX_CHECK_KIND(key != nullptr, "ValueError") << "MXPredSetInput: key is NULL";
  MX_CHECK_KIND(data != nullptr || size == 0, "ValueError") << "MXPredSetInput: data is NULL";
  p->SetInput(key, data, size);
  API_END();
}

int MXPredForward(PredictorHandle handle) {
  API_BEGIN();
  Pred(handle)->Forward();
  API_END();
}

int MXPredPartialForward(PredictorHandle handle, int step, int* step_left) {
  API_BEGIN();
  Predictor* p = Pred(handle);
  MX_CHECK_KIND(step_left != nullptr, "ValueError") << "MXPredPartialForward: step_left is NULL";
  p->PartialForward(step, step_left);
  API_END();
}

int MXPredGetOutput(PredictorHandle handle, mx_uint index, mx_float* data, mx_uint size) {
  API_BEGIN();
  Predictor* p = Pred(handle);
  MX_CHECK_KIND(data != nullptr || size == 0, "ValueError") << "MXPredGetOutput: data is NULL";
  p->GetOutput(index, data, size);
  API_END();
}

int MXPredSetMonitorCallback(PredictorHandle handle, PredMonitorCallback callback, void* callback_handle,
                             bool monitor_all) {
  API_BEGIN();
  Predictor* p = Pred(handle);
  if (callback == nullptr) {
    p->SetMonitor(nullptr, false);
  } else {
    p->SetMonitor(
        [callback, callback_handle](const std::string& name, const mxnet::NDArray& arr) {
          // The callback owns the handle, as with MXExecutorSetMonitorCallbackEX.
          callback(name.c_str(), new mxnet::NDArray(arr), callback_handle);
        },
        monitor_all);
  }
  API_END();
}

int MXPredFree(PredictorHandle handle) {
  API_BEGIN();
  delete static_cast<Predictor*>(handle);
  API_END();
}
