/*!
 * \file dropout_param.h
 * \brief Dropout's parameters, when it drops anything and its mask draw, shared by its reference
 *        kernel (dropout.cc), the CUDA kernel (cuda/nn_heads.cu) and the entry passing a blocked
 *        input through (onednn/onednn_dropout_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_DROPOUT_PARAM_H_
#define MXNET_OPERATOR_NN_DROPOUT_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include "mxnet/op.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

enum DropoutMode { kDropoutTraining = 0, kDropoutAlways = 1 };

struct DropoutParam : public dmlc::Parameter<DropoutParam> {
  float p;
  int mode;
  TShape axes;
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(DropoutParam) {
    DMLC_DECLARE_FIELD(p).set_default(0.5f).set_range(0, 1).describe("Fraction of the input that gets dropped out during training time.");
    DMLC_DECLARE_FIELD(mode).set_default(kDropoutTraining)
        .add_enum("training", kDropoutTraining).add_enum("always", kDropoutAlways)
        .describe("Whether to only turn on dropout during training or to also turn on for inference.");
    DMLC_DECLARE_FIELD(axes).set_default(TShape(0)).describe("Axes for variational dropout kernel.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(dmlc::optional<bool>(false))
        .describe("Whether to turn off cudnn in dropout operator. This option is ignored if axes is specified.");
  }
};

/*! \brief Whether this call drops elements; otherwise the op is the identity with a mask of ones. */
inline bool DropoutActive(const DropoutParam& p, const OpContext& ctx) {
  return (ctx.is_train || p.mode == kDropoutAlways) && p.p > 0.f;
}

/*!
 * \brief The mask value of draw r: scale (1 / keep) with probability keep, else 0. One draw
 *        of the launch's stream per element of the mask's reduced shape, on every device.
 */
template <typename C>
MXNET_XINLINE C DropoutMaskValue(const RandomStream& rnd, int64_t r, double keep, C scale) {
  return rnd.ForElement(r).UniformD() < keep ? scale : C(0);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_DROPOUT_PARAM_H_
