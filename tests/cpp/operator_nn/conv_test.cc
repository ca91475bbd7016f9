// Convolution, Deconvolution and FullyConnected against direct loops written from the
// definitions, gradients against finite differences, oneDNN against the plain path.
#include <string>
#include <vector>

#include "mxnet/error.h"
#include "op_runner.h"

namespace mxnet {
namespace test {
namespace {

struct ConvCase {
  TShape x;          // NC + spatial
  TShape k, s, d, p;  // per spatial dim
  int64_t F, G;
  bool no_bias;
};

std::string Tuple(const TShape& t) { return t.ToString(); }

Params ConvParams(const ConvCase& c) {
  return {{"kernel", Tuple(c.k)}, {"stride", Tuple(c.s)}, {"dilate", Tuple(c.d)}, {"pad", Tuple(c.p)},
          {"num_filter", std::to_string(c.F)}, {"num_group", std::to_string(c.G)},
          {"no_bias", c.no_bias ? "True" : "False"}};
}

/*! \brief out[n, f, o...] = b[f] + sum_{c in group, k} x[n, c, o*s - p + k*d] * w[f, c, k]. */
HostTensor NaiveConv(const ConvCase& c, const HostTensor& x, const HostTensor& w, const HostTensor* b) {
  const int nsp = c.x.ndim() - 2;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1},
          p[3] = {0, 0, 0};
  for (int i = 0; i < nsp; ++i) {
    const int j = 3 - nsp + i;
    in[j] = c.x[2 + i];
    k[j] = c.k[i];
    s[j] = c.s[i];
    d[j] = c.d[i];
    p[j] = c.p[i];
    out[j] = (in[j] + 2 * p[j] - d[j] * (k[j] - 1) - 1) / s[j] + 1;
  }
  std::vector<dim_t> os{c.x[0], c.F};
  for (int i = 0; i < nsp; ++i) os.push_back(out[3 - nsp + i]);
  HostTensor y{TShape(os)};
  const int64_t C = c.x[1], Cg = C / c.G, Fg = c.F / c.G;
  int64_t yi = 0;
  for (int64_t n = 0; n < c.x[0]; ++n)
    for (int64_t f = 0; f < c.F; ++f)
      for (int64_t o0 = 0; o0 < out[0]; ++o0)
        for (int64_t o1 = 0; o1 < out[1]; ++o1)
          for (int64_t o2 = 0; o2 < out[2]; ++o2, ++yi) {
            double acc = b ? b->v[f] : 0;
            const int64_t g = f / Fg;
            for (int64_t cc = 0; cc < Cg; ++cc)
              for (int64_t k0 = 0; k0 < k[0]; ++k0)
                for (int64_t k1 = 0; k1 < k[1]; ++k1)
                  for (int64_t k2 = 0; k2 < k[2]; ++k2) {
                    const int64_t i0 = o0 * s[0] - p[0] + k0 * d[0], i1 = o1 * s[1] - p[1] + k1 * d[1],
                                  i2 = o2 * s[2] - p[2] + k2 * d[2];
                    if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                    const int64_t xi = (((n * C + g * Cg + cc) * in[0] + i0) * in[1] + i1) * in[2] + i2;
                    const int64_t wi = (((f * Cg + cc) * k[0] + k0) * k[1] + k1) * k[2] + k2;
                    acc += x.v[xi] * w.v[wi];
                  }
            y.v[yi] = acc;
          }
  return y;
}

std::vector<ConvCase> Cases() {
  return {
      {{2, 3, 9}, {3}, {1}, {1}, {0}, 4, 1, false},                     // 1-D
      {{2, 4, 7, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 6, 1, false},      // 3x3 pad 1
      {{1, 4, 9, 8}, {3, 2}, {2, 1}, {1, 2}, {1, 0}, 4, 2, true},       // stride, dilate, groups
      {{2, 6, 5, 5}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 3, 3, false},      // pointwise, groups
      {{1, 2, 4, 5, 5}, {2, 3, 3}, {1, 2, 1}, {1, 1, 1}, {0, 1, 1}, 3, 1, false},  // 3-D
  };
}

std::vector<HostTensor> ConvInputs(const ConvCase& c, uint32_t seed) {
  std::vector<dim_t> ws{c.F, c.x[1] / c.G};
  ws.insert(ws.end(), c.k.begin(), c.k.end());
  std::vector<HostTensor> in{Random(c.x, seed), Random(TShape(ws), seed + 1)};
  if (!c.no_bias) in.push_back(Random(TShape{c.F}, seed + 2));
  return in;
}

TEST(Convolution, ForwardMatchesDirectLoopsOnBothPaths) {
  uint32_t seed = 1;
  for (const auto& c : Cases()) {
    auto in = ConvInputs(c, seed++);
    const HostTensor ref = NaiveConv(c, in[0], in[1], c.no_bias ? nullptr : &in[2]);
    for (int path : {0, 1}) {
      PathScope scope(path);
      auto cp = in;
      auto out = RunOp("Convolution", ConvParams(c), &cp, kFloat32);
      ExpectNear(out[0], ref, 1e-4, 1e-4, "Convolution path " + std::to_string(path) + " x=" + c.x.ToString());
    }
    PathScope plain(0);
    auto out64 = RunOp("Convolution", ConvParams(c), &in, kFloat64);
    ExpectNear(out64[0], ref, 1e-12, 1e-12, "Convolution float64 x=" + c.x.ToString());
  }
}

/*! \brief Moves axis 1 to the end (NCHW -> NHWC) of a host tensor. */
HostTensor ToChannelLast(const HostTensor& t) {
  const int nd = t.shape.ndim();
  const int64_t N = t.shape[0], C = t.shape[1], S = t.Size() / (N * C);
  std::vector<dim_t> s{N};
  for (int i = 2; i < nd; ++i) s.push_back(t.shape[i]);
  s.push_back(C);
  HostTensor r{TShape(s)};
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < S; ++i) r.v[(n * S + i) * C + c] = t.v[(n * C + c) * S + i];
  return r;
}

TEST(Convolution, ChannelLastLayoutEqualsChannelFirst) {
  ConvCase c{{2, 4, 6, 5}, {3, 3}, {1, 2}, {1, 1}, {1, 1}, 6, 2, false};
  auto in = ConvInputs(c, 7);
  const HostTensor ref = ToChannelLast(NaiveConv(c, in[0], in[1], &in[2]));
  std::vector<HostTensor> cl{ToChannelLast(in[0]), ToChannelLast(in[1]), in[2]};
  Params p = ConvParams(c);
  p["layout"] = "NHWC";
  for (int path : {0, 1}) {
    PathScope scope(path);
    auto out = RunOp("Convolution", p, &cl, kFloat32);
    ExpectNear(out[0], ref, 1e-4, 1e-4, "NHWC path " + std::to_string(path));
  }
}

/*! \brief Checks _backward_<op> (inputs ograd, data, weight) against finite differences. */
void CheckConvLikeGradients(const std::string& op, const Params& p, const std::vector<HostTensor>& in, bool has_bias) {
  PathScope plain(0);
  std::vector<HostTensor> fin = in;
  const auto fwd = RunOp(op, p, &fin, kFloat64, true);
  const HostTensor head = Random(fwd[0].shape, 99);
  std::vector<HostTensor> bin{head, in[0], in[1]};
  const auto grads = RunOp("_backward_" + op, p, &bin, kFloat64, true);
  const size_t n = has_bias ? 3 : 2;
  for (size_t i = 0; i < n; ++i)
    ExpectNear(grads[i], NumericGrad(op, p, in, i, head), 1e-5, 1e-6, op + " gradient of input " + std::to_string(i));
  // The oneDNN backward (float32) agrees with the plain one.
  std::vector<HostTensor> bin32 = bin;
  const auto plain32 = RunOp("_backward_" + op, p, &bin32, kFloat32, true);
  PathScope dnn(1);
  const auto dnn32 = RunOp("_backward_" + op, p, &bin32, kFloat32, true);
  for (size_t i = 0; i < n; ++i) ExpectNear(dnn32[i], plain32[i], 1e-3, 1e-3, op + " oneDNN backward " + std::to_string(i));
}

TEST(Convolution, GradientsMatchFiniteDifferences) {
  uint32_t seed = 20;
  for (const auto& c : Cases()) CheckConvLikeGradients("Convolution", ConvParams(c), ConvInputs(c, seed++), !c.no_bias);
}

TEST(Convolution, ChannelLastGradientsMatchFiniteDifferences) {
  ConvCase c{{1, 4, 5, 4}, {3, 2}, {1, 1}, {1, 1}, {1, 0}, 2, 2, false};
  auto in = ConvInputs(c, 5);
  Params p = ConvParams(c);
  p["layout"] = "NHWC";
  CheckConvLikeGradients("Convolution", p, {ToChannelLast(in[0]), ToChannelLast(in[1]), in[2]}, true);
}

void ExpectError(const std::string& op, const Params& p, std::vector<HostTensor> in, const std::string& needle) {
  try {
    RunOp(op, p, &in, kFloat32);
    FAIL() << op << " accepted bad input; expected an error mentioning '" << needle << "'";
  } catch (const mxnet::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(op), std::string::npos) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
  }
}

TEST(Convolution, BadInputsRaiseErrorsNamingOpAndParameter) {
  const Params base{{"kernel", "(3, 3)"}, {"num_filter", "4"}};
  ExpectError("Convolution", base, {HostTensor({1, 2, 2, 2}), HostTensor({4, 2, 3, 3}), HostTensor({4})}, "kernel");
  ExpectError("Convolution", base, {HostTensor({1, 2, 5, 5}), HostTensor({4, 3, 3, 3}), HostTensor({4})}, "weight");
  Params g = base;
  g["num_group"] = "3";
  ExpectError("Convolution", g, {HostTensor({1, 4, 5, 5}), HostTensor({4, 1, 3, 3}), HostTensor({4})}, "num_group");
  Params neg = base;
  neg["pad"] = "(-1, 0)";
  ExpectError("Convolution", neg, {HostTensor({1, 2, 5, 5}), HostTensor({4, 2, 3, 3}), HostTensor({4})}, "pad");
  ExpectError("Convolution", base, {HostTensor({1, 2, 5}), HostTensor({4, 2, 3, 3}), HostTensor({4})}, "kernel");
}

// ---- Deconvolution: the adjoint of Convolution -------------------------------------------

/*! \brief Scatter definition: y[n, c, i*s - p + k*d] += x[n, f, i] * w[f, c, k] (1-D / 2-D). */
HostTensor NaiveDeconv2D(const HostTensor& x, const HostTensor& w, const HostTensor* b, int64_t G, const TShape& k,
                         const TShape& s, const TShape& d, const std::vector<int64_t>& pad, const TShape& out) {
  const int64_t N = x.shape[0], F = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t Cg = w.shape[1], C = Cg * G, Fg = F / G;
  HostTensor y(out);
  const int64_t OH = out[2], OW = out[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t ww = 0; ww < W; ++ww)
          for (int64_t cc = 0; cc < Cg; ++cc)
            for (int64_t a = 0; a < k[0]; ++a)
              for (int64_t bb = 0; bb < k[1]; ++bb) {
                const int64_t oh = h * s[0] - pad[0] + a * d[0], ow = ww * s[1] - pad[1] + bb * d[1];
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                const int64_t c = (f / Fg) * Cg + cc;
                y.v[((n * C + c) * OH + oh) * OW + ow] +=
                    x.v[((n * F + f) * H + h) * W + ww] * w.v[((f * Cg + cc) * k[0] + a) * k[1] + bb];
              }
  if (b)
    for (int64_t i = 0; i < y.Size(); ++i) y.v[i] += b->v[(i / (OH * OW)) % C];
  return y;
}

TEST(Deconvolution, ForwardMatchesScatterDefinitionWithAdjAndTargetShape) {
  const HostTensor x = Random({2, 4, 4, 3}, 3);
  const HostTensor w = Random({4, 3, 3, 2}, 4);  // (in channels, num_filter / G, k)
  const HostTensor b = Random({6}, 5);
  struct Case {
    Params p;
    std::vector<int64_t> pad;
    TShape out, stride;
  };
  std::vector<Case> cases = {
      {{{"kernel", "(3, 2)"}, {"stride", "(2, 1)"}, {"pad", "(1, 0)"}, {"adj", "(1, 0)"}, {"num_filter", "6"},
        {"num_group", "2"}, {"no_bias", "False"}},
       {1, 0},
       {2, 6, 8, 4},
       {2, 1}},  // 2*(4-1)+3-2+1 = 8, 1*(3-1)+2 = 4
      {{{"kernel", "(3, 2)"}, {"stride", "(2, 2)"}, {"target_shape", "(8, 6)"}, {"num_filter", "6"},
        {"num_group", "2"}, {"no_bias", "False"}},
       {1, 0},  // tot = 9 - 8 = 1 -> pad 1, adj 1; tot = 6 - 6 = 0
       {2, 6, 8, 6},
       {2, 2}},
  };
  for (auto& c : cases) {
    std::vector<HostTensor> in{x, w, b};
    const HostTensor ref = NaiveDeconv2D(x, w, &b, 2, {3, 2}, c.stride, {1, 1}, c.pad, c.out);
    for (int path : {0, 1}) {
      PathScope scope(path);
      auto out = RunOp("Deconvolution", c.p, &in, kFloat32);
      ExpectNear(out[0], ref, 1e-4, 1e-4, "Deconvolution path " + std::to_string(path));
    }
  }
}

TEST(Deconvolution, GradientsMatchFiniteDifferences) {
  const Params p{{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"adj", "(1, 1)"},
                 {"dilate", "(1, 2)"}, {"num_filter", "4"}, {"num_group", "2"}, {"no_bias", "False"}};
  CheckConvLikeGradients("Deconvolution", p, {Random({1, 4, 3, 3}, 8), Random({4, 2, 3, 3}, 9), Random({4}, 10)},
                         true);
  const Params p1{{"kernel", "(4,)"}, {"stride", "(3,)"}, {"num_filter", "2"}};
  CheckConvLikeGradients("Deconvolution", p1, {Random({2, 3, 5}, 11), Random({3, 2, 4}, 12)}, false);
}

// ---- FullyConnected ------------------------------------------------------------------------

TEST(FullyConnected, ForwardAndGradients) {
  for (bool flatten : {true, false}) {
    for (bool no_bias : {false, true}) {
      const Params p{{"num_hidden", "5"}, {"flatten", flatten ? "True" : "False"},
                     {"no_bias", no_bias ? "True" : "False"}};
      const HostTensor x = Random({3, 2, 4}, 13);
      const int64_t K = flatten ? 8 : 4, M = flatten ? 3 : 6;
      std::vector<HostTensor> in{x, Random({5, K}, 14)};
      if (!no_bias) in.push_back(Random({5}, 15));
      HostTensor ref(flatten ? TShape{3, 5} : TShape{3, 2, 5});
      for (int64_t m = 0; m < M; ++m)
        for (int64_t h = 0; h < 5; ++h) {
          double acc = no_bias ? 0 : in[2].v[h];
          for (int64_t k = 0; k < K; ++k) acc += x.v[m * K + k] * in[1].v[h * K + k];
          ref.v[m * 5 + h] = acc;
        }
      for (int path : {0, 1}) {
        PathScope scope(path);
        auto out = RunOp("FullyConnected", p, &in, kFloat32);
        ExpectNear(out[0], ref, 1e-5, 1e-5, "FullyConnected path " + std::to_string(path));
      }
      CheckConvLikeGradients("FullyConnected", p, in, !no_bias);
    }
  }
}

TEST(FullyConnected, WrongWeightShapeNamesWeight) {
  ExpectError("FullyConnected", {{"num_hidden", "5"}}, {HostTensor({3, 4}), HostTensor({5, 3}), HostTensor({5})},
              "weight");
}

}  // namespace
}  // namespace test
}  // namespace mxnet
