/*!
 * \file ctc_loss.cc
 * \brief CTCLoss (aliases ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss): the connectionist
 *        temporal classification loss of Graves et al. over unnormalised activations.
 *
 * data (T, N, C) holds activations (softmax is applied inside), label (N, L) the target
 * indices. blank_label 'first' reserves class 0 for the blank (labels 1..C-1, padding 0),
 * 'last' reserves class C-1 (labels 0..C-2, padding -1). Without label_lengths a label ends at
 * the first padding value; without data_lengths every sequence has T frames. The output is
 * -log p(label | data) per sample; a label no alignment of the frames can produce (too few
 * frames) gives 0 and a zero gradient, as MXNet 1.x does.
 *
 * Both passes run the alpha-beta recursion in log space, per sample, in double precision. The
 * backward op recomputes it instead of keeping a (T, N, C) gradient from the forward, so
 * inference pays for the forward recursion only.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "operator/common/op_family.h"
#include "operator/nn/ctc_loss_param.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(CTCLossParam);

namespace {

uint32_t CtcNumInputs(const NodeAttrs& a) {
  const auto& p = a.get<CTCLossParam>();
  return 2u + (p.use_data_lengths ? 1u : 0u) + (p.use_label_lengths ? 1u : 0u);
}

std::vector<std::string> CtcInputNames(const NodeAttrs& a) {
  const auto& p = a.get<CTCLossParam>();
  std::vector<std::string> names{"data", "label"};
  if (p.use_data_lengths) names.push_back("data_lengths");
  if (p.use_label_lengths) names.push_back("label_lengths");
  return names;
}

/*!
 * \brief The recursion for one sample. x points at (t=0, n, c=0); frames are `stride` values
 *        apart. Returns log p(target | x) (-inf when no alignment exists). When grad is given
 *        (same layout as x), writes scale * d(-log p)/dx for the sample's frames.
 */
template <typename D>
double CtcSampleLogProb(const D* x, int64_t stride, int64_t C, int64_t blank, const CtcSample& s, double scale, D* grad,
                        OpReqType req) {
  const int64_t T = s.frames, L = static_cast<int64_t>(s.target.size()), S = 2 * L + 1;
  // log-softmax of each frame
  std::vector<double> lp(T * C);
  for (int64_t t = 0; t < T; ++t) {
    const D* row = x + t * stride;
    double hi = kCtcNegInf;
    for (int64_t c = 0; c < C; ++c) hi = std::max(hi, static_cast<double>(row[c]));
    double sum = 0;
    for (int64_t c = 0; c < C; ++c) sum += std::exp(static_cast<double>(row[c]) - hi);
    const double norm = hi + std::log(sum);
    for (int64_t c = 0; c < C; ++c) lp[t * C + c] = static_cast<double>(row[c]) - norm;
  }
  // extended target: blank, l1, blank, l2, ..., blank
  auto sym = [&](int64_t i) { return i % 2 == 0 ? blank : s.target[i / 2]; };
  // a skip from i-2 to i is allowed onto a label different from the one before it
  auto can_skip = [&](int64_t i) { return i % 2 == 1 && i >= 2 && sym(i) != sym(i - 2); };
  if (T == 0) {
    // no frames: only the empty label has an alignment (the empty one)
    return L == 0 ? 0.0 : kCtcNegInf;
  }
  std::vector<double> alpha(T * S, kCtcNegInf);
  alpha[0] = lp[blank];
  if (S > 1) alpha[1] = lp[sym(1)];
  for (int64_t t = 1; t < T; ++t) {
    const double* prev = &alpha[(t - 1) * S];
    double* cur = &alpha[t * S];
    for (int64_t i = 0; i < S; ++i) {
      double a = prev[i];
      if (i >= 1) a = CtcLogAdd(a, prev[i - 1]);
      if (can_skip(i)) a = CtcLogAdd(a, prev[i - 2]);
      cur[i] = a == kCtcNegInf ? kCtcNegInf : a + lp[t * C + sym(i)];
    }
  }
  const double* last = &alpha[(T - 1) * S];
  const double log_p = S > 1 ? CtcLogAdd(last[S - 1], last[S - 2]) : last[S - 1];
  if (grad == nullptr) return log_p;

  // beta[t][i]: log probability of the frames after t given state i at t (frame t not included)
  std::vector<double> beta(T * S, kCtcNegInf);
  beta[(T - 1) * S + S - 1] = 0.0;
  if (S > 1) beta[(T - 1) * S + S - 2] = 0.0;
  for (int64_t t = T - 2; t >= 0; --t) {
    const double* nxt = &beta[(t + 1) * S];
    double* cur = &beta[t * S];
    const double* lp_next = &lp[(t + 1) * C];
    for (int64_t i = 0; i < S; ++i) {
      double b = nxt[i] == kCtcNegInf ? kCtcNegInf : nxt[i] + lp_next[sym(i)];
      if (i + 1 < S && nxt[i + 1] != kCtcNegInf) b = CtcLogAdd(b, nxt[i + 1] + lp_next[sym(i + 1)]);
      if (i + 2 < S && can_skip(i + 2) && nxt[i + 2] != kCtcNegInf) b = CtcLogAdd(b, nxt[i + 2] + lp_next[sym(i + 2)]);
      cur[i] = b;
    }
  }
  const bool feasible = log_p != kCtcNegInf;
  std::vector<double> occupancy(C);
  for (int64_t t = 0; t < T; ++t) {
    D* g = grad + t * stride;
    std::fill(occupancy.begin(), occupancy.end(), 0.0);
    if (feasible) {
      for (int64_t i = 0; i < S; ++i) {
        const double a = alpha[t * S + i], b = beta[t * S + i];
        if (a != kCtcNegInf && b != kCtcNegInf) occupancy[sym(i)] += std::exp(a + b - log_p);
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      const double d = feasible ? std::exp(lp[t * C + c]) - occupancy[c] : 0.0;
      Store(g + c, req, d * scale);
    }
  }
  return log_p;
}

bool CtcShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& ds = (*in)[0];
  if (!ds.IsKnown()) return false;
  MX_CHECK_KIND(ds.ndim() == 3, "ValueError")
      << OpNameOf(attrs) << ": data must be (sequence_length, batch_size, alphabet_size), got " << ds;
  MX_CHECK_KIND(ds[2] >= 2, "ValueError")
      << OpNameOf(attrs) << ": alphabet_size (data's last axis) must count the blank and at least one label, got "
      << ds[2];
  const TShape& ls = (*in)[1];
  if (!ls.IsKnown()) return false;
  MX_CHECK_KIND(ls.ndim() == 2 && ls[0] == ds[1], "ValueError")
      << OpNameOf(attrs) << ": label must be (batch_size, label_sequence_length) = (" << ds[1] << ", L), got " << ls;
  MX_CHECK_KIND(ls[1] <= ds[0], "ValueError")
      << OpNameOf(attrs) << ": the label sequence length " << ls[1] << " exceeds the data sequence length " << ds[0];
  for (size_t i = 2; i < in->size(); ++i) AssignShape(attrs, &(*in)[i], TShape{ds[1]}, "input", static_cast<int>(i));
  AssignShape(attrs, &(*out)[0], TShape{ds[1]}, "output", 0);
  return true;
}

bool CtcType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const int dt = (*in)[0];
  if (dt < 0) return false;
  for (size_t i = 1; i < in->size(); ++i)
    if ((*in)[i] < 0) (*in)[i] = dt;
  AssignType(attrs, &(*out)[0], dt, "output", 0);
  return true;
}

void CtcForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const std::vector<CtcSample> samples = CtcReadSamples(attrs, in);
  const int64_t N = in[0].shape_[1], C = in[0].shape_[2];
  const int64_t blank = attrs.get<CTCLossParam>().blank_label == 0 ? 0 : C - 1;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    ParallelFor(N, [&](int64_t n) {
      const double log_p = CtcSampleLogProb<D>(x + n * C, N * C, C, blank, samples[n], 1.0, nullptr, kWriteTo);
      Store(y + n, req[0], log_p == kCtcNegInf ? 0.0 : 0.0 - log_p);  // 0 - x: no -0
    });
  });
}

/*! \brief inputs (ograd, data, label, [data_lengths], [label_lengths]); outputs one gradient per
 *         forward input, zero for all but data. */
void CtcBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 1; i < out.size(); ++i)
    if (req[i] != kNullOp && req[i] != kAddTo) std::memset(out[i].dptr_, 0, out[i].Bytes());
  if (req[0] == kNullOp) return;
  const std::vector<TBlob> fwd_in(in.begin() + 1, in.end());
  const std::vector<CtcSample> samples = CtcReadSamples(attrs, fwd_in);
  const int64_t T = in[1].shape_[0], N = in[1].shape_[1], C = in[1].shape_[2];
  const int64_t blank = attrs.get<CTCLossParam>().blank_label == 0 ? 0 : C - 1;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const D* head = in[0].dptr<D>();
    const D* x = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    ParallelFor(N, [&](int64_t n) {
      CtcSampleLogProb<D>(x + n * C, N * C, C, blank, samples[n], static_cast<double>(head[n]), dx + n * C, req[0]);
      // frames past the sample's length do not affect its loss
      for (int64_t t = samples[n].frames; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) Store(dx + (t * N + n) * C + c, req[0], 0.0);
    });
  });
}

}  // namespace

MXNET_REGISTER_OP(CTCLoss)
    .describe(
        "Connectionist temporal classification loss: -log p(label | data) per sample, data being "
        "(sequence_length, batch_size, alphabet_size) activations before softmax and label "
        "(batch_size, label_sequence_length) class indices padded at the end (0 with blank_label 'first', "
        "-1 with 'last'). The output has shape (batch_size,); a label the frames cannot produce gives 0.")
    .add_alias("ctc_loss")
    .add_alias("_contrib_CTCLoss")
    .add_alias("_contrib_ctc_loss")
    .set_num_inputs(CtcNumInputs)
    .set_num_outputs(1)
    .set_list_input_names(CtcInputNames)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_argument("label", "NDArray-or-Symbol", "Ground-truth labels for the loss.")
    .add_argument("data_lengths", "NDArray-or-Symbol",
                  "Lengths of data for each of the samples. Only required when use_data_lengths is true.")
    .add_argument("label_lengths", "NDArray-or-Symbol",
                  "Lengths of labels for each of the samples. Only required when use_label_lengths is true.")
    .add_arguments(CTCLossParam::__FIELDS__())
    .set_attr_parser(ParamParser<CTCLossParam>)
    .set_infer_shape(CtcShape)
    .set_infer_type(CtcType)
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})  // the CUDA kernels' recursions
    .set_compute(Context::kCPU, CtcForward)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      std::vector<NodeEntry> inputs{og[0]};
      inputs.insert(inputs.end(), n->inputs.begin(), n->inputs.end());
      return MakeNodeOutputs("_backward_CTCLoss", n->attrs.name + "_backward", inputs, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_CTCLoss)
    .describe(
        "Gradient of CTCLoss with respect to data (softmax minus the alignment posterior, times the head "
        "gradient of the sample); zero for the label and length inputs.")
    .set_num_inputs([](const NodeAttrs& a) { return CtcNumInputs(a) + 1; })
    .set_num_outputs(CtcNumInputs)
    .set_list_input_names([](const NodeAttrs& a) {
      std::vector<std::string> names{"ograd"};
      for (const auto& n : CtcInputNames(a)) names.push_back(n);
      return names;
    })
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the loss.")
    .add_argument("data", "NDArray-or-Symbol", "The forward data.")
    .add_argument("label", "NDArray-or-Symbol", "The forward label.")
    .add_arguments(CTCLossParam::__FIELDS__())
    .set_attr_parser(ParamParser<CTCLossParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      bool known = true;
      for (size_t i = 0; i < out->size(); ++i) {
        AssignShape(attrs, &(*out)[i], (*in)[i + 1], "output", static_cast<int>(i));
        known = known && (*in)[i + 1].IsKnown();
      }
      return known;
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      bool known = true;
      for (size_t i = 0; i < out->size(); ++i) {
        AssignType(attrs, &(*out)[i], (*in)[i + 1], "output", static_cast<int>(i));
        known = known && (*in)[i + 1] >= 0;
      }
      return known;
    })
    .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})  // the CUDA kernels' recursions
    .set_compute(Context::kCPU, CtcBackward);

}  // namespace op
}  // namespace mxnet
