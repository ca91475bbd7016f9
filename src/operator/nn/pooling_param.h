/*!
 * \file pooling_param.h
 * \brief Pooling's parameters and its resolved geometry (PoolGeom), shared by the reference
 *        kernels (pooling.cc) and the oneDNN-build entries (onednn/onednn_pooling_kernels.cc).
 */
#ifndef MXNET_OPERATOR_NN_POOLING_PARAM_H_
#define MXNET_OPERATOR_NN_POOLING_PARAM_H_

#include <cstdint>

#include "operator/nn/conv_param.h"

namespace mxnet {
namespace op {

enum PoolType { kMaxPool = 0, kAvgPool = 1, kSumPool = 2, kLpPool = 3 };
enum PoolConvention { kValid = 0, kFull = 1, kSame = 2 };

struct PoolingParam : public dmlc::Parameter<PoolingParam> {
  TShape kernel, stride, pad;
  int pool_type;
  bool global_pool, cudnn_off;
  int pooling_convention;
  dmlc::optional<int> p_value;
  dmlc::optional<bool> count_include_pad;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(PoolingParam) {
    DMLC_DECLARE_FIELD(kernel).set_default(TShape(0)).describe("Pooling kernel size: (y, x) or (d, y, x).");
    DMLC_DECLARE_FIELD(pool_type).set_default(kMaxPool)
        .add_enum("max", kMaxPool).add_enum("avg", kAvgPool).add_enum("sum", kSumPool).add_enum("lp", kLpPool)
        .describe("Pooling type to be applied.");
    DMLC_DECLARE_FIELD(global_pool).set_default(false)
        .describe("Ignore kernel size, do global pooling based on current input feature map.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Turn off cudnn pooling and use MXNet pooling operator.");
    DMLC_DECLARE_FIELD(pooling_convention).set_default(kValid)
        .add_enum("valid", kValid).add_enum("full", kFull).add_enum("same", kSame)
        .describe("Pooling convention to be applied.");
    DMLC_DECLARE_FIELD(stride).set_default(TShape(0)).describe("Stride: for pooling (y, x) or (d, y, x). Defaults to 1.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape(0)).describe("Pad for pooling: (y, x) or (d, y, x). Defaults to no padding.");
    DMLC_DECLARE_FIELD(p_value).set_default(dmlc::optional<int>()).describe("Value of p for Lp pooling, can be 1, 2 or 3.");
    DMLC_DECLARE_FIELD(count_include_pad).set_default(dmlc::optional<bool>())
        .describe("Only used for AvgPool: whether padded values count in the divisor. Default True.");
    DMLC_DECLARE_FIELD(layout).MXNET_ADD_CONV_LAYOUTS.set_default(dmlc::optional<int>())
        .describe("Set layout for input and output. Empty for default layout: NCW, NCHW or NCDHW.");
  }
};
/*! \brief Resolved pooling over channel-first data, 3 spatial dims (leading ones size 1). */
struct PoolGeom {
  int64_t N{0}, C{0};
  int nsp{0};
  int64_t in[3]{1, 1, 1}, out[3]{1, 1, 1}, k[3]{1, 1, 1}, s[3]{1, 1, 1}, p[3]{0, 0, 0};
  int type{kMaxPool}, conv{kValid}, pval{2};
  bool include_pad{true};
  int64_t InSize() const { return in[0] * in[1] * in[2]; }
  int64_t OutSize() const { return out[0] * out[1] * out[2]; }
};

/*! \brief The geometry of pooling channel-first data x (checks the window against x). */
PoolGeom MakePoolGeom(const NodeAttrs& attrs, const TShape& x);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_POOLING_PARAM_H_
