/*!
 * \file cv_image_ops.cc
 * \brief The OpenCV-backed image operators mx.image calls: `_cvimresize` (cv::resize of one
 *        HWC image) and `_cvcopyMakeBorder` (cv::copyMakeBorder). Results equal OpenCV's,
 *        which is what scripts written against MXNet 1.x compare with.
 */
#if MXNET_USE_OPENCV
#include <opencv2/imgproc.hpp>

#include <string>
#include <vector>

#include "io/image_codec.h"
#include "mxnet/op.h"
#include "operator/image/cv_mat.h"
#include "operator/image/float_list.h"

namespace mxnet {
namespace op {
namespace image {

struct CvResizeParam : public dmlc::Parameter<CvResizeParam> {
  int w, h, interp;
  DMLC_DECLARE_PARAMETER(CvResizeParam) {
    DMLC_DECLARE_FIELD(w).set_lower_bound(1).describe("Width of the output image.");
    DMLC_DECLARE_FIELD(h).set_lower_bound(1).describe("Height of the output image.");
    DMLC_DECLARE_FIELD(interp).set_default(1).describe(
        "Interpolation: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 9 auto (bicubic to "
        "enlarge, area to shrink), 10 random among 0-4.");
  }
};
DMLC_REGISTER_PARAMETER(CvResizeParam);

struct CvBorderParam : public dmlc::Parameter<CvBorderParam> {
  int top, bot, left, right, type;
  double value;
  FloatList values;
  DMLC_DECLARE_PARAMETER(CvBorderParam) {
    DMLC_DECLARE_FIELD(top).set_lower_bound(0).describe("Rows added above.");
    DMLC_DECLARE_FIELD(bot).set_lower_bound(0).describe("Rows added below.");
    DMLC_DECLARE_FIELD(left).set_lower_bound(0).describe("Columns added on the left.");
    DMLC_DECLARE_FIELD(right).set_lower_bound(0).describe("Columns added on the right.");
    DMLC_DECLARE_FIELD(type).set_default(0).set_range(0, 4).describe(
        "Border: 0 constant, 1 replicate, 2 reflect, 3 wrap, 4 reflect-101 (OpenCV's BORDER_*).");
    DMLC_DECLARE_FIELD(value).set_default(0.0).describe("Fill value of a constant border (every channel).");
    DMLC_DECLARE_FIELD(values).set_default(FloatList()).describe(
        "Fill value per channel of a constant border (up to 4); overrides value.");
  }
};
DMLC_REGISTER_PARAMETER(CvBorderParam);

namespace {

const TShape& CheckHWC(const NodeAttrs& attrs, const TShape& s) {
  MX_CHECK_KIND(s.ndim() == 3, "ValueError")
      << attrs.op->name << ": expected one image of shape (H, W, C), got " << s;
  MX_CHECK_KIND(s[2] >= 1 && s[2] <= CV_CN_MAX, "ValueError")
      << attrs.op->name << ": an image has 1 to " << CV_CN_MAX << " channels, got " << s[2];
  return s;
}

bool ResizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const TShape& s = CheckHWC(attrs, (*in)[0]);
  const CvResizeParam& p = attrs.get<CvResizeParam>();
  io::InterpolationFlag(p.interp == 10 ? 1 : p.interp, 1, 1, 1, 1, nullptr);  // rejects unknown codes now
  AssignShape(attrs, &(*out)[0], TShape{p.h, p.w, s[2]}, "output", 0);
  return true;
}

void ResizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const CvResizeParam& p = attrs.get<CvResizeParam>();
  const TShape& s = in[0].shape_;
  int flag = p.interp;
  if (p.interp == 10) {
    std::mt19937 rng(ctx.requested[0].random.ForElement(0).NextU32());
    flag = io::InterpolationFlag(p.interp, s[1], s[0], p.w, p.h, &rng);
  } else {
    flag = io::InterpolationFlag(p.interp, s[1], s[0], p.w, p.h, nullptr);
  }
  const cv::Mat src = WrapHWC(attrs, in[0]);
  WriteHWC(attrs, out[0], req[0], [&](cv::Mat* dst) { cv::resize(src, *dst, dst->size(), 0, 0, flag); });
}

bool BorderShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  const TShape& s = CheckHWC(attrs, (*in)[0]);
  const CvBorderParam& p = attrs.get<CvBorderParam>();
  MX_CHECK_KIND(p.values.v.size() <= 4, "ValueError")
      << attrs.op->name << ": values holds one fill value per channel, at most 4, got " << p.values.v.size();
  AssignShape(attrs, &(*out)[0], TShape{s[0] + p.top + p.bot, s[1] + p.left + p.right, s[2]}, "output", 0);
  return true;
}

void BorderCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const CvBorderParam& p = attrs.get<CvBorderParam>();
  cv::Scalar fill = cv::Scalar::all(p.value);
  for (size_t i = 0; i < p.values.v.size(); ++i) fill[static_cast<int>(i)] = p.values.v[i];
  const cv::Mat src = WrapHWC(attrs, in[0]);
  WriteHWC(attrs, out[0], req[0],
           [&](cv::Mat* dst) { cv::copyMakeBorder(src, *dst, p.top, p.bot, p.left, p.right, p.type, fill); });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(_cvimresize)
        .describe("Resizes one image (H, W, C) to (h, w, C) with OpenCV's cv::resize.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("src", "NDArray-or-Symbol", "Source image, channels last.")
        .add_arguments(CvResizeParam::__FIELDS__())
        .set_attr_parser(ParamParser<CvResizeParam>)
        .set_infer_shape(ResizeShape)
        .set_infer_type(ElemwiseType)
        .set_resource_request([](const NodeAttrs& attrs) {
          return attrs.get<CvResizeParam>().interp == 10 ? std::vector<ResourceRequest>{ResourceRequest::kRandom}
                                                         : std::vector<ResourceRequest>{};
        })
        .set_compute(Context::kCPU, ResizeCompute);
    MXNET_REGISTER_OP(_cvcopyMakeBorder)
        .describe("Pads one image (H, W, C) with a border, as OpenCV's cv::copyMakeBorder.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("src", "NDArray-or-Symbol", "Source image, channels last.")
        .add_arguments(CvBorderParam::__FIELDS__())
        .set_attr_parser(ParamParser<CvBorderParam>)
        .set_infer_shape(BorderShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, BorderCompute);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
