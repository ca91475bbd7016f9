/*!
 * \file flip.cc
 * \brief Mirroring of HWC images / NHWC batches: `_image_flip_left_right`,
 *        `_image_flip_top_bottom`, and the random variants that mirror each image with
 *        probability 1/2 (drawn from the seeded random stream, so mx.random.seed fixes them).
 */
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/image/image_layout.h"
#include "operator/image/image_params.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

/*! \brief Copies image n of the input to the output, mirrored along W (horizontal) or H. */
template <typename DType>
void FlipOne(const DType* x, DType* y, const ImageDims& d, bool horizontal, bool flip, OpReqType req) {
  for (int64_t r = 0; r < d.h; ++r) {
    const int64_t sr = (flip && !horizontal) ? d.h - 1 - r : r;
    for (int64_t col = 0; col < d.w; ++col) {
      const int64_t sc = (flip && horizontal) ? d.w - 1 - col : col;
      const DType* src = x + (sr * d.w + sc) * d.c;
      DType* dst = y + (r * d.w + col) * d.c;
      for (int64_t c = 0; c < d.c; ++c) AssignReq(&dst[c], req, src[c]);
    }
  }
}

template <bool kHorizontal, bool kRandom>
void FlipCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ImageDims d = ChannelsLast(attrs, in[0].shape_);
  std::vector<char> flip(d.n, 1);
  if (kRandom) {
    for (int64_t n = 0; n < d.n; ++n) flip[n] = RandomFlipOf(ctx.requested[0].random, n);
  }
  const int64_t image = d.h * d.w * d.c;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(d.n, [&](int64_t n) { FlipOne(x + n * image, y + n * image, d, kHorizontal, flip[n], req[0]); });
  });
}

bool FlipShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  ChannelsLast(attrs, (*in)[0]);
  AssignShape(attrs, &(*out)[0], (*in)[0], "output", 0);
  return true;
}

template <bool kHorizontal, bool kRandom>
Op& FlipFamily(Op& op, const char* doc) {
  op.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "Input image (H, W, C) or batch (N, H, W, C).")
      .set_infer_shape(FlipShape)
      .set_infer_type(ElemwiseType)
      .set_compute(Context::kCPU, FlipCompute<kHorizontal, kRandom>);
  if (kRandom) {
    op.set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kRandom});
  } else {
    // Mirroring is its own inverse: the gradient is the mirrored output gradient.
    const std::string self = op.name;
    op.set_gradient([self](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode(self, n->attrs.name + "_backward", {og[0]})};
    });
  }
  return op;
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP_FAMILY(_image_flip_left_right, FlipFamily<true, false>,
                             "Mirrors images horizontally (reverses the W axis).");
    MXNET_REGISTER_OP_FAMILY(_image_flip_top_bottom, FlipFamily<false, false>,
                             "Mirrors images vertically (reverses the H axis).");
    MXNET_REGISTER_OP_FAMILY(_image_random_flip_left_right, FlipFamily<true, true>,
                             "Mirrors each image horizontally with probability 1/2.");
    MXNET_REGISTER_OP_FAMILY(_image_random_flip_top_bottom, FlipFamily<false, true>,
                             "Mirrors each image vertically with probability 1/2.");
  }
};
const Registrar registrar;

}  // namespace
}  // namespace image
}  // namespace op
}  // namespace mxnet
