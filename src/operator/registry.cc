/*!
 * \file registry.cc
 * \brief The operator registry and the Op builder methods.
 */
#include <algorithm>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

OpRegistry* OpRegistry::Get() {
  static OpRegistry* inst = new OpRegistry();  // never destroyed: ops outlive static teardown
  return inst;
}

Op& OpRegistry::Register(const std::string& name) {
  MX_CHECK(by_name_.count(name) == 0) << "operator " << name << " registered twice";
  Op* op = new Op();
  op->name = name;
  op->index = static_cast<uint32_t>(ops_.size());
  ops_.push_back(op);
  by_name_[name] = op;
  return *op;
}

void OpRegistry::AddAlias(Op* op, const std::string& alias) {
  auto it = by_name_.find(alias);
  MX_CHECK(it == by_name_.end() || it->second == op) << "alias " << alias << " of " << op->name
                                                      << " already names operator " << it->second->name;
  by_name_[alias] = op;
}

const Op* OpRegistry::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<std::string> OpRegistry::ListAllNames() const {
  std::vector<std::string> names;
  names.reserve(by_name_.size());
  for (const auto& kv : by_name_) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

const Op* Op::Find(const std::string& name) { return OpRegistry::Get()->Find(name); }

const Op* Op::Get(const std::string& name) {
  const Op* op = Find(name);
  MX_CHECK_KIND(op != nullptr, "ValueError") << "Cannot find operator " << name;
  return op;
}

Op& Op::describe(const std::string& doc) {
  description = doc;
  return *this;
}
Op& Op::add_alias(const std::string& alias) {
  aliases.push_back(alias);
  OpRegistry::Get()->AddAlias(this, alias);
  return *this;
}
Op& Op::set_num_inputs(uint32_t n) {
  num_inputs = n;
  return *this;
}
Op& Op::set_num_inputs(FNumInOut fn) {
  get_num_inputs = std::move(fn);
  return *this;
}
Op& Op::set_num_outputs(uint32_t n) {
  num_outputs = n;
  return *this;
}
Op& Op::set_num_outputs(FNumInOut fn) {
  get_num_outputs = std::move(fn);
  return *this;
}
Op& Op::set_num_visible_outputs(FNumInOut fn) {
  get_num_visible_outputs = std::move(fn);
  return *this;
}
Op& Op::set_key_var_num_args(const std::string& key) {
  key_var_num_args = key;
  return *this;
}
Op& Op::add_argument(const std::string& arg_name, const std::string& type, const std::string& doc) {
  arguments.push_back({arg_name, type, doc});
  return *this;
}
Op& Op::add_arguments(const std::vector<dmlc::ParamFieldInfo>& fields) {
  for (const auto& f : fields) arguments.push_back({f.name, f.type_info_str, f.description});
  return *this;
}
Op& Op::set_list_input_names(FListNames fn) {
  list_input_names = std::move(fn);
  return *this;
}
Op& Op::set_list_output_names(FListNames fn) {
  list_output_names = std::move(fn);
  return *this;
}
Op& Op::set_attr_parser(FAttrParser fn) {
  attr_parser = std::move(fn);
  return *this;
}
Op& Op::set_infer_shape(FInferShape fn) {
  infer_shape = std::move(fn);
  return *this;
}
Op& Op::set_infer_type(FInferType fn) {
  infer_type = std::move(fn);
  return *this;
}
Op& Op::set_compute(Context::DeviceType dev, FCompute fn) {
  compute[dev == Context::kGPU ? Context::kGPU : Context::kCPU] = std::move(fn);
  return *this;
}
Op& Op::set_inplace_option(FInplaceOption fn) {
  inplace_option = std::move(fn);
  return *this;
}
Op& Op::set_inplace_identity(std::function<std::vector<bool>(const NodeAttrs&)> fn) {
  inplace_identity = std::move(fn);
  return *this;
}
Op& Op::set_resource_request(FResourceRequest fn) {
  resource_request = std::move(fn);
  return *this;
}
Op& Op::set_resource_request(std::vector<ResourceRequest> reqs) {
  resource_request = [reqs](const NodeAttrs&) { return reqs; };
  return *this;
}
Op& Op::set_mutate_inputs(FMutateInputs fn) {
  mutate_inputs = std::move(fn);
  return *this;
}
Op& Op::set_aux_inputs(FMutateInputs fn) {
  aux_inputs = std::move(fn);
  return *this;
}
Op& Op::set_gradient(FGradient fn) {
  gradient = std::move(fn);
  return *this;
}
std::vector<std::string> Op::InputNames(const NodeAttrs& a) const {
  if (list_input_names) return list_input_names(a);
  std::vector<std::string> names;
  const uint32_t n = NumInputs(a);
  for (const auto& arg : arguments) {
    if (names.size() == n) break;
    if (arg.type_info.rfind("NDArray-or-Symbol", 0) != 0) continue;
    if (arg.type_info.find("[]") != std::string::npos) break;  // variadic: numbered below
    names.push_back(arg.name);
  }
  if (names.size() == n) return names;
  names.clear();
  for (uint32_t i = 0; i < n; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

std::vector<std::string> Op::OutputNames(const NodeAttrs& a) const {
  if (list_output_names) return list_output_names(a);
  const uint32_t n = NumOutputs(a);
  if (n == 1) return {"output"};
  std::vector<std::string> names;
  for (uint32_t i = 0; i < n; ++i) names.push_back("output" + std::to_string(i));
  return names;
}

NodeAttrs MakeAttrs(const Op* op, const std::unordered_map<std::string, std::string>& dict,
                    const std::string& node_name) {
  NodeAttrs attrs;
  attrs.op = op;
  attrs.name = node_name;
  attrs.dict = dict;
  if (op->attr_parser) op->attr_parser(&attrs);
  return attrs;
}

}  // namespace op
}  // namespace mxnet
