/*!
 * \file softmax_output_param.h
 * \brief SoftmaxOutput's parameters, its (outer, classes, inner) view of the data and the
 *        gradient's target, shared by the CPU kernels (softmax_output.cc) and the CUDA
 *        kernels (cuda/nn_heads.cu).
 */
#ifndef MXNET_OPERATOR_NN_SOFTMAX_OUTPUT_PARAM_H_
#define MXNET_OPERATOR_NN_SOFTMAX_OUTPUT_PARAM_H_

#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/tensor.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

enum SoftmaxNorm { kNormNull = 0, kNormBatch = 1, kNormValid = 2 };

struct SoftmaxOutputParam : public dmlc::Parameter<SoftmaxOutputParam> {
  float grad_scale, ignore_label, smooth_alpha;
  bool multi_output, use_ignore, preserve_shape, out_grad;
  int normalization;
  DMLC_DECLARE_PARAMETER(SoftmaxOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient by a float factor.");
    DMLC_DECLARE_FIELD(ignore_label).set_default(-1.0f)
        .describe("The instances whose labels == ignore_label will be ignored during backward, if use_ignore is true.");
    DMLC_DECLARE_FIELD(multi_output).set_default(false)
        .describe("If set to true, the softmax function will be computed along axis 1.");
    DMLC_DECLARE_FIELD(use_ignore).set_default(false)
        .describe("If set to true, the ignore_label value will not contribute to the backward gradient.");
    DMLC_DECLARE_FIELD(preserve_shape).set_default(false)
        .describe("If set to true, the softmax function will be computed along the last axis (-1).");
    DMLC_DECLARE_FIELD(normalization).set_default(kNormNull)
        .add_enum("null", kNormNull).add_enum("batch", kNormBatch).add_enum("valid", kNormValid)
        .describe("Normalizes the gradient.");
    DMLC_DECLARE_FIELD(out_grad).set_default(false).describe("Multiplies gradient with output gradient element-wise.");
    DMLC_DECLARE_FIELD(smooth_alpha).set_default(0.0f)
        .describe("Constant for computing a label smoothed version of cross-entropy for the backwards pass.");
  }
};

/*! \brief data as (outer, n classes, inner): the softmax runs over n. */
struct SMView {
  int64_t outer, n, inner;
  SMView(const SoftmaxOutputParam& p, const TShape& s) {
    if (p.preserve_shape) {
      n = s[s.ndim() - 1];
      outer = s.Size() / (n ? n : 1);
      inner = 1;
    } else if (p.multi_output) {
      outer = s[0];
      n = s.ndim() > 1 ? s[1] : 1;
      inner = s.ndim() > 2 ? s.ProdShape(2, s.ndim()) : 1;
    } else {
      outer = s[0];
      n = s.ndim() > 1 ? s.ProdShape(1, s.ndim()) : 1;
      inner = 1;
    }
  }
  int64_t Rows() const { return outer * inner; }
};

/*!
 * \brief Target probability of class k for a sample of class cls: one-hot, or with label
 *        smoothing alpha, 1 - alpha on cls and alpha spread over the n - 1 others.
 */
template <typename C>
MXNET_XINLINE C SMClassTarget(int64_t k, int64_t cls, C alpha, int64_t n) {
  if (alpha != C(0)) return k == cls ? C(1) - alpha : alpha / C(n > 1 ? n - 1 : 1);
  return k == cls ? C(1) : C(0);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_SOFTMAX_OUTPUT_PARAM_H_
