/*!
 * \file onednn_conv_winograd.h
 * \brief The Winograd kernels (conv_winograd.h) as a path of the oneDNN convolution:
 *        activations in and out as nChw8c or channel-last BlockedData (whichever the input
 *        holds, else the one oneDNN's convolutions keep on this CPU), the transformed weights of inference
 *        cached on the weight array.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_CONV_WINOGRAD_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_CONV_WINOGRAD_H_

#if MXNET_USE_ONEDNN

#include "operator/nn/conv2d_geom.h"
#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

/*! \brief Whether the Winograd kernels compute the float32 convolution g (their shapes). */
bool WinogradFits(const Conv2dGeom& g);
/*! \brief Whether the Winograd kernels compute the weight gradient of the float32 convolution g. */
bool WinogradFitsWeightGrad(const Conv2dGeom& g);
/*! \brief Whether they beat the direct kernels on g: enough tiles, at most 512K channel pairs. */
bool WinogradWorthIt(const Conv2dGeom& g);
/*! \brief The geometry of g's data gradient as a convolution (of dy, giving dx). */
Conv2dGeom DataGradGeom(const Conv2dGeom& g);

/*!
 * \brief y = conv(x, w) + bias, then ReLU when relu; src/dst are x's and y's plain descriptions.
 *        Inference reads w's transform cached on the weight array (made once per value).
 */
void WinogradForward(const Conv2dGeom& g, const dnnl::memory::desc& src, const dnnl::memory::desc& dst, bool training,
                     const TBlob& x, const TBlob& w, const TBlob* bias, bool relu, const TBlob& y);
/*! \brief dx of the convolution g (WinogradTakes(DataGradGeom(g))) from dy and w. */
void WinogradBackwardData(const Conv2dGeom& g, const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
                          const TBlob& dy, const TBlob& w, const TBlob& dx);

/*! \brief dw and db (either may be null, not both) of the convolution g from dy and x. */
void WinogradBackwardWeights(const Conv2dGeom& g, const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
                             const TBlob& dy, const TBlob& x, const TBlob* dw, const TBlob* db);

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_CONV_WINOGRAD_H_
