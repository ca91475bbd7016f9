/*!
 * \file conv_act_fused.cc
 * \brief `_sg_onednn_conv`: Convolution followed by an element-wise activation, as one op,
 *        optionally adding a residual input before the activation (with_sum):
 *        act(conv(data) + bias [+ sum]). Gluon's hybridized inference emits it for
 *        conv [+ folded BatchNorm] + Activation, and for ResNet v1's conv + BatchNorm + residual
 *        sum + ReLU. With oneDNN the sum and the activation are post-ops of the convolution
 *        primitive (no extra pass over the output); otherwise Convolution's kernel accumulates
 *        onto a copy of the sum and Activation's kernel applies in place. Inference only: the
 *        op has no gradient.
 */
#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/ndarray.h"
#include "operator/nn/conv_param.h"
#include "operator/nn/nn_util.h"
#include "operator/nn/onednn/onednn_conv.h"
#include "operator/nn/onednn/onednn_layout.h"

namespace mxnet {
namespace op {

// Same names and codes as Activation's act_type.
enum FusedActType { kFusedReLU = 0, kFusedSigmoid = 1, kFusedTanh = 2, kFusedSoftReLU = 3, kFusedSoftSign = 4 };

struct ConvActParam : public dmlc::Parameter<ConvActParam> {
  int act_type;
  bool with_sum;
  DMLC_DECLARE_PARAMETER(ConvActParam) {
    DMLC_DECLARE_FIELD(with_sum).set_default(false).describe(
        "Takes a last input `sum`, shaped as the output, added to the convolution's result before "
        "the activation.");
    DMLC_DECLARE_FIELD(act_type)
        .add_enum("relu", kFusedReLU)
        .add_enum("sigmoid", kFusedSigmoid)
        .add_enum("tanh", kFusedTanh)
        .add_enum("softrelu", kFusedSoftReLU)
        .add_enum("softsign", kFusedSoftSign)
        .describe("Activation applied to the convolution's output.");
  }
};
DMLC_REGISTER_PARAMETER(ConvActParam);

namespace {

/*!
 * \brief Parsed attributes: the convolution's own attrs (ConvolutionParam parsed, so
 *        Convolution's shape rule and kernel take them unchanged) and the activation's.
 */
struct ConvActAttrs {
  NodeAttrs conv, act;
  int act_type{kFusedReLU};
  bool with_sum{false};
};

const ConvActAttrs& FusedAttrsOf(const NodeAttrs& attrs) { return attrs.get<ConvActAttrs>(); }

const ConvolutionParam& ConvParamOf(const NodeAttrs& attrs) {
  return attrs.get<ConvActAttrs>().conv.get<ConvolutionParam>();
}

void ParseConvAct(NodeAttrs* attrs) {
  ConvActAttrs parsed;
  std::unordered_map<std::string, std::string> conv_dict, act_dict;
  for (const auto& kv : attrs->dict)
    (kv.first == "act_type" || kv.first == "with_sum" ? act_dict : conv_dict).insert(kv);
  const auto act = act_dict.find("act_type");
  MX_CHECK_KIND(act != act_dict.end(), "ValueError") << OpNameOf(*attrs) << ": act_type is required";
  static const char* const kNames[] = {"relu", "sigmoid", "tanh", "softrelu", "softsign"};
  MX_CHECK_KIND(std::find(std::begin(kNames), std::end(kNames), act->second) != std::end(kNames), "ValueError")
      << OpNameOf(*attrs) << ": act_type must be one of relu, sigmoid, tanh, softrelu, softsign, got '" << act->second
      << "'";
  // Errors name this op: both parsers report attrs.op's name.
  parsed.act.op = attrs->op;
  parsed.act.dict = act_dict;
  ParamParser<ConvActParam>(&parsed.act);
  parsed.act_type = parsed.act.get<ConvActParam>().act_type;
  parsed.with_sum = parsed.act.get<ConvActParam>().with_sum;
  act_dict.erase("with_sum");
  parsed.act = MakeAttrs(Op::Get("Activation"), act_dict, attrs->name);
  parsed.conv.op = attrs->op;
  parsed.conv.name = attrs->name;
  parsed.conv.dict = conv_dict;
  ParamParser<ConvolutionParam>(&parsed.conv);
  attrs->parsed = std::move(parsed);
}

/*! \brief The convolution's own inputs: data, weight [, bias]. */
size_t NumConvInputs(const NodeAttrs& attrs) { return ConvParamOf(attrs).no_bias ? 2 : 3; }

std::vector<std::string> InputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names{"data", "weight"};
  if (!ConvParamOf(attrs).no_bias) names.push_back("bias");
  if (FusedAttrsOf(attrs).with_sum) names.push_back("sum");
  return names;
}

bool ConvActShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!FusedAttrsOf(attrs).with_sum) return Op::Get("Convolution")->infer_shape(FusedAttrsOf(attrs).conv, in, out);
  const size_t n = NumConvInputs(attrs);
  std::vector<TShape> conv_in(in->begin(), in->begin() + n);
  const bool known = Op::Get("Convolution")->infer_shape(FusedAttrsOf(attrs).conv, &conv_in, out);
  std::copy(conv_in.begin(), conv_in.end(), in->begin());
  // The sum is added element by element: it has the output's shape, in either direction.
  TShape& sum = (*in)[n];
  if ((*out)[0].IsKnown()) AssignShape(attrs, &sum, (*out)[0], "input", static_cast<int>(n));
  return known && sum.IsKnown();
}

#if MXNET_USE_ONEDNN
bool OneDNNPostOp(int act_type, dnnl::algorithm* alg) {
  switch (act_type) {
    case kFusedReLU:
      *alg = dnnl::algorithm::eltwise_relu;
      return true;
    case kFusedSigmoid:
      *alg = dnnl::algorithm::eltwise_logistic;
      return true;
    case kFusedTanh:
      *alg = dnnl::algorithm::eltwise_tanh;
      return true;
    case kFusedSoftReLU:
      *alg = dnnl::algorithm::eltwise_soft_relu;
      return true;
    default:
      return false;  // softsign has no oneDNN eltwise
  }
}
#endif

void ConvActCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  // act(y + conv) is not y + act(conv): the op only overwrites (imperative forward calls do).
  MX_CHECK_KIND(req[0] != kAddTo, "ValueError")
      << OpNameOf(attrs) << ": cannot accumulate into its output (req kAddTo); use Convolution and Activation";
  const ConvActAttrs& f = attrs.get<ConvActAttrs>();
  const size_t n_conv = NumConvInputs(attrs);
#if MXNET_USE_ONEDNN
  const ConvolutionParam& p = f.conv.get<ConvolutionParam>();
  const bool cl = ChannelLast(p.layout);
  const ConvGeom g = MakeConvGeom(f.conv, p, ToChannelFirst(in[0].shape_, cl));
  dnnl::algorithm alg;
  if (onednn::Enabled() && onednn::ConvSupported(g, in[0].type_flag_) && OneDNNPostOp(f.act_type, &alg)) {
    onednn::PostOps post;
    if (f.with_sum) {
      post.sum_scale = 1.f;
      post.sum_src = &in[n_conv];
      post.sum_input = n_conv;
    }
    post.eltwise.push_back({alg, 0.f, 0.f});
    onednn::ConvForward(g, cl, ctx.is_train, in[0], in[1], p.no_bias ? nullptr : &in[2], out[0], post);
    return;
  }
  // Two kernels in sequence: the activation reads the convolution's output plainly, so the
  // convolution must not leave it in a blocked layout. Inputs are made plain and the
  // arrays hidden from both kernels.
  onednn::PlainInputs();
#endif
  KernelArraysScope plain_only(nullptr);
  const std::vector<TBlob> conv_in(in.begin(), in.begin() + n_conv);
  if (f.with_sum) {  // the convolution accumulates onto a copy of the sum
    const TBlob& sum = in[n_conv];
    if (sum.dptr_ != out[0].dptr_) std::memcpy(out[0].dptr_, sum.dptr_, sum.Bytes());
    Op::Get("Convolution")->GetCompute(Context::kCPU)->operator()(f.conv, ctx, conv_in, {kAddTo}, out);
  } else {
    Op::Get("Convolution")->GetCompute(Context::kCPU)->operator()(f.conv, ctx, conv_in, req, out);
  }
  Op::Get("Activation")->GetCompute(Context::kCPU)->operator()(f.act, ctx, {out[0]}, {kWriteInplace}, {out[0]});
}

}  // namespace

MXNET_REGISTER_OP(_sg_onednn_conv)
    .describe(
        "Convolution followed by an activation (relu, sigmoid, tanh, softrelu, softsign) in one op, with "
        "an optional residual input added before the activation (with_sum); with oneDNN the sum and the "
        "activation run as post-ops of the convolution. Inference only (no gradient).")
    .set_num_inputs([](const NodeAttrs& a) {
      return static_cast<uint32_t>(NumConvInputs(a) + (FusedAttrsOf(a).with_sum ? 1 : 0));
    })
    .set_num_outputs(1)
    .set_list_input_names(InputNames)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Convolution weight.")
    .add_argument("bias", "NDArray-or-Symbol", "Convolution bias.")
    .add_argument("sum", "NDArray-or-Symbol", "With with_sum: the residual added before the activation.")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .add_arguments(ConvActParam::__FIELDS__())
    .set_attr_parser(ParseConvAct)
    .set_infer_shape(ConvActShape)
    .set_infer_type(ElemwiseType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
    .set_compute(Context::kCPU, ConvActCompute)
    .set_accepts_opaque_layout(true);

}  // namespace op
}  // namespace mxnet
