/*!
 * \file conv_act_fused.cc
 * \brief `_sg_onednn_conv`: Convolution followed by an element-wise activation, as one op.
 *        Gluon's hybridized inference emits it for conv [+ folded BatchNorm] + Activation.
 *        With oneDNN the activation is an eltwise post-op of the convolution primitive (no
 *        second pass over the output); otherwise Convolution's kernel runs and Activation's
 *        kernel applies in place. Inference only: the op has no gradient.
 */
#include <algorithm>
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
  DMLC_DECLARE_PARAMETER(ConvActParam) {
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
};

const ConvolutionParam& ConvParamOf(const NodeAttrs& attrs) {
  return attrs.get<ConvActAttrs>().conv.get<ConvolutionParam>();
}

void ParseConvAct(NodeAttrs* attrs) {
  ConvActAttrs parsed;
  std::unordered_map<std::string, std::string> conv_dict, act_dict;
  for (const auto& kv : attrs->dict) (kv.first == "act_type" ? act_dict : conv_dict).insert(kv);
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
  parsed.act = MakeAttrs(Op::Get("Activation"), act_dict, attrs->name);
  parsed.conv.op = attrs->op;
  parsed.conv.name = attrs->name;
  parsed.conv.dict = conv_dict;
  ParamParser<ConvolutionParam>(&parsed.conv);
  attrs->parsed = std::move(parsed);
}

std::vector<std::string> InputNames(bool no_bias) {
  if (no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

bool ConvActShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  return Op::Get("Convolution")->infer_shape(attrs.get<ConvActAttrs>().conv, in, out);
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
#if MXNET_USE_ONEDNN
  const ConvolutionParam& p = f.conv.get<ConvolutionParam>();
  const bool cl = ChannelLast(p.layout);
  const ConvGeom g = MakeConvGeom(f.conv, p, ToChannelFirst(in[0].shape_, cl));
  dnnl::algorithm alg;
  if (onednn::Enabled() && onednn::ConvSupported(g, in[0].type_flag_) && OneDNNPostOp(f.act_type, &alg)) {
    onednn::PostOps post;
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
  Op::Get("Convolution")->GetCompute(Context::kCPU)->operator()(f.conv, ctx, in, req, out);
  Op::Get("Activation")->GetCompute(Context::kCPU)->operator()(f.act, ctx, {out[0]}, {kWriteInplace}, {out[0]});
}

}  // namespace

MXNET_REGISTER_OP(_sg_onednn_conv)
    .describe(
        "Convolution followed by an activation (relu, sigmoid, tanh, softrelu, softsign) in one op; with "
        "oneDNN the activation runs as a post-op of the convolution. Inference only (no gradient).")
    .set_num_inputs([](const NodeAttrs& a) { return ConvParamOf(a).no_bias ? 2u : 3u; })
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs& a) { return InputNames(ConvParamOf(a).no_bias); })
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Convolution weight.")
    .add_argument("bias", "NDArray-or-Symbol", "Convolution bias.")
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
