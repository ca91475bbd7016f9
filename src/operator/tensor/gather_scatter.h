/*!
 * \file gather_scatter.h
 * \brief The parameters of scatter_nd (and _backward_gather_nd) and one_hot, shared by the CPU
 *        kernels (gather_scatter.cc) and the CUDA kernels (operator/cuda/gather_scatter.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_GATHER_SCATTER_H_
#define MXNET_OPERATOR_TENSOR_GATHER_SCATTER_H_

#include <dmlc/parameter.h>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

struct ScatterNDParam : public dmlc::Parameter<ScatterNDParam> {
  TShape shape;
  DMLC_DECLARE_PARAMETER(ScatterNDParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("Shape of output.");
  }
};

struct OneHotParam : public dmlc::Parameter<OneHotParam> {
  int depth;
  double on_value, off_value;
  int dtype;
  DMLC_DECLARE_PARAMETER(OneHotParam) {
    DMLC_DECLARE_FIELD(depth).set_lower_bound(0).describe("Depth of the one hot dimension.");
    DMLC_DECLARE_FIELD(on_value).set_default(1.0).describe(
        "The value assigned to the locations represented by "
        "indices.");
    DMLC_DECLARE_FIELD(off_value).set_default(0.0).describe(
        "The value assigned to the locations not represented "
        "by indices.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("DType of the output");
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_GATHER_SCATTER_H_
