/*!
 * \file resize_crop.cc
 * \brief `_image_resize` (cv::resize with interpolation 0-4 in builds with OpenCV; otherwise
 *        nearest or bilinear with pixel-centre alignment, as OpenCV's INTER_NEAREST /
 *        INTER_LINEAR; also for dtypes OpenCV does not resize) and `_image_crop` (a window of
 *        an HWC image / NHWC batch).
 */
#include <algorithm>
#include <utility>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/parallel.h"
#include "operator/image/image_layout.h"
#include "operator/image/image_params.h"
#include "operator/image/resize_math.h"
#if MXNET_USE_OPENCV
#include <opencv2/imgproc.hpp>

#include "operator/image/cv_mat.h"
#endif

namespace mxnet {
namespace op {
namespace image {

DMLC_REGISTER_PARAMETER(ResizeParam);
DMLC_REGISTER_PARAMETER(CropParam);

namespace {

/*! \brief Output (h, w) of a resize of an h x w image. */
std::pair<int64_t, int64_t> ResizedHW(const NodeAttrs& attrs, int64_t h, int64_t w) {
  const ResizeParam& p = attrs.get<ResizeParam>();
  MX_CHECK_KIND(p.size.ndim() == 1 || p.size.ndim() == 2, "ValueError")
      << attrs.op->name << ": size must be w or (w, h), got " << p.size;
  MX_CHECK_KIND(p.interp >= 0 && p.interp <= (MXNET_USE_OPENCV ? 4 : 1), "ValueError")
      << attrs.op->name << ": interp " << p.interp << " is not available; use "
      << (MXNET_USE_OPENCV ? "0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 (Lanczos)"
                           : "0 (nearest) or 1 (bilinear) (this build has no OpenCV)");
  if (p.size.ndim() == 2) return {p.size[1], p.size[0]};
  const int64_t s = p.size[0];
  if (!p.keep_ratio) return {s, s};
  // The longer side is truncated, as MXNet 1.x does (a 301x200 image at 150 -> 225x150).
  if (h < w) return {s, std::max<int64_t>(1, w * s / h)};
  return {std::max<int64_t>(1, h * s / w), s};
}

bool ResizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const ImageDims d = ChannelsLast(attrs, (*in)[0]);
  auto hw = ResizedHW(attrs, d.h, d.w);
  MX_CHECK_KIND(hw.first > 0 && hw.second > 0, "ValueError") << attrs.op->name << ": output size must be positive";
  AssignShape(attrs, &(*out)[0], MakeChannelsLast((*in)[0], d.n, hw.first, hw.second, d.c), "output", 0);
  return true;
}

#if MXNET_USE_OPENCV
/*! \brief cv::resize of each image, for the dtypes it handles; false when it does not. */
bool ResizeWithOpenCV(const NodeAttrs& attrs, const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                      const std::vector<TBlob>& out) {
  const int t = in[0].type_flag_;
  const int interp = attrs.get<ResizeParam>().interp;
  if (!(t == kUint8 || t == kFloat32 || t == kFloat64 || (interp == 0 && (t == kInt8 || t == kInt32)))) return false;
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  if (d.c > 4 && interp != 0 && interp != 1) return false;  // OpenCV's cubic/area/Lanczos take up to 4
  for (int64_t n = 0; n < d.n; ++n) {
    const cv::Mat src = WrapHWC(attrs, in[0], n);
    WriteHWC(attrs, out[0], req[0], [&](cv::Mat* dst) { cv::resize(src, *dst, dst->size(), 0, 0, interp); }, n);
  }
  return true;
}
#endif

void ResizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
#if MXNET_USE_OPENCV
  if (ResizeWithOpenCV(attrs, in, req, out)) return;
#endif
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  const ImageDims o = ChannelsLast(attrs, out[0].shape_);
  const int interp = attrs.get<ResizeParam>().interp;
  MX_CHECK_KIND(interp <= 1, "ValueError") << attrs.op->name << ": interp " << interp << " is not available for "
                                           << DTypeName(in[0].type_flag_) << " images; use 0 or 1";
  const bool nearest = interp == 0;
  const float sy = float(d.h) / o.h, sx = float(d.w) / o.w;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(o.n * o.h, [&](int64_t nr) {
      const int64_t n = nr / o.h, r = nr % o.h;
      const DType* img = x + n * d.h * d.w * d.c;
      DType* dst = y + (n * o.h + r) * o.w * o.c;
      if (nearest) {
        const int64_t srow = NearestSource(r, sy, d.h);
        for (int64_t col = 0; col < o.w; ++col) {
          const int64_t scol = NearestSource(col, sx, d.w);
          for (int64_t c = 0; c < d.c; ++c) AssignReq(&dst[col * o.c + c], req[0], img[(srow * d.w + scol) * d.c + c]);
        }
        return;
      }
      const LinearTaps ty = LinearSource(r, sy, d.h);
      for (int64_t col = 0; col < o.w; ++col) {
        const LinearTaps tx = LinearSource(col, sx, d.w);
        for (int64_t c = 0; c < d.c; ++c) {
          const float a = float(img[(ty.i0 * d.w + tx.i0) * d.c + c]), b = float(img[(ty.i0 * d.w + tx.i1) * d.c + c]);
          const float e = float(img[(ty.i1 * d.w + tx.i0) * d.c + c]), f = float(img[(ty.i1 * d.w + tx.i1) * d.c + c]);
          AssignReq(&dst[col * o.c + c], req[0], FromFloat<DType>(Bilerp(a, b, e, f, tx.w, ty.w)));
        }
      }
    });
  });
}

bool CropShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const ImageDims d = ChannelsLast(attrs, (*in)[0]);
  const CropParam& p = attrs.get<CropParam>();
  MX_CHECK_KIND(p.x + p.width <= d.w && p.y + p.height <= d.h, "ValueError")
      << attrs.op->name << ": window x=" << p.x << " y=" << p.y << " width=" << p.width << " height=" << p.height
      << " does not fit in an image of height " << d.h << " and width " << d.w;
  AssignShape(attrs, &(*out)[0], MakeChannelsLast((*in)[0], d.n, p.height, p.width, d.c), "output", 0);
  return true;
}

void CropCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  const CropParam& p = attrs.get<CropParam>();
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(d.n * p.height, [&](int64_t nr) {
      const int64_t n = nr / p.height, r = nr % p.height;
      const DType* src = x + ((n * d.h + p.y + r) * d.w + p.x) * d.c;
      DType* dst = y + nr * p.width * d.c;
      for (int64_t i = 0; i < p.width * d.c; ++i) AssignReq(&dst[i], req[0], src[i]);
    });
  });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(_image_resize)
        .describe("Resizes an image (H, W, C) or batch (N, H, W, C) to size (w, h); integer types are "
                  "rounded and saturated.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input image(s), channels last.")
        .add_arguments(ResizeParam::__FIELDS__())
        .set_attr_parser(ParamParser<ResizeParam>)
        .set_infer_shape(ResizeShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, ResizeCompute);
    MXNET_REGISTER_OP(_image_crop)
        .describe("Crops the window (x, y, width, height) of an image (H, W, C) or batch (N, H, W, C).")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input image(s), channels last.")
        .add_arguments(CropParam::__FIELDS__())
        .set_attr_parser(ParamParser<CropParam>)
        .set_infer_shape(CropShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, CropCompute);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace image
}  // namespace op
}  // namespace mxnet
