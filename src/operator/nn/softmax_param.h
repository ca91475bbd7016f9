/*!
 * \file softmax_param.h
 * \brief The parameters of softmax, log_softmax and softmin and how their kernels view a call
 *        (the axis, temperature and sign as an input scale), shared by the reference and tiled
 *        kernels (softmax.cc) and the oneDNN entries (onednn/onednn_softmax_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_SOFTMAX_PARAM_H_
#define MXNET_OPERATOR_NN_SOFTMAX_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/op.h"
#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

struct SoftmaxParam : public dmlc::Parameter<SoftmaxParam> {
  int axis;
  dmlc::optional<double> temperature;
  dmlc::optional<int> dtype;
  dmlc::optional<bool> use_length;
  DMLC_DECLARE_PARAMETER(SoftmaxParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe("The axis along which to compute softmax.");
    DMLC_DECLARE_FIELD(temperature).set_default(dmlc::optional<double>()).describe("Temperature parameter in softmax");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float16", kFloat16).add_enum("float32", kFloat32).add_enum("float64", kFloat64)
        .set_default(dmlc::optional<int>())
        .describe("DType of the output in case this can't be inferred. Defaults to the same as input's dtype.");
    DMLC_DECLARE_FIELD(use_length).set_default(dmlc::optional<bool>(false))
        .describe("Whether to use the length input as a mask over the data input.");
  }
};

enum SoftmaxKind { kSoftmax, kLogSoftmax, kSoftmin };

inline bool UseLength(const NodeAttrs& a) {
  const auto& p = a.get<SoftmaxParam>();
  return p.use_length.has_value() && p.use_length.value();
}

inline double Temperature(const NodeAttrs& a) {
  const auto& p = a.get<SoftmaxParam>();
  return p.temperature.has_value() ? p.temperature.value() : 1.0;
}

/*! \brief data viewed as (outer, n, inner) around the axis. */
struct AxisView {
  int64_t outer, n, inner;
  int axis;
  AxisView(const NodeAttrs& attrs, const TShape& s) {
    axis = NormAxis(attrs, attrs.get<SoftmaxParam>().axis, s.ndim());
    outer = s.ProdShape(0, axis);
    n = s[axis];
    inner = s.ProdShape(axis + 1, s.ndim());
  }
};

/*! \brief softmax(x/T), log_softmax(x/T) and softmin(x) = softmax(-x/T) as softmax of scale * x. */
inline float InputScale(SoftmaxKind kind, double temp) {
  return static_cast<float>((kind == kSoftmin ? -1.0 : 1.0) / temp);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_SOFTMAX_PARAM_H_
