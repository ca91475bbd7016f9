/*!
 * \file image_color.cu
 * \brief CUDA kernels of the colour `_image_*` operators (color_ops.cc): random brightness,
 *        contrast, saturation, hue, colour jitter, adjust_lighting and random lighting.
 *        As on the CPU, each image's plan (its steps and factors, color_math.h) is drawn on the
 *        host from the image's element of the op's random stream; the plans go to temp space
 *        (adjust_lighting's one plan goes by value). Then:
 *          1. only where some image has a contrast step: its gray levels as they stand before
 *             that step, summed in double per image (blocks of a chunk of pixels each, then
 *             the chunks in order), and the contrast shift from the sum;
 *          2. one thread per pixel (per value for brightness, which takes any channel count)
 *             runs the image's steps and stores the result saturated and truncated.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/image/color_math.h"
#include "operator/image/image_layout.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

using image::ColorPlan;

/*! \brief The plan of image n: per_image[n], or `shared` for every image when per_image is null. */
struct PlanSource {
  const ColorPlan* per_image;
  ColorPlan shared;
  __device__ const ColorPlan& Get(int64_t n) const { return per_image ? per_image[n] : shared; }
};

constexpr int kGrayThreads = 256;

/*!
 * \brief partial[n * gridDim.x + blockIdx.x] = the sum in double of the gray levels of a chunk of
 *        image n's pixels as they stand before its contrast step (0 without one).
 */
template <typename DType>
__global__ void GraySumKernel(const DType* x, int64_t images, int64_t count, PlanSource plans, double* partial) {
  __shared__ double smem[kGrayThreads + 32];  // GroupReduceSmem(kGrayThreads, sizeof(double))
  for (int64_t n = blockIdx.y; n < images; n += gridDim.y) {
    const ColorPlan& plan = plans.Get(n);
    const int at = plan.ContrastAt();
    double acc = 0;
    if (at >= 0) {
      const DType* img = x + n * count * 3;
      const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
      for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < count; p += stride) {
        float px[3] = {static_cast<float>(img[p * 3]), static_cast<float>(img[p * 3 + 1]),
                       static_cast<float>(img[p * 3 + 2])};
        for (int s = 0; s < at; ++s) image::ApplyColorStep(plan, s, px, 3, 0.f);
        acc += image::GrayOf(px);
      }
    }
    acc = GroupReduce(acc, true, smem, [](double& a, const double& b) { a += b; });
    if (threadIdx.x == 0) partial[n * gridDim.x + blockIdx.x] = acc;
  }
}

/*! \brief shift[n] = the contrast shift of image n from its chunk sums (0 without a contrast step). */
void ContrastShifts(cudaStream_t s, int64_t images, int64_t count, const PlanSource& plans, int chunks,
                    const double* partial, float* shift) {
  ForEach(s, images, [=] __device__(int64_t n) {
    const ColorPlan& plan = plans.Get(n);
    const int at = plan.ContrastAt();
    double sum = 0;
    for (int k = 0; k < chunks; ++k) sum += partial[n * chunks + k];
    shift[n] = at >= 0 ? image::ContrastShift(sum, count, plan.factor[at]) : 0.f;
  });
}

/*!
 * \brief y = each image's steps applied to x, as units of kWidth values (3: RGB pixels; 1: single
 *        values, brightness only), `units` per image; shift: per-image contrast shifts or null.
 */
template <int kWidth, typename DType>
void ApplyPlans(cudaStream_t s, const DType* x, DType* y, int64_t images, int64_t units, const PlanSource& plans,
                const float* shift, OpReqType req) {
  ForEach(s, images * units, [=] __device__(int64_t i) {
    int64_t u;
    const int64_t n = DivMod(i, units, &u);
    const ColorPlan& plan = plans.Get(n);
    const float sh = shift ? shift[n] : 0.f;
    float px[kWidth];
#pragma unroll
    for (int k = 0; k < kWidth; ++k) px[k] = static_cast<float>(x[i * kWidth + k]);
    for (int st = 0; st < plan.steps; ++st) image::ApplyColorStep(plan, st, px, kWidth, sh);
#pragma unroll
    for (int k = 0; k < kWidth; ++k) StoreReq(y + i * kWidth + k, req, image::SaturateTrunc<DType>(px[k]));
  });
}

inline size_t Aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

/*!
 * \brief Runs plans over the (N)HWC input: one per image, copied to temp space (ctx.requested[1]),
 *        or (shared) plans[0] for every image, by value; any_channels: brightness, taken value by
 *        value; otherwise RGB pixels.
 */
void RunPlans(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in, OpReqType req,
              const std::vector<TBlob>& out, const std::vector<ColorPlan>& plans, bool shared, bool any_channels) {
  const image::ImageDims d = image::ChannelsLast(attrs, in[0].shape_);
  const int64_t count = d.h * d.w;
  if (req == kNullOp || d.n * count * d.c == 0) return;
  const cudaStream_t s = Stream(ctx);
  const bool per_image = !shared;
  bool contrast = false;
  for (const ColorPlan& p : plans) contrast = contrast || p.ContrastAt() >= 0;
  // Chunks of about 1024 pixels, up to 64 an image and about 8192 blocks in all.
  const int chunks = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>({(count + 4 * kGrayThreads - 1) / (4 * kGrayThreads), 64, 8192 / std::max<int64_t>(d.n, 1)})));
  PlanSource src{nullptr, plans[0]};
  float* shift = nullptr;
  double* partial = nullptr;
  if (per_image) {
    const size_t plan_b = Aligned(sizeof(ColorPlan) * d.n);
    const size_t partial_b = contrast ? Aligned(sizeof(double) * d.n * chunks) : 0;
    const size_t shift_b = contrast ? Aligned(sizeof(float) * d.n) : 0;
    char* space = static_cast<char*>(ctx.requested[1].GetSpace(plan_b + partial_b + shift_b));
    auto* dev_plans = reinterpret_cast<ColorPlan*>(space);
    // From pageable memory the copy has staged `plans` when it returns.
    Check(cudaMemcpyAsync(dev_plans, plans.data(), sizeof(ColorPlan) * d.n, cudaMemcpyHostToDevice, s),
          "copying colour plans to the GPU");
    src.per_image = dev_plans;
    if (contrast) {
      partial = reinterpret_cast<double*>(space + plan_b);
      shift = reinterpret_cast<float*>(space + plan_b + partial_b);
    }
  }
  MX_CHECK(!contrast || shift) << attrs.op->name << ": a contrast step needs per-image plans";
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    if (contrast) {
      const dim3 grid(chunks, static_cast<unsigned>(std::min<int64_t>(d.n, 65535)));
      GraySumKernel<DType><<<grid, kGrayThreads, 0, s>>>(x, d.n, count, src, partial);
      Check(cudaGetLastError(), "colour gray sums");
      ContrastShifts(s, d.n, count, src, chunks, partial, shift);
    }
    if (any_channels) {
      ApplyPlans<1>(s, x, y, d.n, count * d.c, src, shift, req);
    } else {
      ApplyPlans<3>(s, x, y, d.n, count, src, shift, req);
    }
  });
}

template <image::ColorPlanner kPlanner, bool kAnyChannels>
void RandomColorCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const image::ImageDims d = image::ChannelsLast(attrs, in[0].shape_);
  const std::vector<ColorPlan> plans = image::ColorPlans(attrs, ctx, d.n, kPlanner);
  if (d.n == 0) return;
  RunPlans(attrs, ctx, in, req[0], out, plans, false, kAnyChannels);
}

void AdjustLightingCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ColorPlan plan = image::PlanAdjustLighting(attrs);
  RunPlans(attrs, ctx, in, req[0], out, {plan}, true, false);
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(_image_random_brightness, kGPU, cuda)
    .set_compute(cuda::RandomColorCompute<image::PlanRandomFactor<image::kBrightnessStep>, true>);
MXNET_REGISTER_KERNEL(_image_random_contrast, kGPU, cuda)
    .set_compute(cuda::RandomColorCompute<image::PlanRandomFactor<image::kContrastStep>, false>);
MXNET_REGISTER_KERNEL(_image_random_saturation, kGPU, cuda)
    .set_compute(cuda::RandomColorCompute<image::PlanRandomFactor<image::kSaturationStep>, false>);
MXNET_REGISTER_KERNEL(_image_random_hue, kGPU, cuda)
    .set_compute(cuda::RandomColorCompute<image::PlanRandomFactor<image::kHueStep>, false>);
MXNET_REGISTER_KERNEL(_image_random_color_jitter, kGPU, cuda)
    .set_compute(cuda::RandomColorCompute<image::PlanColorJitter, false>);
MXNET_REGISTER_KERNEL(_image_adjust_lighting, kGPU, cuda).set_compute(cuda::AdjustLightingCompute);
MXNET_REGISTER_KERNEL(_image_random_lighting, kGPU, cuda)
    .set_compute(cuda::RandomColorCompute<image::PlanRandomLighting, false>);

}  // namespace op
}  // namespace mxnet
