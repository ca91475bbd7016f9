/*!
 * \file fc_act_fused.cc
 * \brief `_sg_onednn_fully_connected`: FullyConnected followed by an activation, as one op:
 *        act(x W^T + b). The CPU subgraph backend rewrites inference graphs into it. Kernel
 *        list: onednn (the activation as an eltwise post-op of the inner product, in
 *        onednn/onednn_fc_kernels.cc), then the reference here, which runs FullyConnected's
 *        list and then Activation's in place. Inference only.
 */
#include <string>
#include <unordered_map>
#include <vector>

#include "operator/kernel_dispatch.h"
#include "operator/nn/fc_act_fused.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct FCActParam : public dmlc::Parameter<FCActParam> {
  int act_type;
  DMLC_DECLARE_PARAMETER(FCActParam) {
    DMLC_DECLARE_FIELD(act_type).MXNET_ADD_FUSED_ACTS.describe("Activation applied to the output.");
  }
};
DMLC_REGISTER_PARAMETER(FCActParam);

namespace {

void ParseFCAct(NodeAttrs* attrs) {
  FCActAttrs f;
  std::unordered_map<std::string, std::string> fc_dict, act_dict;
  for (const auto& kv : attrs->dict) (kv.first == "act_type" ? act_dict : fc_dict).insert(kv);
  MX_CHECK_KIND(act_dict.count("act_type"), "ValueError") << OpNameOf(*attrs) << ": act_type is required";
  // Errors name this op: both parsers report attrs.op's name.
  NodeAttrs act;
  act.op = attrs->op;
  act.dict = act_dict;
  ParamParser<FCActParam>(&act);
  f.act_type = act.get<FCActParam>().act_type;
  f.act = FusedActivationAttrs(act_dict["act_type"], attrs->name);
  f.fc.op = attrs->op;
  f.fc.name = attrs->name;
  f.fc.dict = fc_dict;
  ParamParser<FullyConnectedParam>(&f.fc);
  attrs->parsed = std::move(f);
}

bool NoBias(const NodeAttrs& a) { return FCActOf(a).fc.get<FullyConnectedParam>().no_bias; }

void FCActCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MX_CHECK_KIND(req[0] != kAddTo, "ValueError")
      << OpNameOf(attrs) << ": cannot accumulate into its output (req kAddTo); use FullyConnected and Activation";
  const FCActAttrs& f = FCActOf(attrs);
  RunKernelPlain(*Op::Get("FullyConnected"), Context::kCPU, f.fc, ctx, in, {kWriteTo}, out);
  ApplyActivationInPlace(f.act, ctx, out[0]);
}

}  // namespace

MXNET_REGISTER_OP(_sg_onednn_fully_connected)
    .describe(
        "FullyConnected followed by an activation (relu, sigmoid, tanh, softrelu, softsign) in one op; with "
        "oneDNN the activation runs as a post-op of the inner product. Inference only (no gradient).")
    .set_num_inputs([](const NodeAttrs& a) { return NoBias(a) ? 2u : 3u; })
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs& a) {
      return NoBias(a) ? std::vector<std::string>{"data", "weight"} : std::vector<std::string>{"data", "weight", "bias"};
    })
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(FullyConnectedParam::__FIELDS__())
    .add_arguments(FCActParam::__FIELDS__())
    .set_attr_parser(ParseFCAct)
    .set_infer_shape([](const NodeAttrs& a, std::vector<TShape>* in, std::vector<TShape>* out) {
      return Op::Get("FullyConnected")->infer_shape(FCActOf(a).fc, in, out);
    })
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, FCActCompute);

}  // namespace op
}  // namespace mxnet
