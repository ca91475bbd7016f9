/*!
 * \file ctc_loss_param.h
 * \brief CTCLoss's parameters, the reading and checking of its labels and lengths, and the
 *        log-space addition of its recursions, shared by the CPU kernels (ctc_loss.cc) and the
 *        CUDA kernels (cuda/ctc_loss.cu).
 */
#ifndef MXNET_OPERATOR_NN_CTC_LOSS_PARAM_H_
#define MXNET_OPERATOR_NN_CTC_LOSS_PARAM_H_

#include <dmlc/parameter.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/tensor.h"
#include "mxnet/xinline.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct CTCLossParam : public dmlc::Parameter<CTCLossParam> {
  bool use_data_lengths, use_label_lengths;
  int blank_label;
  DMLC_DECLARE_PARAMETER(CTCLossParam) {
    DMLC_DECLARE_FIELD(use_data_lengths)
        .set_default(false)
        .describe(
            "Whether the data lengths are given by `data_lengths`. If false, every sequence has the maximum "
            "sequence length.");
    DMLC_DECLARE_FIELD(use_label_lengths)
        .set_default(false)
        .describe(
            "Whether the label lengths are given by `label_lengths`. If false, a label ends at the first "
            "padding value: 0 when blank_label is 'first', -1 when it is 'last'.");
    DMLC_DECLARE_FIELD(blank_label)
        .set_default(0)
        .add_enum("first", 0)
        .add_enum("last", 1)
        .describe(
            "The class reserved for the blank: 'first' (class 0; labels 1..alphabet_size-1, padding 0) or "
            "'last' (class alphabet_size-1; labels 0..alphabet_size-2, padding -1).");
  }
};

/*! \brief log(0): probability 0 in the log-space recursions. */
constexpr double kCtcNegInf = -std::numeric_limits<double>::infinity();

/*! \brief log(exp(a) + exp(b)) without overflow; -inf stands for probability 0. */
MXNET_XINLINE double CtcLogAdd(double a, double b) {
  if (a == kCtcNegInf) return b;
  if (b == kCtcNegInf) return a;
  const double hi = a < b ? b : a, lo = b < a ? b : a;  // std::max(a, b), std::min(a, b)
  return hi + std::log1p(std::exp(lo - hi));
}

/*! \brief One sample's frames and target, read and checked before the parallel part. */
struct CtcSample {
  int64_t frames = 0;
  std::vector<int64_t> target;
};

/*! \brief Values of an index-like blob (labels, lengths) as doubles. */
inline std::vector<double> CtcReadValues(const TBlob& b) {
  std::vector<double> v(b.Size());
  MXNET_TYPE_SWITCH(b.type_flag_, T, {
    const T* p = b.dptr<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

/*!
 * \brief Frames and target of every sample; throws ValueError naming the sample on bad input.
 *        in: the forward inputs (data, label, [data_lengths], [label_lengths]); label and the
 *        lengths are read through their dptr_ (host memory), data only through its shape.
 */
inline std::vector<CtcSample> CtcReadSamples(const NodeAttrs& attrs, const std::vector<TBlob>& in) {
  const auto& p = attrs.get<CTCLossParam>();
  const int64_t T = in[0].shape_[0], N = in[0].shape_[1], C = in[0].shape_[2];
  const int64_t L = in[1].shape_[1];
  const int64_t blank = p.blank_label == 0 ? 0 : C - 1;
  const int64_t padding = p.blank_label == 0 ? 0 : -1;
  const std::vector<double> label = CtcReadValues(in[1]);
  std::vector<double> data_len, label_len;
  size_t next = 2;
  if (p.use_data_lengths) data_len = CtcReadValues(in[next++]);
  if (p.use_label_lengths) label_len = CtcReadValues(in[next++]);
  std::vector<CtcSample> samples(N);
  for (int64_t n = 0; n < N; ++n) {
    CtcSample& s = samples[n];
    s.frames = T;
    if (p.use_data_lengths) {
      const double v = data_len[n];
      MX_CHECK_KIND(v >= 0 && v <= T && v == std::floor(v), "ValueError")
          << OpNameOf(attrs) << ": data_lengths[" << n << "] = " << v << " is not a whole number of frames in [0, " << T
          << "]";
      s.frames = static_cast<int64_t>(v);
    }
    int64_t len = L;
    if (p.use_label_lengths) {
      const double v = label_len[n];
      MX_CHECK_KIND(v >= 0 && v <= L && v == std::floor(v), "ValueError")
          << OpNameOf(attrs) << ": label_lengths[" << n << "] = " << v << " is not a whole length in [0, " << L << "]";
      len = static_cast<int64_t>(v);
    } else {
      for (int64_t j = 0; j < L; ++j) {
        if (static_cast<int64_t>(label[n * L + j]) == padding) {
          len = j;
          break;
        }
      }
    }
    s.target.resize(len);
    for (int64_t j = 0; j < len; ++j) {
      const double v = label[n * L + j];
      const int64_t k = static_cast<int64_t>(v);
      MX_CHECK_KIND(v == std::floor(v) && k >= 0 && k < C && k != blank, "ValueError")
          << OpNameOf(attrs) << ": label[" << n << ", " << j << "] = " << v << " is not a class index in ["
          << (blank == 0 ? 1 : 0) << ", " << (blank == 0 ? C - 1 : C - 2) << "] (blank_label '"
          << (p.blank_label == 0 ? "first" : "last") << "' reserves class " << blank << ")";
      s.target[j] = k;
    }
  }
  return samples;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CTC_LOSS_PARAM_H_
