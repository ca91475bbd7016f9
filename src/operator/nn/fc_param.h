/*!
 * \file fc_param.h
 * \brief FullyConnected's parameters and GEMM dimensions, shared by its kernels (the reference,
 *        the GEMV and the oneDNN entries) and the fused `_sg_onednn_fully_connected`.
 */
#ifndef MXNET_OPERATOR_NN_FC_PARAM_H_
#define MXNET_OPERATOR_NN_FC_PARAM_H_

#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct FullyConnectedParam : public dmlc::Parameter<FullyConnectedParam> {
  int num_hidden;
  bool no_bias;
  bool flatten;
  DMLC_DECLARE_PARAMETER(FullyConnectedParam) {
    DMLC_DECLARE_FIELD(num_hidden).set_lower_bound(1).describe("Number of hidden nodes of the output.");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable bias parameter.");
    DMLC_DECLARE_FIELD(flatten).set_default(true).describe("Whether to collapse all but the first axis of the input.");
  }
};

/*! \brief (M, K) of the GEMM for data shape s: rows and their length (flattened or along the last axis). */
inline void FCDims(const NodeAttrs& attrs, const TShape& s, int64_t* M, int64_t* K) {
  const auto& p = attrs.get<FullyConnectedParam>();
  MX_CHECK_KIND(s.ndim() >= 1, "ValueError") << "FullyConnected: data must have at least one dimension, got " << s;
  if (p.flatten) {
    *M = s[0];
    *K = s.ProdShape(1, s.ndim());
  } else {
    *K = s[s.ndim() - 1];
    *M = s.ProdShape(0, s.ndim() - 1);
  }
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FC_PARAM_H_
