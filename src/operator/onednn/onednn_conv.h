/*!
 * \file onednn_conv.h
 * \brief oneDNN convolution and deconvolution (forward, backward data, backward weights),
 *        on our plain layouts (NC*, N*C, MXNet's weight layouts) with cached primitives.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_CONV_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_CONV_H_

#if MXNET_USE_ONEDNN

#include "operator/nn/conv_param.h"
#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

/*! \brief Whether oneDNN takes this problem (dtype, padding oneDNN can express). */
bool ConvSupported(const ConvGeom& g, int dtype);
/*! \brief Deconvolution additionally needs pad >= adj (oneDNN's right padding pad - adj >= 0). */
bool DeconvSupported(const ConvGeom& g, const std::vector<int64_t>& adj, int dtype);

/*! \brief The forward kernels of a convolution on oneDNN builds, in dispatch order. */
enum class ConvFwdPath {
  kWinograd,    // F(4x4, 3x3) Winograd (conv_winograd.h): float32 3x3 stride 1, channels in 8s/16s
  kFewChannel,  // FewChannelConvForward: under 8 input channels where oneDNN would run its gemm kernel
  kPrimitive    // oneDNN's convolution primitive (any problem ConvSupported takes)
};
/*! \brief The gradient kernels: each path computes its special part, oneDNN's primitives the rest. */
enum class ConvBwdPath {
  kChannelLastGemm,  // data gradient by ChannelLastBackwardData (channel-last training, C % 8 != 0)
  kFewChannel,       // weight gradient by FewChannelWeightGrad (under 8 input channels)
  kWinograd,         // data and/or weight gradient by Winograd where it takes them
  kPrimitive         // oneDNN's backward-data and backward-weights primitives
};

/*! \brief Whether the forward path takes this problem (post: the fused post-ops; kAddTo is a sum). */
bool ConvForwardTakes(ConvFwdPath path, const ConvGeom& g, bool channel_last, bool training, int dtype, bool has_bias,
                      const PostOps& post);
/*! \brief Whether the gradient path takes this problem (all gradients written, not accumulated). */
bool ConvBackwardTakes(ConvBwdPath path, const ConvGeom& g, bool channel_last, int dtype, bool has_bias);
/*! \brief Whether a path that takes the problem is faster than the next one (the dispatch policy). */
bool ConvForwardWorthIt(ConvFwdPath path, const ConvGeom& g, bool channel_last, bool training, int dtype,
                        bool has_bias, const PostOps& post);
bool ConvBackwardWorthIt(ConvBwdPath path, const ConvGeom& g, bool channel_last, int dtype, bool has_bias);

/*! \brief y = conv(x, w) + bias (bias may be null) by `path`; post carries kAddTo and fusion. */
void ConvForward(ConvFwdPath path, const ConvGeom& g, bool channel_last, bool training, const TBlob& x,
                 const TBlob& w, const TBlob* bias, const TBlob& y, const PostOps& post);
/*! \brief Gradients by `path`; a null output pointer skips that gradient. All writes are plain (kWriteTo). */
void ConvBackward(ConvBwdPath path, const ConvGeom& g, bool channel_last, const TBlob& dy, const TBlob& x,
                  const TBlob& w, const TBlob* dx, const TBlob* dw, const TBlob* db);

/*! \brief Deconvolution: g is the convolution it transposes (see MakeDeconvGeom). */
void DeconvForward(const ConvGeom& g, const std::vector<int64_t>& adj, bool channel_last, bool training,
                   const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y, const PostOps& post);
void DeconvBackward(const ConvGeom& g, const std::vector<int64_t>& adj, bool channel_last, const TBlob& dy,
                    const TBlob& x, const TBlob& w, const TBlob* dx, const TBlob* dw, const TBlob* db);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_CONV_H_
