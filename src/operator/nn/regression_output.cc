/*!
 * \file regression_output.cc
 * \brief Loss heads of symbolic training: LinearRegressionOutput, MAERegressionOutput,
 *        LogisticRegressionOutput and MakeLoss. Their forward is (almost) the identity; their
 *        gradient ignores the head gradient, as MXNet defines them.
 */
#include <cmath>
#include <cstring>
#include <vector>

#include "operator/common/op_family.h"
#include "operator/nn/nn_util.h"
#include "operator/nn/regression_output_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(RegressionOutputParam);
DMLC_REGISTER_PARAMETER(MakeLossParam);

namespace {

bool RegressionShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  TShape& ls = (*in)[1];
  // A (batch, 1) output may take (batch,) labels.
  const TShape want = ds.ndim() == 2 && ds[1] == 1 ? TShape{ds[0]} : ds;
  if (ls.ndim() < 0) {
    ls = want;
  } else {
    MX_CHECK_KIND(ls.Size() == ds.Size(), "ValueError")
        << attrs.op->name << ": label shape " << ls << " does not match data shape " << ds;
  }
  AssignShape(attrs, &(*out)[0], ds, "output", 0);
  return true;
}

template <Regression R>
void RegressionForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    const int64_t n = in[0].Size();
    for (int64_t i = 0; i < n; ++i) {
      Store(y + i, req[0], RegressionFwd<R>(static_cast<double>(x[i])));
    }
  });
}

/*! \brief inputs (output, label); outputs (ddata, dlabel = 0). */
template <Regression R>
void RegressionBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[1] != kNullOp && req[1] != kAddTo) std::memset(out[1].dptr_, 0, out[1].Bytes());
  if (req[0] == kNullOp) return;
  const double scale = RegressionGradScale(attrs.get<RegressionOutputParam>(), in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* y = in[0].dptr<D>();
    D* dx = out[0].dptr<D>();
    std::vector<double> label(in[1].Size());
    MXNET_TYPE_SWITCH(in[1].type_flag_, L, {
      const L* l = in[1].dptr<L>();
      for (size_t i = 0; i < label.size(); ++i) label[i] = static_cast<double>(l[i]);
    });
    for (int64_t i = 0; i < in[0].Size(); ++i) {
      Store(dx + i, req[0], RegressionGrad<R>(static_cast<double>(y[i]) - label[i]) * scale);
    }
  });
}

/*! \brief A regression head; its gradient is the op `_backward_<name>`. */
template <Regression R>
Op& RegressionFamily(Op& op, const char* doc) {
  const std::string backward = "_backward_" + op.name;
  return op.describe(doc)
      .set_num_inputs(2)
      .set_num_outputs(1)
      .set_list_input_names([](const NodeAttrs&) { return std::vector<std::string>{"data", "label"}; })
      .add_argument("data", "NDArray-or-Symbol", "Input data to the function.")
      .add_argument("label", "NDArray-or-Symbol", "Input label to the function.")
      .add_arguments(RegressionOutputParam::__FIELDS__())
      .set_attr_parser(ParamParser<RegressionOutputParam>)
      .set_infer_shape(RegressionShape)
      .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
        if ((*in)[0] < 0) return false;
        if ((*in)[1] < 0) (*in)[1] = (*in)[0];
        AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
        return true;
      })
      .set_compute(Context::kCPU, RegressionForward<R>)
      .set_gradient([backward](const NodePtr& n, const std::vector<NodeEntry>&) {
        return MakeNodeOutputs(backward, n->attrs.name + "_backward", {NodeEntry{n, 0, 0}, n->inputs[1]},
                               n->attrs.dict);
      });
}

template <Regression R>
Op& RegressionBackwardFamily(Op& op) {
  return op.describe("Gradient of a regression output with respect to data (and a zero gradient for label).")
      .set_num_inputs(2)
      .set_num_outputs(2)
      .add_argument("output", "NDArray-or-Symbol", "The forward output.")
      .add_argument("label", "NDArray-or-Symbol", "The label.")
      .add_arguments(RegressionOutputParam::__FIELDS__())
      .set_attr_parser(ParamParser<RegressionOutputParam>)
      .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
        AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
        AssignShape(attrs, &(*out)[1], (*in)[1], "output", 1);
        return (*in)[0].IsKnown() && (*in)[1].IsKnown();
      })
      .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
        AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
        AssignType(attrs, &(*out)[1], (*in)[1], "output", 1);
        return (*in)[0] >= 0 && (*in)[1] >= 0;
      })
      .set_compute(Context::kCPU, RegressionBackward<R>);
}

/*! \brief inputs (data); output d = grad_scale / norm everywhere (the head gradient is ignored). */
void MakeLossBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<MakeLossParam>();
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    const int64_t n = in[0].Size();
    double norm = 1.0;
    if (p.normalization == 1) {
      norm = in[0].shape_.ndim() > 0 ? static_cast<double>(in[0].shape_[0]) : 1.0;
    } else if (p.normalization == 2) {
      int64_t valid = 0;
      for (int64_t i = 0; i < n; ++i) valid += static_cast<double>(x[i]) > p.valid_thresh;
      norm = static_cast<double>(valid > 0 ? valid : 1);
    }
    D* dx = out[0].dptr<D>();
    for (int64_t i = 0; i < n; ++i) Store(dx + i, req[0], p.grad_scale / norm);
  });
}

}  // namespace

MXNET_REGISTER_OP(MakeLoss)
    .describe("Makes its input a loss: the forward is the identity, the gradient is grad_scale (divided by the "
              "batch size or the count of valid elements with normalization), whatever the head gradient.")
    .add_alias("make_loss")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_arguments(MakeLossParam::__FIELDS__())
    .set_attr_parser(ParamParser<MakeLossParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU,
                 [](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
                   if (req[0] == kNullOp || req[0] == kWriteInplace) return;
                   MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
                     const D* x = in[0].dptr<D>();
                     D* y = out[0].dptr<D>();
                     for (int64_t i = 0; i < in[0].Size(); ++i) Store(y + i, req[0], static_cast<double>(x[i]));
                   });
                 })
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>&) {
      return std::vector<NodeEntry>{MakeNode("_backward_MakeLoss", n->attrs.name + "_backward", {n->inputs[0]},
                                             n->attrs.dict)};
    });

MXNET_REGISTER_OP(_backward_MakeLoss)
    .describe("Gradient of MakeLoss: grad_scale over the normalisation, everywhere.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "The loss input.")
    .add_arguments(MakeLossParam::__FIELDS__())
    .set_attr_parser(ParamParser<MakeLossParam>)
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(ElemwiseType)
    // The CUDA kernel counts the elements above valid_thresh of normalization 'valid' in device scratch.
    .set_resource_request([](const NodeAttrs& a) {
      return a.get<MakeLossParam>().normalization == 2 ? std::vector<ResourceRequest>{ResourceRequest::kTempSpace}
                                                       : std::vector<ResourceRequest>{};
    })
    .set_compute(Context::kCPU, MakeLossBackward);

namespace {
MXNET_REGISTER_OP_FAMILY(LinearRegressionOutput, RegressionFamily<Regression::kLinear>,
                         "Least squares regression head: the output is the data; the gradient is (data - label) * "
                         "grad_scale / (outputs per sample).");
MXNET_REGISTER_OP_FAMILY(_backward_LinearRegressionOutput, RegressionBackwardFamily<Regression::kLinear>);
MXNET_REGISTER_OP_FAMILY(MAERegressionOutput, RegressionFamily<Regression::kMAE>,
                         "Mean absolute error head: the output is the data; the gradient is sign(data - label) * "
                         "grad_scale / (outputs per sample).");
MXNET_REGISTER_OP_FAMILY(_backward_MAERegressionOutput, RegressionBackwardFamily<Regression::kMAE>);
MXNET_REGISTER_OP_FAMILY(LogisticRegressionOutput, RegressionFamily<Regression::kLogistic>,
                         "Logistic regression head: the output is sigmoid(data); the gradient is (output - label) * "
                         "grad_scale / (outputs per sample).");
MXNET_REGISTER_OP_FAMILY(_backward_LogisticRegressionOutput, RegressionBackwardFamily<Regression::kLogistic>);
}  // namespace

}  // namespace op
}  // namespace mxnet
