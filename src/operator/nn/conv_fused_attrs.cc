/*!
 * \file conv_fused_attrs.cc
 * \brief `_sg_onednn_conv`'s attribute parsing, input names, shape and dtype rules.
 */
#include "operator/nn/conv_fused_attrs.h"

#include <algorithm>
#include <iterator>
#include <unordered_map>

#include "operator/common/broadcast_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ConvFusedParam);

namespace {

const char* const kFusedKeys[] = {"act_type", "with_act", "with_sum", "sum_first", "with_bn", "eps", "fix_gamma"};
const char* const kActNames[] = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};

bool IsFusedKey(const std::string& k) { return std::find(std::begin(kFusedKeys), std::end(kFusedKeys), k) != std::end(kFusedKeys); }

ConvFusedSlots MakeSlots(const ConvFusedParam& p, bool no_bias) {
  ConvFusedSlots s;
  int i = 0;
  if (p.with_sum && p.sum_first) s.sum = i++;
  s.data = i++;
  s.weight = i++;
  if (!no_bias) s.bias = i++;
  if (p.with_bn) {
    s.gamma = i;
    i += 4;
  }
  if (p.with_sum && !p.sum_first) s.sum = i++;
  s.count = static_cast<uint32_t>(i);
  return s;
}

/*! \brief Dtype of BatchNorm's parameters for data of dtype t: float32 for half precision. */
int BNParamType(int t) { return t == kFloat16 || t == kBfloat16 ? kFloat32 : t; }

}  // namespace

void ParseConvFused(NodeAttrs* attrs) {
  ConvFusedAttrs f;
  std::unordered_map<std::string, std::string> conv_dict, own_dict;
  for (const auto& kv : attrs->dict) (IsFusedKey(kv.first) ? own_dict : conv_dict).insert(kv);
  const auto act = own_dict.find("act_type");
  if (act != own_dict.end() && act->second != "None")
    MX_CHECK_KIND(std::find(std::begin(kActNames), std::end(kActNames), act->second) != std::end(kActNames), "ValueError")
        << OpNameOf(*attrs) << ": act_type must be one of relu, sigmoid, tanh, softrelu, softsign, got '" << act->second
        << "'";
  // Errors name this op: both parsers report attrs.op's name.
  NodeAttrs own;
  own.op = attrs->op;
  own.dict = own_dict;
  ParamParser<ConvFusedParam>(&own);
  f.param = own.get<ConvFusedParam>();
  const ConvFusedParam& p = f.param;
  f.with_act = p.with_act.has_value() ? p.with_act.value() : p.act_type.has_value();
  MX_CHECK_KIND(!f.with_act || p.act_type.has_value(), "ValueError")
      << OpNameOf(*attrs) << ": with_act=True needs an act_type";
  MX_CHECK_KIND(f.with_act || !p.act_type.has_value(), "ValueError")
      << OpNameOf(*attrs) << ": act_type is given but with_act=False";
  MX_CHECK_KIND(f.with_act || p.with_sum || p.with_bn, "ValueError")
      << OpNameOf(*attrs) << ": nothing to fuse: give act_type, with_bn=True or with_sum=True";
  MX_CHECK_KIND(!p.sum_first || p.with_sum, "ValueError") << OpNameOf(*attrs) << ": sum_first needs with_sum=True";
  MX_CHECK_KIND(p.eps >= 0, "ValueError") << OpNameOf(*attrs) << ": eps must be >= 0, got " << p.eps;
  f.conv.op = attrs->op;
  f.conv.name = attrs->name;
  f.conv.dict = conv_dict;
  ParamParser<ConvolutionParam>(&f.conv);
  if (f.with_act) f.act = FusedActivationAttrs(kActNames[p.act_type.value()], attrs->name);
  if (p.with_bn) {
    f.conv_folded = f.conv;
    f.conv_folded.dict["no_bias"] = "False";
    ParamParser<ConvolutionParam>(&f.conv_folded);
    f.fold = std::make_shared<BNFoldCache>();
  }
  f.slots = MakeSlots(p, f.conv.get<ConvolutionParam>().no_bias);
  attrs->parsed = std::move(f);
}

std::vector<std::string> ConvFusedInputNames(const NodeAttrs& attrs) {
  const ConvFusedSlots& s = ConvFusedOf(attrs).slots;
  std::vector<std::string> names(s.count);
  names[s.data] = "data";
  names[s.weight] = "weight";
  if (s.bias >= 0) names[s.bias] = "bias";
  if (s.gamma >= 0) {
    const char* bn[] = {"gamma", "beta", "moving_mean", "moving_var"};
    for (int k = 0; k < 4; ++k) names[s.gamma + k] = bn[k];
  }
  if (s.sum >= 0) names[s.sum] = "sum";
  return names;
}

bool ConvFusedShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ConvFusedAttrs& f = ConvFusedOf(attrs);
  const ConvFusedSlots& s = f.slots;
  std::vector<int> conv_slots{s.data, s.weight};
  if (s.bias >= 0) conv_slots.push_back(s.bias);
  std::vector<TShape> conv_in, conv_out(1);
  for (int i : conv_slots) conv_in.push_back((*in)[i]);
  bool known = Op::Get("Convolution")->infer_shape(f.conv, &conv_in, &conv_out);
  for (size_t k = 0; k < conv_slots.size(); ++k) (*in)[conv_slots[k]] = conv_in[k];
  if (s.gamma >= 0) {
    const TShape c{static_cast<dim_t>(f.conv.get<ConvolutionParam>().num_filter)};
    const char* bn[] = {"gamma", "beta", "moving_mean", "moving_var"};
    for (int k = 0; k < 4; ++k) AssignShape(attrs, &(*in)[s.gamma + k], c, bn[k], s.gamma + k);
  }
  if (s.sum < 0) {
    if (conv_out[0].IsKnown()) AssignShape(attrs, &(*out)[0], conv_out[0], "output", 0);
    return known && (*out)[0].IsKnown();
  }
  if (!conv_out[0].IsKnown()) return false;
  // The sum is added with broadcasting; unknown, it takes the convolution's shape (as an
  // element-wise add would give it).
  TShape& sum = (*in)[s.sum];
  if (!sum.IsKnown()) AssignShape(attrs, &sum, conv_out[0], "sum", s.sum);
  TShape o;
  MX_CHECK_KIND(BroadcastShapes(conv_out[0], sum, &o), "ValueError")
      << OpNameOf(attrs) << ": input " << s.sum << " (sum) of shape " << sum
      << " does not broadcast against the convolution's output of shape " << conv_out[0];
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return known && (*out)[0].IsKnown();
}

bool ConvFusedType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const ConvFusedSlots& s = ConvFusedOf(attrs).slots;
  std::vector<int> same{s.data, s.weight};
  if (s.bias >= 0) same.push_back(s.bias);
  if (s.sum >= 0) same.push_back(s.sum);
  int t = (*out)[0];
  for (int i : same)
    if (t < 0) t = (*in)[i];
  if (t < 0) return false;
  for (int i : same) AssignType(attrs, &(*in)[i], t, "input", i);
  AssignType(attrs, &(*out)[0], t, "output", 0);
  if (s.gamma >= 0)
    for (int k = 0; k < 4; ++k) AssignType(attrs, &(*in)[s.gamma + k], BNParamType(t), "input", s.gamma + k);
  return true;
}

}  // namespace op
}  // namespace mxnet
