/*!
 * \file cv_mat.h
 * \brief cv::Mat headers over operator blobs, so OpenCV reads inputs and writes outputs in
 *        place without copies.
 */
#ifndef MXNET_OPERATOR_IMAGE_CV_MAT_H_
#define MXNET_OPERATOR_IMAGE_CV_MAT_H_

#if MXNET_USE_OPENCV
#include <opencv2/core.hpp>

#include <cstring>
#include <string>

#include "io/image_codec.h"
#include "mxnet/op.h"

namespace mxnet {
namespace op {
namespace image {

/*! \brief A cv::Mat over image `index` of an HWC image or NHWC batch (no copy). */
inline cv::Mat WrapHWC(const NodeAttrs& attrs, const TBlob& b, int64_t index = 0) {
  const int o = b.shape_.ndim() - 3;
  const int h = static_cast<int>(b.shape_[o]), w = static_cast<int>(b.shape_[o + 1]);
  const int c = static_cast<int>(b.shape_[o + 2]);
  const int type = CV_MAKETYPE(io::CvDepthOf(b.type_flag_, attrs.op->name), c);
  char* base = static_cast<char*>(b.dptr_) + index * int64_t(h) * w * c * DTypeSize(b.type_flag_);
  return cv::Mat(h, w, type, base);
}

/*!
 * \brief Runs fn(&dst) with dst a cv::Mat over output image `index`, honouring req (kAddTo
 *        adds a temporary result). OpenCV errors become ValueErrors naming the op.
 */
template <typename Fn>
void WriteHWC(const NodeAttrs& attrs, const TBlob& out, OpReqType req, Fn fn, int64_t index = 0) {
  if (req == kNullOp) return;
  cv::Mat dst = WrapHWC(attrs, out, index);
  try {
    if (req == kAddTo) {
      cv::Mat tmp(dst.size(), dst.type());
      fn(&tmp);
      cv::add(dst, tmp, dst);
      return;
    }
    const uchar* before = dst.data;
    fn(&dst);
    // OpenCV reallocates only when size or type differ, which shape inference rules out.
    MX_CHECK(dst.data == before) << attrs.op->name << ": OpenCV wrote outside the output array";
  } catch (const cv::Exception& e) {
    MX_THROW("ValueError") << attrs.op->name << ": " << e.what();
  }
}

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_OPENCV
#endif  // MXNET_OPERATOR_IMAGE_CV_MAT_H_
