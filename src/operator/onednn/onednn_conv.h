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

/*! \brief y = conv(x, w) + bias (bias may be null); post carries kAddTo and future fusion. */
void ConvForward(const ConvGeom& g, bool channel_last, bool training, const TBlob& x, const TBlob& w,
                 const TBlob* bias, const TBlob& y, const PostOps& post);
/*! \brief Gradients; a null output pointer skips that gradient. All writes are plain (kWriteTo). */
void ConvBackward(const ConvGeom& g, bool channel_last, const TBlob& dy, const TBlob& x, const TBlob& w,
                  const TBlob* dx, const TBlob* dw, const TBlob* db);

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
