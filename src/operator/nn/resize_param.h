/*!
 * \file resize_param.h
 * \brief UpSampling's and BilinearResize2D's parameters and the interpolation coordinates,
 *        shared by the CPU kernels (resize.cc) and the CUDA kernels (cuda/resize.cu).
 */
#ifndef MXNET_OPERATOR_NN_RESIZE_PARAM_H_
#define MXNET_OPERATOR_NN_RESIZE_PARAM_H_

#include <dmlc/parameter.h>

#include <cstdint>

#include "mxnet/op.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

struct UpSamplingParam : public dmlc::Parameter<UpSamplingParam> {
  int scale, num_filter, sample_type, multi_input_mode, num_args;
  uint64_t workspace;
  DMLC_DECLARE_PARAMETER(UpSamplingParam) {
    DMLC_DECLARE_FIELD(scale).set_lower_bound(1).describe("Up sampling scale");
    DMLC_DECLARE_FIELD(num_filter).set_default(0).describe("Input filter. Only used by bilinear sample_type.");
    DMLC_DECLARE_FIELD(sample_type).add_enum("nearest", 0).add_enum("bilinear", 1).describe("upsampling method");
    DMLC_DECLARE_FIELD(multi_input_mode).set_default(0).add_enum("concat", 0).add_enum("sum", 1)
        .describe("How to handle multiple input. concat means concatenate upsampled images along the channel "
                  "dimension. sum means add all images together, only available for nearest neighbor upsampling.");
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be upsampled.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).describe("Tmp workspace for deconvolution (MB)");
  }
};

struct BilinearResize2DParam : public dmlc::Parameter<BilinearResize2DParam> {
  int height, width;
  dmlc::optional<float> scale_height, scale_width;
  int mode;
  bool align_corners;
  DMLC_DECLARE_PARAMETER(BilinearResize2DParam) {
    DMLC_DECLARE_FIELD(height).set_default(1).set_lower_bound(1).describe("output height (required, but ignored if scale_height is defined or mode is not \"size\")");
    DMLC_DECLARE_FIELD(width).set_default(1).set_lower_bound(1).describe("output width (required, but ignored if scale_width is defined or mode is not \"size\")");
    DMLC_DECLARE_FIELD(scale_height).set_default(dmlc::optional<float>()).describe("sampling scale of the height");
    DMLC_DECLARE_FIELD(scale_width).set_default(dmlc::optional<float>()).describe("sampling scale of the width");
    DMLC_DECLARE_FIELD(mode).set_default(0).add_enum("size", 0).add_enum("odd_scale", 1).add_enum("like", 2)
        .add_enum("to_even_down", 3).add_enum("to_even_up", 4).add_enum("to_odd_down", 5).add_enum("to_odd_up", 6)
        .describe("resizing mode");
    DMLC_DECLARE_FIELD(align_corners).set_default(true).describe("With align_corners = True, the interpolating "
                                                                 "doesn't proportionally align the output and input pixels");
  }
};

/*! \brief UpSampling's parameters; throws for sample_type='bilinear', which has no kernel here. */
inline const UpSamplingParam& UpParam(const NodeAttrs& a) {
  const auto& p = a.get<UpSamplingParam>();
  MX_CHECK_KIND(p.sample_type == 0, "ValueError")
      << "UpSampling: sample_type='bilinear' is a grouped Deconvolution with a bilinear kernel; call "
         "Deconvolution(kernel=2*scale-scale%2, stride=scale, pad=ceil((scale-1)/2), num_group=C) instead";
  return p;
}

/*! \brief Source coordinate of output index o and its two neighbours with weights. */
MXNET_XINLINE void SrcCoord(int64_t o, int64_t out, int64_t in, bool align, int64_t* i0, int64_t* i1, double* w1) {
  double src;
  if (align) {
    src = out > 1 ? static_cast<double>(o) * (in - 1) / (out - 1) : 0.0;
  } else {
    src = (o + 0.5) * static_cast<double>(in) / out - 0.5;
    src = src > 0.0 ? src : 0.0;  // std::max(0.0, src)
  }
  const int64_t i = static_cast<int64_t>(src);
  *i0 = i < in - 1 ? i : in - 1;
  *i1 = *i0 + 1 < in - 1 ? *i0 + 1 : in - 1;
  *w1 = src - *i0;
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_RESIZE_PARAM_H_
