/*!
 * \file conv_param.h
 * \brief Parameters of Convolution and Deconvolution (MXNet's names and defaults), their
 *        validation with errors naming the op and parameter, and ConvGeom: the resolved
 *        problem (3 spatial dims, unused leading ones of size 1) every kernel works from.
 */
#ifndef MXNET_OPERATOR_NN_CONV_PARAM_H_
#define MXNET_OPERATOR_NN_CONV_PARAM_H_

#include <dmlc/parameter.h>

#include <string>
#include <vector>

#include "mxnet/op.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace op {

/*! \brief Layout codes; names are MXNet's. Channel-last layouts are the *W*C ones. */
enum ConvLayout { kNCW = 0, kNCHW = 1, kNCDHW = 2, kNWC = 3, kNHWC = 4, kNDHWC = 5 };
#define MXNET_ADD_CONV_LAYOUTS                                                                        \
  add_enum("NCW", ::mxnet::op::kNCW).add_enum("NCHW", ::mxnet::op::kNCHW)                             \
      .add_enum("NCDHW", ::mxnet::op::kNCDHW).add_enum("NWC", ::mxnet::op::kNWC)                      \
      .add_enum("NHWC", ::mxnet::op::kNHWC).add_enum("NDHWC", ::mxnet::op::kNDHWC)
inline bool ChannelLast(const dmlc::optional<int>& layout) { return layout.has_value() && layout.value() >= kNWC; }

struct ConvolutionParam : public dmlc::Parameter<ConvolutionParam> {
  TShape kernel, stride, dilate, pad;
  uint32_t num_filter, num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(ConvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Convolution kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(TShape(0)).describe("Convolution stride; defaults to 1 per dimension.");
    DMLC_DECLARE_FIELD(dilate).set_default(TShape(0)).describe("Convolution dilation; defaults to 1 per dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape(0)).describe("Zero padding on both sides; defaults to 0.");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe("Number of group partitions.");
    DMLC_DECLARE_FIELD(workspace).set_default(1024).describe("Maximum temporary workspace in MB (a hint).");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable the bias parameter.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", 0).add_enum("limited_workspace", 1).add_enum("fastest", 2)
        .set_default(dmlc::optional<int>())
        .describe("cuDNN algorithm selection (GPU builds).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Turn off cuDNN for this layer.");
    DMLC_DECLARE_FIELD(layout).MXNET_ADD_CONV_LAYOUTS.set_default(dmlc::optional<int>())
        .describe("Data layout; None means NCW, NCHW or NCDHW by rank. NWC, NHWC, NDHWC are channel-last.");
  }
};

struct DeconvolutionParam : public dmlc::Parameter<DeconvolutionParam> {
  TShape kernel, stride, dilate, pad, adj, target_shape;
  uint32_t num_filter, num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(DeconvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Deconvolution kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(TShape(0)).describe("Stride; defaults to 1 per dimension.");
    DMLC_DECLARE_FIELD(dilate).set_default(TShape(0)).describe("Dilation; defaults to 1 per dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(TShape(0)).describe("Padding removed from both sides of the output.");
    DMLC_DECLARE_FIELD(adj).set_default(TShape(0)).describe("Extra size added to one side of the output.");
    DMLC_DECLARE_FIELD(target_shape).set_default(TShape(0))
        .describe("Output spatial shape; when given (non-zero), pad and adj are computed from it.");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe("Number of group partitions.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).describe("Maximum temporary workspace in MB (a hint).");
    DMLC_DECLARE_FIELD(no_bias).set_default(true).describe("Whether to disable the bias parameter.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", 0).add_enum("limited_workspace", 1).add_enum("fastest", 2)
        .set_default(dmlc::optional<int>())
        .describe("cuDNN algorithm selection (GPU builds).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Turn off cuDNN for this layer.");
    DMLC_DECLARE_FIELD(layout).MXNET_ADD_CONV_LAYOUTS.set_default(dmlc::optional<int>())
        .describe("Data layout; None means NCW, NCHW or NCDHW by rank.");
  }
};

/*!
 * \brief A resolved convolution: C input channels, F output channels (of the convolution;
 *        a deconvolution runs the transposed problem), 3 spatial dims with unused leading
 *        ones set to size 1 / kernel 1 / stride 1 / pad 0 / dilate 1.
 */
struct ConvGeom {
  int64_t N{0}, C{0}, F{0}, G{1};
  int nsp{0};  // real spatial dims (1-3)
  int64_t in[3]{1, 1, 1}, out[3]{1, 1, 1}, k[3]{1, 1, 1}, s[3]{1, 1, 1}, p[3]{0, 0, 0}, d[3]{1, 1, 1};
  int64_t InSize() const { return in[0] * in[1] * in[2]; }
  int64_t OutSize() const { return out[0] * out[1] * out[2]; }
  int64_t KSize() const { return k[0] * k[1] * k[2]; }
  /*! \brief 1x1 kernel, stride 1, no pad: the input already is the im2col matrix. */
  bool IsPointwise() const {
    for (int i = 0; i < 3; ++i)
      if (k[i] != 1 || s[i] != 1 || p[i] != 0) return false;
    return true;
  }
};

/*! \brief Kernel/stride/dilate/pad after defaults, validated against the data rank. */
struct ConvWindow {
  TShape kernel, stride, dilate, pad;
};
ConvWindow ResolveWindow(const NodeAttrs& attrs, const TShape& kernel, const TShape& stride, const TShape& dilate,
                         const TShape& pad, int data_ndim);
/*! \brief floor((in + 2p - (d*(k-1)+1)) / s) + 1, or an error naming op, dim and sizes. */
int64_t ConvOutDim(const NodeAttrs& attrs, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int dim);

/*! \brief The channel-first shape of a (possibly channel-last) data shape. */
TShape ToChannelFirst(const TShape& s, bool channel_last);
TShape FromChannelFirst(const TShape& s, bool channel_last);

/*! \brief Geometry of a Convolution on channel-first data shape x. */
ConvGeom MakeConvGeom(const NodeAttrs& attrs, const ConvolutionParam& p, const TShape& x_cf);
/*! \brief Deconvolution output spatial dims and the effective pad / adj (target_shape applied). */
void DeconvResolve(const NodeAttrs& attrs, const DeconvolutionParam& p, const TShape& x_cf, std::vector<int64_t>* out,
                   std::vector<int64_t>* pad, std::vector<int64_t>* adj);
/*! \brief The convolution a Deconvolution transposes: C = deconv output channels. */
ConvGeom MakeDeconvGeom(const NodeAttrs& attrs, const DeconvolutionParam& p, const TShape& x_cf);

/*! \brief Everything a Deconvolution kernel needs: the convolution it transposes and its sizes. */
struct DeconvSetup {
  ConvGeom g;
  std::vector<int64_t> out, pad, adj;
  bool cl;
};
/*! \brief The setup of a Deconvolution node for data of shape `data` (in the node's layout). */
DeconvSetup MakeDeconvSetup(const NodeAttrs& attrs, const TShape& data);
/*! \brief The geometry of a Convolution node for data of shape `data` (in the node's layout). */
ConvGeom ConvGeomOf(const NodeAttrs& attrs, const TShape& data);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_PARAM_H_
