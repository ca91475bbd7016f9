/*!
 * \file image_layout.h
 * \brief Shape helpers shared by the `_image_*` operators: an image is HWC (3-D) and a batch
 *        NHWC (4-D) before to_tensor, CHW / NCHW after it.
 */
#ifndef MXNET_OPERATOR_IMAGE_IMAGE_LAYOUT_H_
#define MXNET_OPERATOR_IMAGE_IMAGE_LAYOUT_H_

#include <string>

#include "mxnet/op.h"

namespace mxnet {
namespace op {
namespace image {

/*! \brief Sizes of a 3-D or 4-D image input: n images of h x w x c (axis order per layout). */
struct ImageDims {
  int64_t n{1}, h{0}, w{0}, c{0};
};

/*! \brief Reads a channels-last (HWC/NHWC) shape; throws ValueError naming the op otherwise. */
inline ImageDims ChannelsLast(const NodeAttrs& attrs, const TShape& s) {
  MX_CHECK_KIND(s.ndim() == 3 || s.ndim() == 4, "ValueError")
      << attrs.op->name << ": expected an image of shape (H, W, C) or a batch (N, H, W, C), got " << s;
  ImageDims d;
  const int o = s.ndim() - 3;
  d.n = o ? s[0] : 1;
  d.h = s[o];
  d.w = s[o + 1];
  d.c = s[o + 2];
  return d;
}

/*! \brief Reads a channels-first (CHW/NCHW) shape. */
inline ImageDims ChannelsFirst(const NodeAttrs& attrs, const TShape& s) {
  MX_CHECK_KIND(s.ndim() == 3 || s.ndim() == 4, "ValueError")
      << attrs.op->name << ": expected a tensor of shape (C, H, W) or a batch (N, C, H, W), got " << s;
  ImageDims d;
  const int o = s.ndim() - 3;
  d.n = o ? s[0] : 1;
  d.c = s[o];
  d.h = s[o + 1];
  d.w = s[o + 2];
  return d;
}

/*! \brief (n,) h, w, c as a channels-last shape of the same rank as `like`. */
inline TShape MakeChannelsLast(const TShape& like, int64_t n, int64_t h, int64_t w, int64_t c) {
  return like.ndim() == 4 ? TShape{n, h, w, c} : TShape{h, w, c};
}

}  // namespace image
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_IMAGE_IMAGE_LAYOUT_H_
