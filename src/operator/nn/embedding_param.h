/*!
 * \file embedding_param.h
 * \brief Embedding's parameters and index clipping, shared by the CPU kernels (embedding.cc)
 *        and the CUDA kernels (cuda/nn_heads.cu).
 */
#ifndef MXNET_OPERATOR_NN_EMBEDDING_PARAM_H_
#define MXNET_OPERATOR_NN_EMBEDDING_PARAM_H_

#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/op.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

struct EmbeddingParam : public dmlc::Parameter<EmbeddingParam> {
  int64_t input_dim, output_dim;
  int dtype;
  bool sparse_grad;
  DMLC_DECLARE_PARAMETER(EmbeddingParam) {
    DMLC_DECLARE_FIELD(input_dim).set_lower_bound(1).describe("Vocabulary size of the input indices.");
    DMLC_DECLARE_FIELD(output_dim).set_lower_bound(1).describe("Dimension of the embedding vectors.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("Data type of weight.");
    DMLC_DECLARE_FIELD(sparse_grad).set_default(false)
        .describe("Compute row sparse gradient in the backward calculation (dense here: same values).");
  }
};

/*! \brief Row of index value v, clipped to [0, input_dim - 1] as MXNet does. */
MXNET_XINLINE int64_t ClipRow(double v, int64_t n) {
  const int64_t i = static_cast<int64_t>(v);
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_EMBEDDING_PARAM_H_
