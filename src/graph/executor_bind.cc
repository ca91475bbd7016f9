/*!
 * \file executor_bind.cc
 * \brief simple_bind and reshape (MXNet 1.x semantics, graph.md section 3).
 */
#include "graph/executor_bind.h"

#include <algorithm>
#include <sstream>

#include "graph/symbol_infer.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace graph {
namespace {

/*! \brief An array of shape over the front of buf (which holds at least as many elements). */
NDArray ViewInto(const NDArray& buf, const TShape& shape) {
  if (buf.shape() == shape) return buf;
  const int64_t n = shape.Size();
  return buf.Reshape(TShape{buf.Size()}).Slice(0, n).Reshape(shape);
}

std::string ShapeList(const std::vector<std::string>& names, const std::vector<TShape>& shapes) {
  std::ostringstream os;
  for (size_t i = 0; i < names.size(); ++i) os << names[i] << ": " << shapes[i] << "\n";
  return os.str();
}

}  // namespace

NDArray Zeros(const TShape& shape, Context ctx, int dtype) {
  std::ostringstream s;
  s << shape;
  return imperative::InvokeByName("_zeros", {}, {{"shape", s.str()}, {"ctx", ctx.ToString()}, {"dtype", DTypeName(dtype)}})[0];
}

std::unique_ptr<GraphExecutor> SimpleBind(const Symbol& s, const SimpleBindArgs& a) {
  const auto arg_names = s.ListInputNames(InputOption::kReadOnlyArgs);
  const auto aux_names = s.ListInputNames(InputOption::kAuxiliaryStates);
  const auto inputs = s.ListInputNames(InputOption::kAll);
  auto is_input = [&](const std::string& n) { return std::find(inputs.begin(), inputs.end(), n) != inputs.end(); };
  std::map<std::string, TShape> shapes;
  for (const auto& kv : a.shapes)
    if (is_input(kv.first)) shapes.insert(kv);  // other names are ignored, as in MXNet
  std::map<std::string, int> dtypes;
  for (const auto& kv : a.dtypes)
    if (is_input(kv.first)) dtypes.insert(kv);
  const auto si = InferSymbolShapes(s, shapes);
  if (!si.complete) {
    MX_THROW("RuntimeError") << "simple_bind error. Arguments:\n"
                             << [&] {
                                  std::ostringstream os;
                                  for (const auto& kv : a.shapes) os << kv.first << ": " << kv.second << "\n";
                                  return os.str();
                                }()
                             << "InferShape pass cannot decide shapes for the following arguments (-1 means "
                                "unknown dimensions). Please consider providing them as inputs:\n"
                             << ShapeList(arg_names, si.args) << ShapeList(aux_names, si.aux);
  }
  auto ti = InferSymbolTypes(s, dtypes);
  if (!ti.complete) {
    // Arguments nothing decides default to float32.
    for (size_t i = 0; i < arg_names.size(); ++i)
      if (ti.args[i] < 0) dtypes[arg_names[i]] = kFloat32;
    ti = InferSymbolTypes(s, dtypes);
    MX_CHECK_KIND(ti.complete, "TypeError") << "simple_bind: cannot infer the dtypes of every argument";
  }
  const auto shared_arg_list = a.shared_exec ? a.shared_exec->symbol().ListInputNames(InputOption::kReadOnlyArgs)
                                             : std::vector<std::string>{};
  std::vector<NDArray> args, grads, aux;
  std::vector<op::OpReqType> reqs;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    const std::string& name = arg_names[i];
    auto rit = a.reqs.find(name);
    const op::OpReqType req = rit != a.reqs.end() ? rit->second : a.default_req;
    reqs.push_back(req);
    const bool shared = std::find(a.shared_arg_names.begin(), a.shared_arg_names.end(), name) != a.shared_arg_names.end();
    NDArray arr, grad;
    if (shared && a.shared_exec) {
      auto it = std::find(shared_arg_list.begin(), shared_arg_list.end(), name);
      MX_CHECK_KIND(it != shared_arg_list.end(), "ValueError")
          << "simple_bind: shared argument " << name << " is not an argument of the shared executor";
      const size_t k = it - shared_arg_list.begin();
      arr = a.shared_exec->args()[k];
      MX_CHECK_KIND(arr.shape() == si.args[i] && arr.dtype() == ti.args[i], "ValueError")
          << "simple_bind: shared argument " << name << " has shape " << arr.shape() << " in the shared executor, "
          << si.args[i] << " here";
      grad = a.shared_exec->grads()[k];
    } else if (a.shared_buffer && a.shared_buffer->count(name)) {
      NDArray& buf = (*a.shared_buffer)[name];
      if (buf.Size() >= si.args[i].Size() && buf.dtype() == ti.args[i]) {
        arr = ViewInto(buf, si.args[i]);
      } else {
        arr = Zeros(si.args[i], a.ctx, ti.args[i]);
        buf = arr;
      }
    } else {
      arr = Zeros(si.args[i], a.ctx, ti.args[i]);
      if (a.shared_buffer) (*a.shared_buffer)[name] = arr;
    }
    if (req != op::kNullOp && (grad.is_none() || grad.shape() != arr.shape())) grad = Zeros(si.args[i], a.ctx, ti.args[i]);
    if (req == op::kNullOp) grad = NDArray();
    args.push_back(arr);
    grads.push_back(grad);
  }
  for (size_t i = 0; i < aux_names.size(); ++i) {
    NDArray arr;
    if (a.shared_exec) {
      const auto list = a.shared_exec->symbol().ListInputNames(InputOption::kAuxiliaryStates);
      auto it = std::find(list.begin(), list.end(), aux_names[i]);
      if (it != list.end()) {
        arr = a.shared_exec->aux()[it - list.begin()];
        MX_CHECK_KIND(arr.shape() == si.aux[i], "ValueError")
            << "simple_bind: shared auxiliary state " << aux_names[i] << " has shape " << arr.shape() << ", needs "
            << si.aux[i];
      }
    }
    if (arr.is_none()) arr = Zeros(si.aux[i], a.ctx, ti.aux[i]);
    aux.push_back(arr);
  }
  return std::make_unique<GraphExecutor>(s, a.ctx, args, grads, reqs, aux, a.shared_exec);
}

std::unique_ptr<GraphExecutor> Reshape(GraphExecutor* ex, const std::map<std::string, TShape>& shapes,
                                       bool partial_shaping, bool allow_up_sizing) {
  const Symbol& s = ex->symbol();
  const auto arg_names = s.ListInputNames(InputOption::kReadOnlyArgs);
  const auto aux_names = s.ListInputNames(InputOption::kAuxiliaryStates);
  const auto si = InferSymbolShapes(s, shapes);
  MX_CHECK_KIND(si.complete, "ValueError") << "reshape: the new shapes leave some argument shapes unknown:\n"
                                           << ShapeList(arg_names, si.args);
  auto remake = [&](const NDArray& old, const TShape& shape, const std::string& name, bool given) -> NDArray {
    if (old.is_none()) return old;
    if (old.shape() == shape) return old;
    MX_CHECK_KIND(given || partial_shaping, "ValueError")
        << "Shape of unspecified arg: " << name << " changed. This can cause the new executor to not share parameters "
        << "with the old one. Please check for error in network. If this is intended, set partial_shaping=True "
           "to suppress this warning.";
    if (shape.Size() <= old.Size()) return ViewInto(old, shape);
    MX_CHECK_KIND(allow_up_sizing, "ValueError")
        << "New shape of arg: " << name << " " << shape << " larger than original " << old.shape()
        << ". First making a big executor and then down sizing it is more efficient than the reverse. If you "
           "really want to up size, set allow_up_sizing=True to enable allocation of new arrays.";
    return Zeros(shape, old.ctx(), old.dtype());
  };
  std::vector<NDArray> args, grads, aux;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    const bool given = shapes.count(arg_names[i]) > 0;
    args.push_back(remake(ex->args()[i], si.args[i], arg_names[i], given));
    grads.push_back(remake(ex->grads()[i], si.args[i], arg_names[i], given));
  }
  for (size_t i = 0; i < aux_names.size(); ++i) aux.push_back(remake(ex->aux()[i], si.aux[i], aux_names[i], false));
  return std::make_unique<GraphExecutor>(s, ex->ctx(), args, grads, ex->reqs(), aux, ex);
}

}  // namespace graph
}  // namespace mxnet
