/*!
 * \file op_helpers.cc
 * \brief Helpers every registration uses: gradient node building, shape/type assignment
 *        with errors naming the op, TShape parameter parsing, scratch space.
 */
#include <sstream>

#include "mxnet/op.h"
#include "mxnet/storage.h"

namespace mxnet {

std::istream& operator>>(std::istream& is, TShape& s) {
  // dmlc reads a field's whole string through this; consume it all.
  std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  try {
    s = TShape::Parse(text);
    if (s.ndim() < 0 && text.find("None") == std::string::npos) is.setstate(std::ios::failbit);
  } catch (const Error&) {
    is.setstate(std::ios::failbit);
  }
  // A successful parse leaves the stream at eof, which dmlc accepts.
  return is;
}

namespace op {

TempSpace::~TempSpace() {
  if (handle.dptr) Storage::Get()->Free(handle);
}

void* Resource::GetSpace(size_t bytes) const {
  MX_CHECK(type == ResourceRequest::kTempSpace && space) << "GetSpace on a resource that is not temp space";
  if (space->handle.size < bytes) {
    if (space->handle.dptr) Storage::Get()->Free(space->handle);
    space->handle = Storage::Get()->Alloc(bytes, ctx);
  }
  return space->handle.dptr;
}

std::vector<NodeEntry> MakeNodeOutputs(const std::string& op_name, const std::string& node_name,
                                       const std::vector<NodeEntry>& inputs,
                                       const std::unordered_map<std::string, std::string>& params) {
  const Op* op = Op::Get(op_name);
  NodePtr n = Node::Create();
  std::unordered_map<std::string, std::string> dict = params;
  if (!op->key_var_num_args.empty() && !dict.count(op->key_var_num_args))
    dict[op->key_var_num_args] = std::to_string(inputs.size());
  n->attrs = MakeAttrs(op, dict, node_name);
  n->inputs = inputs;
  const uint32_t nin = op->NumInputs(n->attrs);
  MX_CHECK(nin == inputs.size()) << op->name << " takes " << nin << " inputs, gradient built it with "
                                 << inputs.size();
  std::vector<NodeEntry> outs;
  for (uint32_t i = 0; i < op->NumOutputs(n->attrs); ++i) outs.push_back(NodeEntry{n, i, 0});
  return outs;
}

NodeEntry MakeNode(const std::string& op_name, const std::string& node_name, const std::vector<NodeEntry>& inputs,
                   const std::unordered_map<std::string, std::string>& params) {
  return MakeNodeOutputs(op_name, node_name, inputs, params)[0];
}

NodeEntry MakeZeroGrad(const NodePtr& n, uint32_t input_index) {
  return MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[input_index]});
}

std::vector<NodeEntry> ZeroGrads(const NodePtr& n, const std::vector<NodeEntry>&) {
  std::vector<NodeEntry> grads;
  for (uint32_t i = 0; i < n->inputs.size(); ++i) grads.push_back(MakeZeroGrad(n, i));
  return grads;
}

std::string ShapesToString(const std::vector<TShape>& shapes) {
  std::ostringstream os;
  for (size_t i = 0; i < shapes.size(); ++i) os << (i ? ", " : "") << shapes[i];
  return os.str();
}

namespace {
const char* OpName(const NodeAttrs& attrs) { return attrs.op ? attrs.op->name.c_str() : "operator"; }
}  // namespace

void AssignShape(const NodeAttrs& attrs, TShape* slot, const TShape& s, const char* which, int index) {
  if (s.ndim() < 0) return;
  if (slot->ndim() < 0) {
    *slot = s;
    return;
  }
  bool ok = slot->ndim() == s.ndim();
  for (int i = 0; ok && i < s.ndim(); ++i) {
    if ((*slot)[i] < 0) (*slot)[i] = s[i];
    else ok = s[i] < 0 || (*slot)[i] == s[i];
  }
  MX_CHECK_KIND(ok, "ValueError") << OpName(attrs) << ": shape inconsistent for " << which << " " << index
                                  << ": expected " << s << ", got " << *slot;
}

void AssignType(const NodeAttrs& attrs, int* slot, int t, const char* which, int index) {
  if (t < 0) return;
  if (*slot < 0) {
    *slot = t;
    return;
  }
  MX_CHECK_KIND(*slot == t, "TypeError") << OpName(attrs) << ": dtype mismatch for " << which << " " << index
                                         << ": expected " << DTypeName(t) << ", got " << DTypeName(*slot);
}

bool ElemwiseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape common;
  for (const auto& s : *in) {
    if (s.ndim() < 0) continue;
    if (common.ndim() < 0) {
      common = s;
      continue;
    }
    MX_CHECK_KIND(s == common, "ValueError")
        << OpName(attrs) << ": operands must have the same shape, got " << ShapesToString(*in);
  }
  for (const auto& s : *out)
    if (common.ndim() < 0 && s.ndim() >= 0) common = s;
  if (common.ndim() < 0) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignShape(attrs, &(*in)[i], common, "input", static_cast<int>(i));
  for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, &(*out)[i], common, "output", static_cast<int>(i));
  return common.IsKnown();
}

bool ElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) {
    int v = (*in)[i];
    if (v < 0) continue;
    if (t < 0) t = v;
    MX_CHECK_KIND(v == t, "TypeError") << OpName(attrs) << ": operands must have the same dtype, got "
                                       << DTypeName(t) << " and " << DTypeName(v);
  }
  for (int v : *out)
    if (t < 0) t = v;
  if (t < 0) return false;
  for (size_t i = 0; i < in->size(); ++i) AssignType(attrs, &(*in)[i], t, "input", static_cast<int>(i));
  for (size_t i = 0; i < out->size(); ++i) AssignType(attrs, &(*out)[i], t, "output", static_cast<int>(i));
  return true;
}

}  // namespace op
}  // namespace mxnet
