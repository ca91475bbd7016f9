/*!
 * \file l2_normalization_param.h
 * \brief L2Normalization's parameters and its (outer, L, inner) row view per mode, shared by
 *        the reference kernels (lrn_l2norm.cc) and the CUDA kernels (cuda/lrn_l2norm.cu).
 */
#ifndef MXNET_OPERATOR_NN_L2_NORMALIZATION_PARAM_H_
#define MXNET_OPERATOR_NN_L2_NORMALIZATION_PARAM_H_

#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/op.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {

enum L2Mode { kL2Instance = 0, kL2Channel = 1, kL2Spatial = 2 };
struct L2NormalizationParam : public dmlc::Parameter<L2NormalizationParam> {
  float eps;
  int mode;
  DMLC_DECLARE_PARAMETER(L2NormalizationParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-10f).describe("A small constant for numerical stability.");
    DMLC_DECLARE_FIELD(mode).set_default(kL2Instance)
        .add_enum("instance", kL2Instance).add_enum("channel", kL2Channel).add_enum("spatial", kL2Spatial)
        .describe("Specify the dimension along which to compute L2 norm.");
  }
};

/*! \brief (outer, L, inner) rows normalized together for each mode. */
inline void L2View(const L2NormalizationParam& p, const TShape& s, int64_t* outer, int64_t* L, int64_t* inner) {
  const int64_t N = s[0], rest = s.ProdShape(1, s.ndim());
  if (p.mode == kL2Instance) {
    *outer = N, *L = rest, *inner = 1;
  } else if (p.mode == kL2Channel) {
    *outer = N, *L = s[1], *inner = s.ProdShape(2, s.ndim());
  } else {
    *outer = N * s[1], *L = s.ProdShape(2, s.ndim()), *inner = 1;
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_L2_NORMALIZATION_PARAM_H_
