/*!
 * \file resize.cc
 * \brief UpSampling (nearest; several inputs concatenated or summed) and BilinearResize2D
 *        (height/width or scale_height/scale_width, align_corners), with `_backward_*` ops.
 *        Data is NCHW.
 */
#include <cmath>
#include <string>
#include <vector>

#include "operator/nn/nn_util.h"
#include "operator/nn/resize_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(UpSamplingParam);
DMLC_REGISTER_PARAMETER(BilinearResize2DParam);

namespace {

// ---- UpSampling (nearest) -------------------------------------------------------------------

bool UpShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = UpParam(attrs);
  const TShape& s0 = (*in)[0];
  if (!s0.IsKnown()) return false;
  MX_CHECK_KIND(s0.ndim() == 4, "ValueError") << "UpSampling: data must be 4-D NCHW, got " << s0;
  const dim_t OH = s0[2] * p.scale, OW = s0[3] * p.scale;
  dim_t C = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    if (!s.IsKnown()) return false;
    MX_CHECK_KIND(s.ndim() == 4 && s[0] == s0[0] && OH % s[2] == 0 && OW % s[3] == 0 && OH / s[2] == OW / s[3],
                  "ValueError")
        << "UpSampling: input " << i << " of shape " << s << " cannot be scaled to " << OH << "x" << OW;
    if (p.multi_input_mode == 1)
      MX_CHECK_KIND(s[1] == s0[1], "ValueError") << "UpSampling: sum mode needs equal channels, got " << s;
    C = p.multi_input_mode == 1 ? s0[1] : C + s[1];
  }
  AssignShape(attrs, &(*out)[0], TShape{s0[0], C, OH, OW}, "output", 0);
  return true;
}

void UpCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = UpParam(attrs);
  const TShape& os = out[0].shape_;
  const int64_t N = os[0], C = os[1], OH = os[2], OW = os[3];
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, D, {
    D* y = out[0].dptr<D>();
    if (req[0] != kAddTo) std::fill(y, y + out[0].Size(), D(0));
    int64_t c0 = 0;
    for (const TBlob& b : in) {
      const int64_t Ci = b.shape_[1], H = b.shape_[2], W = b.shape_[3], s = OH / H;
      const D* x = b.dptr<D>();
      ParallelFor(N * Ci * OH * OW, [&](int64_t j) {
        const int64_t ow = j % OW, oh = (j / OW) % OH, c = (j / (OW * OH)) % Ci, n = j / (OW * OH * Ci);
        D& dst = y[((n * C + c0 + c) * OH + oh) * OW + ow];
        dst = static_cast<D>(static_cast<double>(dst) + static_cast<double>(x[((n * Ci + c) * H + oh / s) * W + ow / s]));
      });
      if (p.multi_input_mode == 0) c0 += Ci;
    }
  });
}

/*! \brief inputs (ograd, data...); outputs one gradient per data input (block sums). */
void UpBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = UpParam(attrs);
  const TShape& os = in[0].shape_;
  const int64_t C = os[1], OH = os[2], OW = os[3];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* dy = in[0].dptr<D>();
    int64_t c0 = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t N = out[i].shape_[0], Ci = out[i].shape_[1], H = out[i].shape_[2], W = out[i].shape_[3];
      const int64_t s = OH / H;
      D* dx = out[i].dptr<D>();
      const OpReqType r = req[i];
      if (r != kNullOp) {
        ParallelFor(N * Ci * H * W, [&](int64_t j) {
          const int64_t w = j % W, h = (j / W) % H, c = (j / (W * H)) % Ci, n = j / (W * H * Ci);
          double acc = 0;
          for (int64_t a = 0; a < s; ++a)
            for (int64_t b = 0; b < s; ++b) acc += static_cast<double>(dy[((n * C + c0 + c) * OH + h * s + a) * OW + w * s + b]);
          Store(dx + j, r, acc);
        });
      }
      if (p.multi_input_mode == 0) c0 += Ci;
    }
  });
}

// ---- BilinearResize2D ---------------------------------------------------------------------

void ResizeOut(const NodeAttrs& attrs, const TShape& s, const TShape* like, int64_t* OH, int64_t* OW) {
  const auto& p = attrs.get<BilinearResize2DParam>();
  const int64_t H = s[2], W = s[3];
  switch (p.mode) {
    case 0:
      *OH = p.scale_height.has_value() ? static_cast<int64_t>(H * p.scale_height.value()) : p.height;
      *OW = p.scale_width.has_value() ? static_cast<int64_t>(W * p.scale_width.value()) : p.width;
      break;
    case 1:  // odd_scale: keep odd sizes odd
      *OH = static_cast<int64_t>((H - 1) * (p.scale_height.has_value() ? p.scale_height.value() : 1.f)) + 1;
      *OW = static_cast<int64_t>((W - 1) * (p.scale_width.has_value() ? p.scale_width.value() : 1.f)) + 1;
      break;
    case 2:
      MX_CHECK_KIND(like != nullptr, "ValueError") << "BilinearResize2D: mode='like' needs a second input";
      *OH = (*like)[2];
      *OW = (*like)[3];
      break;
    case 3: *OH = H % 2 ? H - 1 : H, *OW = W % 2 ? W - 1 : W; break;
    case 4: *OH = H % 2 ? H + 1 : H, *OW = W % 2 ? W + 1 : W; break;
    case 5: *OH = H % 2 ? H : H - 1, *OW = W % 2 ? W : W - 1; break;
    default: *OH = H % 2 ? H : H + 1, *OW = W % 2 ? W : W + 1; break;
  }
  MX_CHECK_KIND(*OH > 0 && *OW > 0, "ValueError") << "BilinearResize2D: output size " << *OH << "x" << *OW
                                                  << " is empty for input " << s;
}

void ResizeCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool align = attrs.get<BilinearResize2DParam>().align_corners;
  const int64_t NC = in[0].shape_[0] * in[0].shape_[1], H = in[0].shape_[2], W = in[0].shape_[3];
  const int64_t OH = out[0].shape_[2], OW = out[0].shape_[3];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    ParallelFor(NC * OH * OW, [&](int64_t j) {
      const int64_t ow = j % OW, oh = (j / OW) % OH, nc = j / (OW * OH);
      int64_t h0, h1, w0, w1;
      double a, b;
      SrcCoord(oh, OH, H, align, &h0, &h1, &a);
      SrcCoord(ow, OW, W, align, &w0, &w1, &b);
      const D* p = x + nc * H * W;
      const double v = (1 - a) * ((1 - b) * double(p[h0 * W + w0]) + b * double(p[h0 * W + w1])) +
                       a * ((1 - b) * double(p[h1 * W + w0]) + b * double(p[h1 * W + w1]));
      Store(y + j, req[0], v);
    });
  });
}

/*! \brief inputs (ograd, data [, like]); outputs (ddata [, dlike = 0]). */
void ResizeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out.size() > 1 && req[1] != kNullOp && req[1] != kAddTo) std::memset(out[1].dptr_, 0, out[1].Bytes());
  if (req[0] == kNullOp) return;
  const bool align = attrs.get<BilinearResize2DParam>().align_corners;
  const int64_t NC = in[1].shape_[0] * in[1].shape_[1], H = in[1].shape_[2], W = in[1].shape_[3];
  const int64_t OH = in[0].shape_[2], OW = in[0].shape_[3];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const D* dy = in[0].dptr<D>();
    D* dx = out[0].dptr<D>();
    ParallelFor(NC, [&](int64_t nc) {  // one plane per index: the scatter stays race-free
      std::vector<double> acc(H * W, 0.0);
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t h0, h1, w0, w1;
          double a, b;
          SrcCoord(oh, OH, H, align, &h0, &h1, &a);
          SrcCoord(ow, OW, W, align, &w0, &w1, &b);
          const double g = static_cast<double>(dy[(nc * OH + oh) * OW + ow]);
          acc[h0 * W + w0] += (1 - a) * (1 - b) * g;
          acc[h0 * W + w1] += (1 - a) * b * g;
          acc[h1 * W + w0] += a * (1 - b) * g;
          acc[h1 * W + w1] += a * b * g;
        }
      for (int64_t i = 0; i < H * W; ++i) Store(dx + nc * H * W + i, req[0], acc[i]);
    });
  });
}

bool IsLike(const NodeAttrs& a) { return a.get<BilinearResize2DParam>().mode == 2; }

}  // namespace

MXNET_REGISTER_OP(UpSampling)
    .describe("Upsamples the given input data by nearest-neighbour replication (scale x scale blocks); several "
              "inputs are each scaled to the first one's output size and concatenated along channels or summed.")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<UpSamplingParam>().num_args); })
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .add_argument("data", "NDArray-or-Symbol[]", "Array of tensors to upsample.")
    .add_arguments(UpSamplingParam::__FIELDS__())
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .set_infer_shape(UpShape)
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, UpCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      std::vector<NodeEntry> ins{og[0]};
      ins.insert(ins.end(), n->inputs.begin(), n->inputs.end());
      auto dict = n->attrs.dict;
      dict["num_args"] = std::to_string(n->inputs.size());
      return MakeNodeOutputs("_backward_UpSampling", n->attrs.name + "_backward", ins, dict);
    });

MXNET_REGISTER_OP(_backward_UpSampling)
    .describe("Gradient of UpSampling (nearest): each input pixel gets the sum of its block.")
    .set_num_inputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<UpSamplingParam>().num_args) + 1; })
    .set_num_outputs([](const NodeAttrs& a) { return static_cast<uint32_t>(a.get<UpSamplingParam>().num_args); })
    .add_arguments(UpSamplingParam::__FIELDS__())
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, &(*out)[i], (*in)[i + 1], "output", i);
      return true;
    })
    .set_infer_type(ElemwiseType)
    .set_compute(Context::kCPU, UpBackward);

MXNET_REGISTER_OP(BilinearResize2D)
    .describe("Performs 2D resizing (upsampling or downsampling) of 4D NCHW input using bilinear interpolation, "
              "to (height, width), by (scale_height, scale_width), or like a second input.")
    .add_alias("_contrib_BilinearResize2D")
    .set_num_inputs([](const NodeAttrs& a) { return IsLike(a) ? 2u : 1u; })
    .set_num_outputs(1)
    .set_list_input_names([](const NodeAttrs& a) {
      return IsLike(a) ? std::vector<std::string>{"data", "like"} : std::vector<std::string>{"data"};
    })
    .add_argument("data", "NDArray-or-Symbol", "Input data")
    .add_argument("like", "NDArray-or-Symbol", "Resize data to it's shape")
    .add_arguments(BilinearResize2DParam::__FIELDS__())
    .set_attr_parser(ParamParser<BilinearResize2DParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      const TShape& s = (*in)[0];
      if (!s.IsKnown() || (IsLike(attrs) && !(*in)[1].IsKnown())) return false;
      MX_CHECK_KIND(s.ndim() == 4, "ValueError") << "BilinearResize2D: data must be 4-D NCHW, got " << s;
      int64_t OH, OW;
      ResizeOut(attrs, s, IsLike(attrs) ? &(*in)[1] : nullptr, &OH, &OW);
      AssignShape(attrs, &(*out)[0], TShape{s[0], s[1], OH, OW}, "output", 0);
      return true;
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      if ((*in)[0] < 0) return false;
      if (IsLike(attrs) && (*in)[1] < 0) (*in)[1] = (*in)[0];
      AssignType(attrs, &(*out)[0], (*in)[0], "output", 0);
      return true;
    })
    .set_compute(Context::kCPU, ResizeCompute)
    .set_gradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      std::vector<NodeEntry> ins{og[0]};
      ins.insert(ins.end(), n->inputs.begin(), n->inputs.end());
      return MakeNodeOutputs("_backward_BilinearResize2D", n->attrs.name + "_backward", ins, n->attrs.dict);
    });

MXNET_REGISTER_OP(_backward_BilinearResize2D)
    .describe("Gradient of BilinearResize2D.")
    .set_num_inputs([](const NodeAttrs& a) { return IsLike(a) ? 3u : 2u; })
    .set_num_outputs([](const NodeAttrs& a) { return IsLike(a) ? 2u : 1u; })
    .add_arguments(BilinearResize2DParam::__FIELDS__())
    .set_attr_parser(ParamParser<BilinearResize2DParam>)
    .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
      for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, &(*out)[i], (*in)[i + 1], "output", i);
      return true;
    })
    .set_infer_type([](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
      for (size_t i = 0; i < out->size(); ++i) AssignType(attrs, &(*out)[i], (*in)[i + 1], "output", i);
      return true;
    })
    .set_compute(Context::kCPU, ResizeBackward);

}  // namespace op
}  // namespace mxnet
