/*!
 * \file color_ops.cc
 * \brief Colour transforms of HWC RGB images / NHWC batches (values on a 0-255 scale), the
 *        operators behind gluon's RandomBrightness ... RandomLighting transforms:
 *        `_image_random_brightness`, `_image_random_contrast`, `_image_random_saturation`,
 *        `_image_random_hue`, `_image_random_color_jitter`, `_image_adjust_lighting` and
 *        `_image_random_lighting`. Each image of a batch draws its own factors from the seeded
 *        random stream. Integer outputs are saturated, then truncated, as MXNet 1.x does.
 *        The plans and per-pixel math are in color_math.h (shared with cuda/image_color.cu).
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/image/color_math.h"
#include "operator/image/image_layout.h"

namespace mxnet {
namespace op {
namespace image {

DMLC_REGISTER_PARAMETER(FactorRangeParam);
DMLC_REGISTER_PARAMETER(ColorJitterParam);
DMLC_REGISTER_PARAMETER(AdjustLightingParam);
DMLC_REGISTER_PARAMETER(RandomLightingParam);

namespace {

/*! \brief Runs image n of the input through plans[n] (one shared plan when plans has one entry). */
void ApplyPlans(const NodeAttrs& attrs, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                const std::vector<TBlob>& out, const std::vector<ColorPlan>& plans) {
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  const int64_t count = d.h * d.w, size = count * d.c;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(d.n, [&](int64_t n) {
      const ColorPlan& plan = plans[plans.size() == 1 ? 0 : n];
      std::vector<float> v(size);
      for (int64_t i = 0; i < size; ++i) v[i] = static_cast<float>(x[n * size + i]);
      for (int s = 0; s < plan.steps; ++s) {
        float shift = 0.f;
        if (plan.kind[s] == kContrastStep) {
          double sum = 0;
          for (int64_t i = 0; i < count; ++i) sum += GrayOf(v.data() + i * 3);
          shift = ContrastShift(sum, count, plan.factor[s]);
        }
        for (int64_t i = 0; i < count; ++i) ApplyColorStep(plan, s, v.data() + i * d.c, d.c, shift);
      }
      for (int64_t i = 0; i < size; ++i) AssignReq(&y[n * size + i], req[0], SaturateTrunc<DType>(v[i]));
    });
  });
}

template <ColorPlanner kPlanner>
void RandomColorCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  ApplyPlans(attrs, in, req, out, ColorPlans(attrs, ctx, d.n, kPlanner));
}

void AdjustLightingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ApplyPlans(attrs, in, req, out, {PlanAdjustLighting(attrs)});
}

template <bool kNeedsRGB>
bool ColorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const ImageDims d = ChannelsLast(attrs, (*in)[0]);
  MX_CHECK_KIND(!kNeedsRGB || d.c == 3, "ValueError")
      << attrs.op->name << ": expects RGB images (3 channels last), got shape " << (*in)[0];
  AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
  return true;
}

template <typename Param, bool kNeedsRGB>
Op& ColorFamily(Op& op, const char* doc, FCompute fn, bool random) {
  op.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Image (H, W, C) or batch (N, H, W, C), RGB, 0-255 scale.")
      .add_arguments(Param::__FIELDS__())
      .set_attr_parser(ParamParser<Param>)
      .set_infer_shape(ColorShape<kNeedsRGB>)
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, fn);  // augmentation: no gradient
  // The temp space is for the CUDA kernels (per-image plans, partial gray sums); the CPU needs none.
  if (random) op.set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace});
  return op;
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP_FAMILY(_image_random_brightness, ColorFamily<FactorRangeParam, false>,
                             "Multiplies each image by a factor drawn from [min_factor, max_factor].",
                             RandomColorCompute<PlanRandomFactor<kBrightnessStep>>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_contrast, ColorFamily<FactorRangeParam, true>,
                             "Blends each image with its mean gray level: x*f + mean_gray*(1-f), f drawn "
                             "from [min_factor, max_factor].",
                             RandomColorCompute<PlanRandomFactor<kContrastStep>>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_saturation, ColorFamily<FactorRangeParam, true>,
                             "Blends each pixel with its gray level (0.299 R + 0.587 G + 0.114 B): "
                             "x*f + gray*(1-f), f drawn from [min_factor, max_factor].",
                             RandomColorCompute<PlanRandomFactor<kSaturationStep>>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_hue, ColorFamily<FactorRangeParam, true>,
                             "Rotates the hue (HLS) of each image by f turns, f drawn from "
                             "[min_factor, max_factor] (1 = a full turn, no change).",
                             RandomColorCompute<PlanRandomFactor<kHueStep>>, true);
    MXNET_REGISTER_OP_FAMILY(_image_random_color_jitter, ColorFamily<ColorJitterParam, true>,
                             "Random brightness, contrast, saturation and hue changes, applied in a "
                             "random order per image (a zero amount skips that change).",
                             RandomColorCompute<PlanColorJitter>, true);
    MXNET_REGISTER_OP_FAMILY(_image_adjust_lighting, ColorFamily<AdjustLightingParam, true>,
                             "Adds alpha-weighted ImageNet RGB principal components (AlexNet-style "
                             "lighting).",
                             AdjustLightingCompute, false);
    MXNET_REGISTER_OP_FAMILY(_image_random_lighting, ColorFamily<RandomLightingParam, true>,
                             "adjust_lighting with weights drawn from N(0, alpha_std) per image.",
                             RandomColorCompute<PlanRandomLighting>, true);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace image
}  // namespace op
}  // namespace mxnet
