/*!
 * \file optimizer_common.cc
 * \brief Shape/type rules and registration shared by the optimizer update ops.
 */
#include "operator/optimizer/optimizer_common.h"

#include <sstream>

namespace mxnet {
namespace op {
namespace optimizer {

std::istream& operator>>(std::istream& is, FloatTuple& t) {
  std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  for (char& ch : text)
    if (ch == '(' || ch == ')' || ch == '[' || ch == ']' || ch == ',') ch = ' ';
  std::istringstream ss(text);
  t.v.clear();
  float x;
  while (ss >> x) t.v.push_back(x);
  if (!ss.eof()) is.setstate(std::ios::failbit);
  return is;
}

std::ostream& operator<<(std::ostream& os, const FloatTuple& t) {
  os << '(';
  for (size_t i = 0; i < t.v.size(); ++i) os << (i ? ", " : "") << t.v[i];
  return os << (t.v.size() == 1 ? ",)" : ")");
}

double ScalarInput(const TBlob& b) {
  double v = 0.0;
  MXNET_REAL_TYPE_SWITCH(b.type_flag_, DType, { v = static_cast<double>(b.dptr<DType>()[0]); });
  return v;
}

namespace {

bool UpdateShape(const UpdateLayout& l, const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const size_t g = l.group.size();
  const size_t groups = out->size();
  MX_CHECK_KIND(in->size() == groups * g + l.scalars.size(), "ValueError")
      << attrs.op->name << ": expected " << groups * g + l.scalars.size() << " inputs, got " << in->size();
  bool known = true;
  for (size_t k = 0; k < groups; ++k) {
    TShape& w = (*in)[k * g];
    if (!w.IsKnown()) {
      known = false;
      continue;
    }
    for (size_t j = 1; j < g; ++j) {
      TShape& s = (*in)[k * g + j];
      if (s.ndim() < 0) s = w;
      MX_CHECK_KIND(s == w, "ValueError")
          << attrs.op->name << ": " << l.group[j] << (groups > 1 ? " " + std::to_string(k) : std::string())
          << " has shape " << s << ", the weight has shape " << w;
    }
    AssignShape(attrs, &(*out)[k], w, "output", static_cast<int>(k));
  }
  for (size_t j = 0; j < l.scalars.size(); ++j) {
    TShape& s = (*in)[groups * g + j];
    if (s.ndim() < 0) s = TShape{1};
    MX_CHECK_KIND(s.Size() == 1, "ValueError")
        << attrs.op->name << ": " << l.scalars[j] << " must hold a single value, got shape " << s;
  }
  return known;
}

bool IsReal(int t) { return t == kFloat32 || t == kFloat64 || t == kFloat16 || t == kBfloat16; }

bool UpdateType(const UpdateLayout& l, const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const size_t g = l.group.size();
  const size_t groups = out->size();
  bool known = true;
  for (size_t k = 0; k < groups; ++k) {
    const int w = (*in)[k * g];
    if (w == kUnknownType) {
      known = false;
      continue;
    }
    MX_CHECK_KIND(IsReal(w), "TypeError") << attrs.op->name << ": weight must be floating point, got " << DTypeName(w);
    for (size_t j = 1; j < g; ++j) {
      const int want = (l.fp32_from >= 0 && static_cast<int>(j) >= l.fp32_from) ? kFloat32 : w;
      int& t = (*in)[k * g + j];
      if (t == kUnknownType) t = want;
      MX_CHECK_KIND(t == want, "TypeError")
          << attrs.op->name << ": " << l.group[j] << " must be " << DTypeName(want) << ", got " << DTypeName(t);
    }
    AssignType(attrs, &(*out)[k], w, "output", static_cast<int>(k));
  }
  for (size_t j = 0; j < l.scalars.size(); ++j) {
    int& t = (*in)[groups * g + j];
    if (t == kUnknownType) t = kFloat32;
    MX_CHECK_KIND(IsReal(t), "TypeError")
        << attrs.op->name << ": " << l.scalars[j] << " must be floating point, got " << DTypeName(t);
  }
  return known;
}

}  // namespace

Op& UpdateFamily(Op& op, const std::string& doc, const UpdateLayout& layout,
                 std::function<uint32_t(const NodeAttrs&)> num_groups, FAttrParser parser,
                 const std::vector<dmlc::ParamFieldInfo>& fields, FCompute fn) {
  const uint32_t g = static_cast<uint32_t>(layout.group.size());
  const uint32_t ns = static_cast<uint32_t>(layout.scalars.size());
  op.describe(doc);
  op.set_num_inputs([num_groups, g, ns](const NodeAttrs& a) {
      return num_groups(a) * g + ns;
    }).set_num_outputs([num_groups](const NodeAttrs& a) { return num_groups(a); });
  if (layout.variadic) {
    std::string names;
    for (const auto& n : layout.group) names += (names.empty() ? "" : ", ") + n;
    op.add_argument("data", "NDArray-or-Symbol[]", "Per weight, in order: " + names);
  } else {
    for (const auto& n : layout.group)
      op.add_argument(n, "NDArray-or-Symbol", n == "weight" ? "Weight" : (n == "grad" ? "Gradient" : "State: " + n));
  }
  for (const auto& n : layout.scalars) op.add_argument(n, "NDArray-or-Symbol", n + " (an array holding one value)");
  op.set_attr_parser(std::move(parser))
      .add_arguments(fields)
      .set_infer_shape([layout](const NodeAttrs& a, std::vector<TShape>* in, std::vector<TShape>* out) {
        return UpdateShape(layout, a, in, out);
      })
      .set_infer_type([layout](const NodeAttrs& a, std::vector<int>* in, std::vector<int>* out) {
        return UpdateType(layout, a, in, out);
      })
      .set_mutate_inputs([num_groups, layout, g](const NodeAttrs& a) {
        std::vector<uint32_t> idx;
        for (uint32_t k = 0; k < num_groups(a); ++k)
          for (uint32_t j : layout.mutated) idx.push_back(k * g + j);
        return idx;
      })
      .set_compute(Context::kCPU, std::move(fn));
  if (layout.weight_inplace) {
    op.set_inplace_option([num_groups, g](const NodeAttrs& a) {
      InplacePairs p;
      for (uint32_t k = 0; k < num_groups(a); ++k) p.emplace_back(static_cast<int>(k * g), static_cast<int>(k));
      return p;
    });
  }
  return op;
}

}  // namespace optimizer
}  // namespace op
}  // namespace mxnet
