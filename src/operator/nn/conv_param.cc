/*!
 * \file conv_param.cc
 * \brief Parameter registration and geometry resolution for Convolution/Deconvolution.
 */
#include "operator/nn/conv_param.h"

#include "operator/nn/nn_util.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ConvolutionParam);
DMLC_REGISTER_PARAMETER(DeconvolutionParam);

ConvWindow ResolveWindow(const NodeAttrs& attrs, const TShape& kernel, const TShape& stride, const TShape& dilate,
                         const TShape& pad, int data_ndim) {
  const char* op = OpNameOf(attrs);
  const int nk = kernel.ndim();
  MX_CHECK_KIND(nk >= 1 && nk <= 3, "ValueError") << op << ": kernel must have 1 to 3 dimensions, got " << kernel;
  MX_CHECK_KIND(data_ndim == nk + 2, "ValueError")
      << op << ": a " << nk << "-D kernel " << kernel << " needs data of rank " << nk + 2 << ", got rank "
      << data_ndim;
  ConvWindow w{kernel, FillIfEmpty(stride, nk, 1), FillIfEmpty(dilate, nk, 1), FillIfEmpty(pad, nk, 0)};
  auto check = [&](const TShape& t, const char* name, dim_t lo) {
    MX_CHECK_KIND(t.ndim() == nk, "ValueError")
        << op << ": " << name << " " << t << " must have as many dimensions as kernel " << kernel;
    for (dim_t v : t)
      MX_CHECK_KIND(v >= lo, "ValueError") << op << ": " << name << " must be >= " << lo << ", got " << t;
  };
  check(w.kernel, "kernel", 1);
  check(w.stride, "stride", 1);
  check(w.dilate, "dilate", 1);
  check(w.pad, "pad", 0);
  return w;
}

int64_t ConvOutDim(const NodeAttrs& attrs, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int dim) {
  const int64_t ek = d * (k - 1) + 1;
  MX_CHECK_KIND(in + 2 * p >= ek, "ValueError")
      << OpNameOf(attrs) << ": kernel (dilated size " << ek << ") is larger than the padded input (" << in << " + 2*"
      << p << ") in spatial dimension " << dim;
  return (in + 2 * p - ek) / s + 1;
}

TShape ToChannelFirst(const TShape& s, bool channel_last) {
  if (!channel_last) return s;
  std::vector<dim_t> d{s[0], s[s.ndim() - 1]};
  for (int i = 1; i < s.ndim() - 1; ++i) d.push_back(s[i]);
  return TShape(d);
}

TShape FromChannelFirst(const TShape& s, bool channel_last) {
  if (!channel_last) return s;
  std::vector<dim_t> d{s[0]};
  for (int i = 2; i < s.ndim(); ++i) d.push_back(s[i]);
  d.push_back(s[1]);
  return TShape(d);
}

namespace {
void FillWindow(ConvGeom* g, const ConvWindow& w) {
  const int off = 3 - g->nsp;
  for (int i = 0; i < g->nsp; ++i) {
    g->k[off + i] = w.kernel[i];
    g->s[off + i] = w.stride[i];
    g->d[off + i] = w.dilate[i];
    g->p[off + i] = w.pad[i];
  }
}
}  // namespace

ConvGeom MakeConvGeom(const NodeAttrs& attrs, const ConvolutionParam& p, const TShape& x) {
  const char* op = OpNameOf(attrs);
  ConvWindow w = ResolveWindow(attrs, p.kernel, p.stride, p.dilate, p.pad, x.ndim());
  ConvGeom g;
  g.nsp = x.ndim() - 2;
  g.N = x[0];
  g.C = x[1];
  g.F = p.num_filter;
  g.G = p.num_group;
  MX_CHECK_KIND(g.C % g.G == 0, "ValueError")
      << op << ": num_group " << g.G << " must divide the number of input channels " << g.C;
  MX_CHECK_KIND(g.F % g.G == 0, "ValueError")
      << op << ": num_group " << g.G << " must divide num_filter " << g.F;
  FillWindow(&g, w);
  const int off = 3 - g.nsp;
  for (int i = 0; i < g.nsp; ++i) {
    g.in[off + i] = x[2 + i];
    g.out[off + i] = ConvOutDim(attrs, x[2 + i], w.kernel[i], w.stride[i], w.pad[i], w.dilate[i], i);
  }
  return g;
}

void DeconvResolve(const NodeAttrs& attrs, const DeconvolutionParam& p, const TShape& x, std::vector<int64_t>* out,
                   std::vector<int64_t>* pad, std::vector<int64_t>* adj) {
  const char* op = OpNameOf(attrs);
  ConvWindow w = ResolveWindow(attrs, p.kernel, p.stride, p.dilate, p.pad, x.ndim());
  const int nsp = x.ndim() - 2;
  const TShape a = FillIfEmpty(p.adj, nsp, 0);
  MX_CHECK_KIND(a.ndim() == nsp, "ValueError") << op << ": adj " << a << " must have " << nsp << " dimensions";
  bool use_target = p.target_shape.ndim() > 0;
  if (use_target) {
    MX_CHECK_KIND(p.target_shape.ndim() == nsp, "ValueError")
        << op << ": target_shape " << p.target_shape << " must have " << nsp << " dimensions";
    bool any = false;
    for (dim_t t : p.target_shape) any = any || t != 0;
    use_target = any;
  }
  out->assign(nsp, 0);
  pad->assign(nsp, 0);
  adj->assign(nsp, 0);
  for (int i = 0; i < nsp; ++i) {
    const int64_t ek = w.dilate[i] * (w.kernel[i] - 1) + 1;
    const int64_t full = w.stride[i] * (x[2 + i] - 1) + ek;
    if (use_target) {
      const int64_t tot = full - p.target_shape[i];
      MX_CHECK_KIND(tot >= 0, "ValueError") << op << ": target_shape " << p.target_shape
                                            << " is larger than the largest reachable output in dimension " << i;
      (*adj)[i] = tot % 2;
      (*pad)[i] = (tot + 1) / 2;
    } else {
      (*adj)[i] = a[i];
      (*pad)[i] = w.pad[i];
    }
    MX_CHECK_KIND((*adj)[i] >= 0 && (*adj)[i] < w.stride[i], "ValueError")
        << op << ": adj " << (*adj)[i] << " must be smaller than stride " << w.stride[i] << " in dimension " << i;
    (*out)[i] = full - 2 * (*pad)[i] + (*adj)[i];
    MX_CHECK_KIND((*out)[i] > 0, "ValueError")
        << op << ": pad " << (*pad)[i] << " leaves no output in spatial dimension " << i;
  }
}

ConvGeom MakeDeconvGeom(const NodeAttrs& attrs, const DeconvolutionParam& p, const TShape& x) {
  const char* op = OpNameOf(attrs);
  ConvWindow w = ResolveWindow(attrs, p.kernel, p.stride, p.dilate, p.pad, x.ndim());
  std::vector<int64_t> out, pad, adj;
  DeconvResolve(attrs, p, x, &out, &pad, &adj);
  ConvGeom g;
  g.nsp = x.ndim() - 2;
  g.N = x[0];
  g.C = p.num_filter;  // the transposed problem: its input is our output
  g.F = x[1];
  g.G = p.num_group;
  MX_CHECK_KIND(g.F % g.G == 0, "ValueError")
      << op << ": num_group " << g.G << " must divide the number of input channels " << g.F;
  MX_CHECK_KIND(g.C % g.G == 0, "ValueError") << op << ": num_group " << g.G << " must divide num_filter " << g.C;
  w.pad = TShape(pad.begin(), pad.end());
  FillWindow(&g, w);
  const int off = 3 - g.nsp;
  for (int i = 0; i < g.nsp; ++i) {
    g.in[off + i] = out[i];
    g.out[off + i] = x[2 + i];
  }
  return g;
}

DeconvSetup MakeDeconvSetup(const NodeAttrs& attrs, const TShape& data) {
  const auto& p = attrs.get<DeconvolutionParam>();
  DeconvSetup s;
  s.cl = ChannelLast(p.layout);
  const TShape x = ToChannelFirst(data, s.cl);
  DeconvResolve(attrs, p, x, &s.out, &s.pad, &s.adj);
  s.g = MakeDeconvGeom(attrs, p, x);
  return s;
}

ConvGeom ConvGeomOf(const NodeAttrs& attrs, const TShape& data) {
  const auto& p = attrs.get<ConvolutionParam>();
  return MakeConvGeom(attrs, p, ToChannelFirst(data, ChannelLast(p.layout)));
}

}  // namespace op
}  // namespace mxnet
