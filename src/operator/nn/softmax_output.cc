/*!
 * \file softmax_output.cc
 * \brief SoftmaxOutput (alias Softmax): forward is a softmax; the gradient ignores the head
 *        gradient (unless out_grad) and is (p - onehot(label)) * grad_scale / norm with
 *        ignore_label, normalization null/batch/valid, multi_output, preserve_shape and
 *        label smoothing, as MXNet defines it.
 */
#include <cmath>
#include <vector>

#include "operator/nn/nn_util.h"
#include "operator/nn/softmax_output_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(SoftmaxOutputParam);

namespace {

bool SMShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = attrs.get<SoftmaxOutputParam>();
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  const SMView v(p, ds);
  TShape& ls = (*in)[1];
  if (ls.ndim() < 0) {
    if (p.preserve_shape) ls = TShape(ds.begin(), ds.end() - 1);
    else if (p.multi_output) ls = ds.ndim() > 2 ? TShape{ds[0], v.inner} : TShape{ds[0]};
    else ls = TShape{ds[0]};
  } else {
    MX_CHECK_KIND(ls == ds || ls.Size() == v.Rows(), "ValueError")
        << "SoftmaxOutput: label shape " << ls << " does not match data shape " << ds << " (expected "
        << v.Rows() << " labels, or probabilities of the data's shape)";
  }
  AssignShape(attrs, &(*out)[0], ds, "output", 0);
  return true;
}

template <typename D>
void SMForward(const SMView& v, const D* x, D* y, OpReqType req) {
  using C = real_compute_t<D>;
#pragma omp parallel for schedule(static) if (UseParallel(v.Rows() * v.n))
  for (int64_t r = 0; r < v.Rows(); ++r) {
    const int64_t base = (r / v.inner) * v.n * v.inner + r % v.inner;
    C mx = C(x[base]);
    for (int64_t k = 1; k < v.n; ++k) mx = std::max(mx, C(x[base + k * v.inner]));
    C sum = 0;
    for (int64_t k = 0; k < v.n; ++k) sum += std::exp(C(x[base + k * v.inner]) - mx);
    for (int64_t k = 0; k < v.n; ++k) Store(y + base + k * v.inner, req, std::exp(C(x[base + k * v.inner]) - mx) / sum);
  }
}

void SMCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SMView v(attrs.get<SoftmaxOutputParam>(), in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, { SMForward<D>(v, in[0].dptr<D>(), out[0].dptr<D>(), req[0]); });
}

/*! \brief dx under req for one dtype; label holds the labels (or probabilities) as doubles. */
template <typename D>
void SMGrad(const SoftmaxOutputParam& p, const SMView& v, const D* y, const D* og, const std::vector<double>& label,
            bool prob_label, D* dx, OpReqType req) {
  using C = real_compute_t<D>;
  double norm = 1.0;
  if (p.normalization == kNormBatch) {
    norm = static_cast<double>(v.outer);
  } else if (p.normalization == kNormValid && !prob_label) {
    int64_t valid = 0;
    for (double l : label) valid += !(p.use_ignore && l == p.ignore_label);
    norm = static_cast<double>(valid > 0 ? valid : 1);
  }
  const C scale = static_cast<C>(p.grad_scale / norm);
  const C alpha = static_cast<C>(p.smooth_alpha);
#pragma omp parallel for schedule(static) if (UseParallel(v.Rows() * v.n))
  for (int64_t r = 0; r < v.Rows(); ++r) {
    const int64_t base = (r / v.inner) * v.n * v.inner + r % v.inner;
    const double l = prob_label ? 0.0 : label[r];
    const bool ignored = !prob_label && p.use_ignore && l == p.ignore_label;
    const int64_t cls = static_cast<int64_t>(l);
    for (int64_t k = 0; k < v.n; ++k) {
      const int64_t j = base + k * v.inner;
      C g = 0;
      if (!ignored) {
        const C target = prob_label ? static_cast<C>(label[j]) : SMClassTarget(k, cls, alpha, v.n);
        g = (C(y[j]) - target) * scale;
        if (p.out_grad) g *= C(og[j]);
      }
      Store(dx + j, req, g);
    }
  }
}

/*! \brief inputs (ograd, output, label); outputs (ddata, dlabel = 0). */
void SMBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<SoftmaxOutputParam>();
  if (req[1] != kNullOp && req[1] != kAddTo) std::memset(out[1].dptr_, 0, out[1].Bytes());
  if (req[0] == kNullOp) return;
  const SMView v(p, in[1].shape_);
  const bool prob_label = in[2].shape_ == in[1].shape_ && !(v.n == 1 && in[2].Size() == v.Rows());
  std::vector<double> label(in[2].Size());
  MXNET_TYPE_SWITCH(in[2].type_flag_, L, {
    const L* l = in[2].dptr<L>();
    for (size_t i = 0; i < label.size(); ++i) label[i] = static_cast<double>(l[i]);
  });
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    SMGrad<D>(p, v, in[1].dptr<D>(), in[0].dptr<D>(), label, prob_label, out[0].dptr<D>(), req[0]);
  });
}

}  // namespace

MXNET_REGISTER_OP(SoftmaxOutput)
    .describe("Computes the gradient of cross entropy loss with respect to softmax output. The forward pass "
              "is a softmax; the backward pass ignores the head gradient and returns (p - onehot(label)) "
              "* grad_scale / normalization.")
    .add_alias("Softmax")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs&) { return std::vector<std::string>{"data", "label"}; })
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_argument("label", "NDArray-or-Symbol", "Ground truth label.")
    .add_arguments(SoftmaxOutputParam::__FIELDS__())
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .set_infer_shape(SMShape)
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      if ((*in)[0] < 0) return false;
      if ((*in)[1] < 0) (*in)[1] = (*in)[0];
      AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
      return true;
    })
    .set_compute(Context::kCPU, SMCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return MakeNodeOutputs("_backward_SoftmaxOutput", n->attrs.name + "_backward",
                             {og[0], NodeEntry{n, 0, 0}, n->inputs[1]}, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_SoftmaxOutput)
    .describe("Gradient of SoftmaxOutput with respect to data (and a zero gradient for label).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output (used only with out_grad).")
    .add_argument("output", "NDArray-or-Symbol", "The forward output (probabilities).")
    .add_argument("label", "NDArray-or-Symbol", "The label.")
    .add_arguments(SoftmaxOutputParam::__FIELDS__())
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
      AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
      return (*in)[1].IsKnown() && (*in)[2].IsKnown();
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      AssignType(attrs, &(*out)[0], (*in)[1], "output", 0);
      AssignType(attrs, &(*out)[1], (*in)[2], "output", 1);
      return (*in)[1] >= 0 && (*in)[2] >= 0;
    })
    // The CUDA kernel counts the valid labels of normalization 'valid' in device scratch.
    .set_resource_request([](const NodeAttrs& a) {
      return a.get<SoftmaxOutputParam>().normalization == kNormValid
                 ? std::vector<ResourceRequest>{ResourceRequest::kTempSpace}
                 : std::vector<ResourceRequest>{};
    })
    .set_compute(Context::kCPU, SMBackward);

}  // namespace op
}  // namespace mxnet
