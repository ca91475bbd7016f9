/*!
 * \file to_tensor.cc
 * \brief `_image_to_tensor` (HWC/NHWC values in [0, 255] -> CHW/NCHW float32 in [0, 1]) and
 *        `_image_normalize` ((x - mean[c]) / std[c] on CHW/NCHW, with its gradient).
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"
#include "operator/image/image_layout.h"
#include "operator/image/image_params.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

void ToTensorCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  float* y = out[0].dptr<float>();
  const int64_t plane = d.h * d.w;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    ParallelFor(d.n * d.c, [&](int64_t nc) {
      const int64_t n = nc / d.c, c = nc % d.c;
      const DType* src = x + n * plane * d.c + c;
      float* dst = y + nc * plane;
      for (int64_t p = 0; p < plane; ++p)
        AssignReq(&dst[p], req[0], static_cast<float>(src[p * d.c]) / 255.0f);
    });
  });
}

bool ToTensorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const ImageDims d = ChannelsLast(attrs, (*in)[0]);
  TShape s = (*in)[0].ndim() == 4 ? TShape{d.n, d.c, d.h, d.w} : TShape{d.c, d.h, d.w};
  AssignShape(attrs, &(*out)[0], s, "output", 0);
  return true;
}

bool ToTensorType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], kFloat32, "output", 0);
  return (*in)[0] != kUnknownType;
}

}  // namespace

DMLC_REGISTER_PARAMETER(NormalizeParam);

namespace {

template <bool kBackward>
void NormalizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = ChannelsFirst(attrs, in[0].shape_);
  std::vector<float> mean, stdv;
  ChannelStats(attrs, d.c, &mean, &stdv);
  const int64_t plane = d.h * d.w;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    // float64 data stays in double (MXNet 1.x widens its float32 mean/std to the data type).
    // The rounding follows 1.x too: the forward divides by std, the gradient multiplies by the
    // double 1.0 / std.
    using C = compute_t<DType>;
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(d.n * d.c, [&](int64_t nc) {
      const int64_t c = nc % d.c;
      const C m = C(mean[c]), s = C(stdv[c]);
      const double inv = 1.0 / static_cast<double>(stdv[c]);
      const DType* src = x + nc * plane;
      DType* dst = y + nc * plane;
      for (int64_t p = 0; p < plane; ++p) {
        if (kBackward)
          AssignReq(&dst[p], req[0], DType(C(static_cast<double>(C(src[p])) * inv)));
        else
          AssignReq(&dst[p], req[0], DType((C(src[p]) - m) / s));
      }
    });
  });
}

bool NormalizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const ImageDims d = ChannelsFirst(attrs, (*in)[0]);
  std::vector<float> mean, stdv;
  ChannelStats(attrs, d.c, &mean, &stdv);
  AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
  return true;
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(_image_to_tensor)
        .describe("Converts an image (H, W, C) or batch (N, H, W, C) with values in [0, 255] to a "
                  "float32 tensor (C, H, W) / (N, C, H, W) with values in [0, 1].")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input image(s), channels last.")
        .set_infer_shape(ToTensorShape)
        .set_infer_type(ToTensorType)
        .set_compute(Context::kCPU, ToTensorCompute);

    MXNET_REGISTER_OP(_image_normalize)
        .describe("Normalizes a tensor (C, H, W) or batch (N, C, H, W): out[c] = (data[c] - mean[c]) "
                  "/ std[c]; one mean/std value applies to every channel.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input tensor, channels first.")
        .add_arguments(NormalizeParam::__FIELDS__())
        .set_attr_parser(ParamParser<NormalizeParam>)
        .set_infer_shape(NormalizeShape)
        .set_infer_type(ElemwiseType)
        .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}}; })
        .set_compute(Context::kCPU, NormalizeCompute<false>)
        .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
          return std::vector<NodeEntry>{MakeNode("_backward_image_normalize", n->attrs.name + "_backward",
                                                 {og[0]}, {n->attrs.dict.begin(), n->attrs.dict.end()})};
        });

    MXNET_REGISTER_OP(_backward_image_normalize)
        .describe("Gradient of _image_normalize: the output gradient divided by std per channel.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
        .add_arguments(NormalizeParam::__FIELDS__())
        .set_attr_parser(ParamParser<NormalizeParam>)
        .set_infer_shape(NormalizeShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, NormalizeCompute<true>);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace image
}  // namespace op
}  // namespace mxnet
