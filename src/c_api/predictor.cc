/*!
 * \file predictor.cc
 * \brief Predictor: binds a symbol for inference with weights from a .params blob.
 */
#include "c_api/predictor.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>

#include "graph/executor_bind.h"
#include "graph/symbol_infer.h"

namespace mxnet {
namespace capi {
namespace {

using graph::InputOption;
using graph::Symbol;

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string Join(const std::vector<std::string>& v, size_t limit = 20) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size() && i < limit; ++i) os << (i ? ", " : "") << v[i];
  if (v.size() > limit) os << ", ... (" << v.size() << " in all)";
  return os.str();
}

std::string UnknownShapes(const std::vector<std::string>& names, const std::vector<TShape>& shapes) {
  std::ostringstream os;
  for (size_t i = 0; i < names.size(); ++i)
    if (!shapes[i].IsKnown()) os << "  " << names[i] << ": " << shapes[i] << "\n";
  return os.str();
}

/*! \brief `a` on ctx as dtype; the same array when it already is (no copy to share). */
NDArray Place(const NDArray& a, Context ctx, int dtype) {
  if (a.ctx() == ctx && a.dtype() == dtype) return a;
  NDArray placed(a.shape(), ctx, false, dtype);
  CopyFromTo(a, placed);
  return placed;
}

}  // namespace

ParamBlob ParseParamBlob(const void* bytes, int size) {
  MX_CHECK_KIND(size >= 0, "ValueError") << "param_size must be >= 0, got " << size;
  MX_CHECK_KIND(bytes != nullptr || size == 0, "ValueError") << "param_bytes is NULL but param_size is " << size;
  ParamBlob blob;
  if (size == 0) return blob;
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  NDArrayLoadList(static_cast<const char*>(bytes), static_cast<size_t>(size), "params blob", &arrays, &names);
  bool prefixed = false;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& key = names[i];
    const std::string prefix = key.substr(0, 4);
    if (prefix != "arg:" && prefix != "aux:") continue;  // other keys are not weights (ignored, as in MXNet)
    prefixed = true;
    MX_CHECK_KIND(!arrays[i].is_none(), "ValueError") << "params blob: entry '" << key << "' holds no array";
    (prefix == "arg:" ? blob.args : blob.aux)[key.substr(4)] = arrays[i];
  }
  MX_CHECK_KIND(prefixed || arrays.empty(), "ValueError")
      << "params blob: none of its " << arrays.size() << " arrays has a key starting with 'arg:' or 'aux:' "
      << "(expected the .params file of Module.save_checkpoint or HybridBlock.export)";
  return blob;
}

Symbol SelectOutputs(const Symbol& s, const std::vector<std::string>& keys) {
  const Symbol internals = s.GetInternals();
  const auto names = internals.ListOutputNames();
  Symbol selected;
  for (const auto& key : keys) {
    auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end()) it = std::find(names.begin(), names.end(), key + "_output");
    MX_CHECK_KIND(it != names.end(), "ValueError")
        << "output '" << key << "' is not an internal output of the symbol; its outputs are: " << Join(names, 30);
    selected.outputs.push_back(internals.outputs[it - names.begin()]);
  }
  return selected;
}

std::unique_ptr<Predictor> Predictor::Create(const PredictorModel& model, const ParamBlob& params,
                                             const InputShapes& inputs) {
  return Bind(model, inputs, {}, &params);
}

std::unique_ptr<Predictor> Predictor::Bind(const PredictorModel& model, const InputShapes& inputs,
                                           const std::map<std::string, NDArray>& weights, const ParamBlob* params) {
  const Symbol& s = model.symbol;
  const auto arg_names = s.ListInputNames(InputOption::kReadOnlyArgs);
  const auto aux_names = s.ListInputNames(InputOption::kAuxiliaryStates);
  const auto all_names = s.ListInputNames(InputOption::kAll);

  std::map<std::string, TShape> known;
  std::set<std::string> input_names;
  for (const auto& in : inputs) {
    input_names.insert(in.first);
    MX_CHECK_KIND(Contains(arg_names, in.first), "ValueError")
        << "input '" << in.first << "' is not an argument of the symbol; its arguments are: " << Join(arg_names);
    MX_CHECK_KIND(known.emplace(in.first, in.second).second, "ValueError")
        << "input '" << in.first << "' is given twice";
  }
  auto si = graph::InferSymbolShapes(s, known);
  if (!si.complete) {
    // Shapes the inputs leave open may still follow from the weights' own shapes.
    auto add = [&](const std::string& name, const std::map<std::string, NDArray>* blob) {
      if (known.count(name)) return;
      if (weights.count(name))
        known[name] = weights.at(name).shape();
      else if (blob && blob->count(name))
        known[name] = blob->at(name).shape();
    };
    for (const auto& n : arg_names) add(n, params ? &params->args : nullptr);
    for (const auto& n : aux_names) add(n, params ? &params->aux : nullptr);
    si = graph::InferSymbolShapes(s, known);
  }
  MX_CHECK_KIND(si.complete, "ValueError")
      << "cannot infer the shapes of every argument from the input shapes given; unknown:\n"
      << UnknownShapes(arg_names, si.args) << UnknownShapes(aux_names, si.aux);

  std::map<std::string, int> dtypes;
  for (const auto& kv : model.dtypes)
    if (Contains(all_names, kv.first)) dtypes.insert(kv);
  for (const auto& in : inputs) dtypes.emplace(in.first, kFloat32);
  auto ti = graph::InferSymbolTypes(s, dtypes);
  if (!ti.complete) {
    // Arguments nothing decides are float32, as in simple_bind.
    for (size_t i = 0; i < arg_names.size(); ++i)
      if (ti.args[i] < 0) dtypes[arg_names[i]] = kFloat32;
    ti = graph::InferSymbolTypes(s, dtypes);
    MX_CHECK_KIND(ti.complete, "TypeError") << "cannot infer the dtype of every argument and auxiliary state";
  }

  std::unique_ptr<Predictor> p(new Predictor());
  p->model_ = model;
  p->inputs_ = inputs;
  p->weights_ = weights;
  auto array_for = [&](const std::string& name, const TShape& shape, int dtype, bool is_arg) -> NDArray {
    if (is_arg && input_names.count(name)) {
      NDArray a = graph::Zeros(shape, model.ctx, dtype);
      p->input_arrays_[name] = a;
      return a;
    }
    auto w = weights.find(name);
    if (w != weights.end()) {
      MX_CHECK_KIND(w->second.shape() == shape, "ValueError")
          << "parameter '" << name << "' has shape " << w->second.shape() << ", but the input shapes given need "
          << shape << "; only the shapes of inputs may change";
      return w->second;
    }
    const std::map<std::string, NDArray>* blob = params ? (is_arg ? &params->args : &params->aux) : nullptr;
    auto b = blob ? blob->find(name) : std::map<std::string, NDArray>::const_iterator();
    if (blob && b != blob->end()) {
      MX_CHECK_KIND(b->second.shape() == shape, "ValueError")
          << "parameter '" << name << "' has shape " << b->second.shape() << " in the params blob, but the symbol "
          << "needs " << shape << " for the input shapes given";
      NDArray a = Place(b->second, model.ctx, dtype);
      p->weights_[name] = a;
      return a;
    }
    return graph::Zeros(shape, model.ctx, dtype);  // labels and the like: not read for inference
  };
  std::vector<NDArray> args, grads(arg_names.size()), aux;
  for (size_t i = 0; i < arg_names.size(); ++i) args.push_back(array_for(arg_names[i], si.args[i], ti.args[i], true));
  for (size_t i = 0; i < aux_names.size(); ++i) aux.push_back(array_for(aux_names[i], si.aux[i], ti.aux[i], false));
  const std::vector<op::OpReqType> reqs(arg_names.size(), op::kNullOp);
  p->exec_ = std::make_unique<graph::GraphExecutor>(s, model.ctx, args, grads, reqs, aux, nullptr);

  for (const NDArray& out : p->exec_->outputs()) {
    std::vector<uint32_t> dims;
    for (dim_t d : out.shape()) {
      MX_CHECK_KIND(d >= 0 && d <= static_cast<dim_t>(UINT32_MAX), "ValueError")
          << "an output of shape " << out.shape() << " does not fit the predict API's 32-bit dims";
      dims.push_back(static_cast<uint32_t>(d));
    }
    p->output_shapes_.push_back(std::move(dims));
  }
  return p;
}

std::unique_ptr<Predictor> Predictor::Reshape(const InputShapes& inputs) const {
  InputShapes merged = inputs_;
  std::set<std::string> named;
  for (const auto& in : inputs) {
    MX_CHECK_KIND(named.insert(in.first).second, "ValueError") << "input '" << in.first << "' is given twice";
    auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.first == in.first; });
    if (it != merged.end())
      it->second = in.second;
    else
      merged.push_back(in);
  }
  return Bind(model_, merged, weights_, nullptr);
}

void Predictor::SetInput(const std::string& key, const float* data, size_t size) {
  auto it = input_arrays_.find(key);
  if (it == input_arrays_.end()) {
    std::vector<std::string> names;
    for (const auto& in : inputs_) names.push_back(in.first);
    MX_THROW("ValueError") << "'" << key << "' is not an input of this predictor; its inputs are: " << Join(names);
  }
  const NDArray& dst = it->second;
  MX_CHECK_KIND(size == static_cast<size_t>(dst.Size()), "ValueError")
      << "input '" << key << "' has shape " << dst.shape() << " (" << dst.Size() << " elements), " << size
      << " values given";
  if (dst.dtype() == kFloat32 && dst.ctx().IsHostMemory()) {
    dst.SyncCopyFromCPU(data, size);
    return;
  }
  // Other dtypes and devices go through a float32 host array.
  NDArray host(dst.shape(), Context::CPU(), false, kFloat32);
  host.SyncCopyFromCPU(data, size);
  CopyFromTo(host, dst);
}

const NDArray& Predictor::output(uint32_t index) const {
  MX_CHECK_KIND(index < num_outputs(), "IndexError")
      << "output index " << index << " is out of range: the predictor has " << num_outputs() << " output(s)";
  return exec_->outputs()[index];
}

const std::vector<uint32_t>& Predictor::output_shape(uint32_t index) const {
  output(index);  // range check
  return output_shapes_[index];
}

void Predictor::GetOutput(uint32_t index, float* data, size_t size) const {
  const NDArray& out = output(index);
  MX_CHECK_KIND(size == static_cast<size_t>(out.Size()), "ValueError")
      << "output " << index << " has shape " << out.shape() << " (" << out.Size() << " elements), the buffer holds "
      << size;
  if (out.dtype() == kFloat32 && out.ctx().IsHostMemory()) {
    out.SyncCopyToCPU(data, size);
    return;
  }
  NDArray host(out.shape(), Context::CPU(), false, kFloat32);
  CopyFromTo(out, host);
  host.SyncCopyToCPU(data, size);
}

}  // namespace capi
}  // namespace mxnet
