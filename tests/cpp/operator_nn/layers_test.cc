// Pooling, Activation, LeakyReLU, BatchNorm, softmax family, SoftmaxOutput and Dropout
// against definitions written out here, gradients against finite differences, and the
// oneDNN path against the plain one.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mxnet/error.h"
#include "op_runner.h"

namespace mxnet {
namespace test {
namespace {

void BothPathsMatch(const std::string& op, const Params& p, std::vector<HostTensor> in, const HostTensor& ref,
                    bool is_train = false, double tol = 1e-5) {
  for (int path : {0, 1}) {
    PathScope scope(path);
    std::vector<HostTensor> cp = in;
    auto out = RunOp(op, p, &cp, kFloat32, is_train);
    ExpectNear(out[0], ref, tol, tol, op + " path " + std::to_string(path));
  }
}

/*! \brief Gradient of input 0 through `bwd` (built by make_bwd_inputs) vs finite differences. */
template <typename MakeBwd>
void CheckGrad(const std::string& op, const Params& p, const std::vector<HostTensor>& in, MakeBwd make_bwd,
               size_t n_grads = 1, bool is_train = true, double tol = 1e-5) {
  PathScope plain(0);
  std::vector<HostTensor> fin = in;
  const auto fwd = RunOp(op, p, &fin, kFloat64, is_train);
  const HostTensor head = Random(fwd[0].shape, 77);
  std::vector<HostTensor> bin = make_bwd(head, in, fwd);
  const auto g = RunOp("_backward_" + op, p, &bin, kFloat64, is_train);
  for (size_t i = 0; i < n_grads; ++i)
    ExpectNear(g[i], NumericGrad(op, p, in, i, head, is_train), tol, tol, op + " gradient " + std::to_string(i));
}

// ---- Pooling -----------------------------------------------------------------------------

struct PoolRef {
  std::string type;
  bool include_pad;
  int pv;
};

/*! \brief 2-D pooling from the definition (MXNet's window and divisor rules). */
HostTensor NaivePool2D(const HostTensor& x, const PoolRef& r, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                       int64_t ph, int64_t pw, bool full) {
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  auto od = [&](int64_t in, int64_t k, int64_t s, int64_t p) {
    return full ? (in + 2 * p - k + s - 1) / s + 1 : (in + 2 * p - k) / s + 1;
  };
  const int64_t OH = od(H, kh, sh, ph), OW = od(W, kw, sw, pw);
  HostTensor y({N, C, OH, OW});
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t hs = oh * sh - ph, ws = ow * sw - pw;
        const int64_t he = std::min(hs + kh, H + ph), we = std::min(ws + kw, W + pw);
        const int64_t padded = (he - hs) * (we - ws);
        double acc = r.type == "max" ? -1e300 : 0;
        int64_t cnt = 0;
        for (int64_t h = std::max<int64_t>(hs, 0); h < std::min(hs + kh, H); ++h)
          for (int64_t w = std::max<int64_t>(ws, 0); w < std::min(ws + kw, W); ++w) {
            const double v = x.v[(nc * H + h) * W + w];
            ++cnt;
            if (r.type == "max") acc = std::max(acc, v);
            else if (r.type == "lp") acc += std::pow(v, r.pv);
            else acc += v;
          }
        if (r.type == "avg") acc /= r.include_pad ? padded : cnt;
        if (r.type == "lp") acc = r.pv == 2 ? std::sqrt(acc) : r.pv == 3 ? std::cbrt(acc) : acc;
        y.v[(nc * OH + oh) * OW + ow] = acc;
      }
  return y;
}

TEST(Pooling, TypesConventionsAndPaddingMatchDefinition) {
  const HostTensor x = Random({2, 3, 7, 6}, 1, 0.1, 1.0);  // positive: lp with p=3 stays real
  for (std::string type : {"max", "avg", "sum", "lp"}) {
    for (bool full : {false, true}) {
      for (bool include_pad : {true, false}) {
        for (int pv : {1, 2, 3}) {
          if (type != "lp" && pv != 2) continue;
          if (type != "avg" && !include_pad) continue;
          Params p{{"kernel", "(3, 2)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", type},
                   {"pooling_convention", full ? "full" : "valid"}, {"count_include_pad", include_pad ? "True" : "False"},
                   {"p_value", std::to_string(pv)}};
          BothPathsMatch("Pooling", p, {x}, NaivePool2D(x, {type, include_pad, pv}, 3, 2, 2, 2, 1, 1, full));
          CheckGrad("Pooling", p, {x}, [](const HostTensor& h, const std::vector<HostTensor>& in,
                                          const std::vector<HostTensor>& out) {
            return std::vector<HostTensor>{h, in[0], out[0]};
          });
        }
      }
    }
  }
}

TEST(Pooling, GlobalPoolAnd1DAnd3D) {
  const HostTensor x = Random({2, 3, 5, 4}, 2);
  HostTensor ref({2, 3, 1, 1});
  for (int64_t nc = 0; nc < 6; ++nc) {
    double s = 0;
    for (int64_t i = 0; i < 20; ++i) s += x.v[nc * 20 + i];
    ref.v[nc] = s / 20;
  }
  BothPathsMatch("Pooling", {{"kernel", "(7, 7)"}, {"global_pool", "True"}, {"pool_type", "avg"}}, {x}, ref);
  // 1-D max pooling, and 3-D avg pooling, through their gradients too.
  const Params p1{{"kernel", "(3,)"}, {"stride", "(2,)"}};
  CheckGrad("Pooling", p1, {Random({2, 2, 9}, 3)},
            [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>& out) {
              return std::vector<HostTensor>{h, in[0], out[0]};
            });
  const Params p3{{"kernel", "(2, 2, 2)"}, {"pool_type", "avg"}, {"pad", "(1, 0, 1)"}};
  CheckGrad("Pooling", p3, {Random({1, 2, 3, 4, 3}, 4)},
            [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>& out) {
              return std::vector<HostTensor>{h, in[0], out[0]};
            });
  std::vector<HostTensor> same{Random({1, 1, 7}, 5)};
  auto o = RunOp("Pooling", {{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pooling_convention", "same"}}, &same);
  EXPECT_EQ(o[0].shape, TShape({1, 1, 4}));
}

TEST(Pooling, KernelLargerThanInputIsAnError) {
  std::vector<HostTensor> in{HostTensor({1, 1, 2, 2})};
  try {
    RunOp("Pooling", {{"kernel", "(3, 3)"}}, &in);
    FAIL() << "accepted a kernel larger than the input";
  } catch (const mxnet::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Pooling"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("kernel"), std::string::npos);
  }
}

// ---- Activation and LeakyReLU ------------------------------------------------------------

double ActRef(const std::string& t, double x) {
  if (t == "relu") return x > 0 ? x : 0;
  if (t == "sigmoid") return 1 / (1 + std::exp(-x));
  if (t == "tanh") return std::tanh(x);
  if (t == "softrelu") return std::log(1 + std::exp(x));
  return x / (1 + std::fabs(x));
}

TEST(Activation, AllTypesForwardAndGradient) {
  HostTensor x = Random({3, 4, 5}, 6, -3, 3);
  for (auto& v : x.v)
    if (std::fabs(v) < 1e-3) v = 0.5;  // keep relu's kink away from the finite differences
  for (std::string t : {"relu", "sigmoid", "tanh", "softrelu", "softsign"}) {
    HostTensor ref(x.shape);
    for (int64_t i = 0; i < x.Size(); ++i) ref.v[i] = ActRef(t, x.v[i]);
    BothPathsMatch("Activation", {{"act_type", t}}, {x}, ref);
    CheckGrad("Activation", {{"act_type", t}}, {x},
              [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>& out) {
                return std::vector<HostTensor>{h, in[0], out[0]};
              });
    std::vector<HostTensor> b{Random(x.shape, 8), x, ref};
    PathScope plain(0);
    const auto gp = RunOp("_backward_Activation", {{"act_type", t}}, &b);
    PathScope dnn(1);
    const auto gd = RunOp("_backward_Activation", {{"act_type", t}}, &b);
    ExpectNear(gd[0], gp[0], 1e-5, 1e-5, "Activation oneDNN backward " + t);
  }
}

TEST(LeakyReLU, VariantsForwardAndGradient) {
  HostTensor x = Random({2, 3, 4}, 9, -2, 2);
  for (auto& v : x.v)
    if (std::fabs(v) < 1e-3) v = -0.7;
  const double a = 1.6732632423543772, l = 1.0507009873554805;
  for (std::string t : {"leaky", "elu", "selu", "gelu"}) {
    HostTensor ref(x.shape);
    for (int64_t i = 0; i < x.Size(); ++i) {
      const double v = x.v[i];
      if (t == "leaky") ref.v[i] = v > 0 ? v : 0.3 * v;
      if (t == "elu") ref.v[i] = v > 0 ? v : 0.3 * (std::exp(v) - 1);
      if (t == "selu") ref.v[i] = l * (v > 0 ? v : a * (std::exp(v) - 1));
      if (t == "gelu") ref.v[i] = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    }
    const Params p{{"act_type", t}, {"slope", "0.3"}};
    BothPathsMatch("LeakyReLU", p, {x}, ref);
    CheckGrad("LeakyReLU", p, {x},
              [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>&) {
                return std::vector<HostTensor>{h, in[0]};
              });
  }
  // prelu: per-channel gamma (axis 1), gradient for data and gamma.
  const HostTensor gamma{TShape{3}, {0.1, 0.5, 2.0}};
  HostTensor ref(x.shape);
  for (int64_t i = 0; i < x.Size(); ++i) ref.v[i] = x.v[i] > 0 ? x.v[i] : gamma.v[(i / 4) % 3] * x.v[i];
  BothPathsMatch("LeakyReLU", {{"act_type", "prelu"}}, {x, gamma}, ref);
  CheckGrad(
      "LeakyReLU", {{"act_type", "prelu"}}, {x, gamma},
      [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>&) {
        return std::vector<HostTensor>{h, in[0], in[1]};
      },
      2);
  // rrelu: slopes within the bounds while training, their mean otherwise.
  std::vector<HostTensor> in{x};
  const auto tr = RunOp("LeakyReLU", {{"act_type", "rrelu"}}, &in, kFloat32, true);
  const auto te = RunOp("LeakyReLU", {{"act_type", "rrelu"}}, &in, kFloat32, false);
  for (int64_t i = 0; i < x.Size(); ++i) {
    if (x.v[i] > 0) {
      EXPECT_NEAR(tr[0].v[i], x.v[i], 1e-6);
      continue;
    }
    const double s = tr[0].v[i] / x.v[i];
    EXPECT_GE(s, 0.125 - 1e-6);
    EXPECT_LE(s, 0.334 + 1e-6);
    EXPECT_NEAR(tr[1].v[i], s, 1e-5);
    EXPECT_NEAR(te[0].v[i], x.v[i] * (0.125 + 0.334) / 2, 1e-5);
  }
}

// ---- BatchNorm ---------------------------------------------------------------------------

TEST(BatchNorm, TrainingNormalizesWithBatchStatsAndItsBackwardUpdatesMovingStats) {
  const HostTensor x = Random({4, 3, 2, 5}, 10, -2, 3);
  const HostTensor gamma{TShape{3}, {0.5, 1.5, -1.0}}, beta{TShape{3}, {0.1, -0.2, 0.3}};
  const HostTensor mm{TShape{3}, {0.2, 0.0, -0.1}}, mv{TShape{3}, {1.0, 2.0, 0.5}};
  for (bool fix_gamma : {false, true}) {
    const Params p{{"eps", "0.001"}, {"momentum", "0.8"}, {"fix_gamma", fix_gamma ? "True" : "False"}};
    for (int path : {0, 1}) {
      PathScope scope(path);
      std::vector<HostTensor> in{x, gamma, beta, mm, mv};
      const auto out = RunOp("BatchNorm", p, &in, kFloat32, true);
      for (int64_t c = 0; c < 3; ++c) EXPECT_NEAR(in[3].v[c], mm.v[c], 1e-7) << "the forward alone leaves moving_mean";
      // As in MXNet 1.x, the training backward updates the moving statistics (inputs 5, 6).
      std::vector<HostTensor> bin{Random(x.shape, 9), x, gamma, out[1], out[2], mm, mv};
      RunOp("_backward_BatchNorm", p, &bin, kFloat32, true);
      in[3] = bin[5];
      in[4] = bin[6];
      for (int64_t c = 0; c < 3; ++c) {
        double s = 0, ss = 0;
        const int64_t M = 40;
        for (int64_t n = 0; n < 4; ++n)
          for (int64_t i = 0; i < 10; ++i) s += x.v[(n * 3 + c) * 10 + i];
        const double mean = s / M;
        for (int64_t n = 0; n < 4; ++n)
          for (int64_t i = 0; i < 10; ++i) ss += std::pow(x.v[(n * 3 + c) * 10 + i] - mean, 2);
        const double var = ss / M, g = fix_gamma ? 1.0 : gamma.v[c];
        EXPECT_NEAR(out[1].v[c], mean, 1e-5);
        EXPECT_NEAR(out[2].v[c], var, 1e-4);
        EXPECT_NEAR(in[3].v[c], 0.8 * mm.v[c] + 0.2 * mean, 1e-5) << "moving_mean path " << path;
        EXPECT_NEAR(in[4].v[c], 0.8 * mv.v[c] + 0.2 * var, 1e-4) << "moving_var path " << path;
        for (int64_t n = 0; n < 4; ++n)
          for (int64_t i = 0; i < 10; ++i) {
            const int64_t j = (n * 3 + c) * 10 + i;
            EXPECT_NEAR(out[0].v[j], (x.v[j] - mean) / std::sqrt(var + 1e-3) * g + beta.v[c], 1e-4);
          }
      }
      // Inference uses the moving statistics and leaves them alone.
      std::vector<HostTensor> inf{x, gamma, beta, mm, mv};
      const auto o2 = RunOp("BatchNorm", p, &inf, kFloat32, false);
      ExpectNear(inf[3], mm, 1e-7, 1e-7, "moving_mean untouched in inference");
      for (int64_t j = 0; j < x.Size(); ++j) {
        const int64_t c = (j / 10) % 3;
        EXPECT_NEAR(o2[0].v[j], (x.v[j] - mm.v[c]) / std::sqrt(mv.v[c] + 1e-3) * (fix_gamma ? 1 : gamma.v[c]) + beta.v[c],
                    1e-4);
      }
    }
  }
}

TEST(BatchNorm, GradientsTrainingGlobalStatsAndOtherAxis) {
  const auto bwd = [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>& out) {
    return std::vector<HostTensor>{h, in[0], in[1], out[1], out[2], in[3], in[4]};  // moving stats last
  };
  const std::vector<HostTensor> in{Random({3, 2, 4}, 11), HostTensor{TShape{2}, {0.7, -1.2}},
                                   HostTensor{TShape{2}, {0.1, 0.2}}, HostTensor{TShape{2}, {0.3, -0.1}},
                                   HostTensor{TShape{2}, {1.5, 0.8}}};
  CheckGrad("BatchNorm", {{"fix_gamma", "False"}}, in, bwd, 3);
  CheckGrad("BatchNorm", {{"fix_gamma", "False"}, {"use_global_stats", "True"}}, in, bwd, 3);
  std::vector<HostTensor> in2 = in;
  in2[0] = Random({3, 4, 2}, 12);
  CheckGrad("BatchNorm", {{"fix_gamma", "False"}, {"axis", "-1"}}, in2, bwd, 3);
  // oneDNN backward equals the plain one.
  std::vector<HostTensor> f{Random({4, 2, 3, 3}, 13), in[1], in[2], in[3], in[4]};
  const auto fwd = RunOp("BatchNorm", {{"fix_gamma", "False"}}, &f, kFloat32, true);
  std::vector<HostTensor> b{Random(f[0].shape, 14), f[0], f[1], fwd[1], fwd[2], f[3], f[4]};
  PathScope plain(0);
  const auto gp = RunOp("_backward_BatchNorm", {{"fix_gamma", "False"}}, &b, kFloat32, true);
  PathScope dnn(1);
  const auto gd = RunOp("_backward_BatchNorm", {{"fix_gamma", "False"}}, &b, kFloat32, true);
  for (int i = 0; i < 3; ++i) ExpectNear(gd[i], gp[i], 1e-4, 1e-4, "BatchNorm oneDNN backward " + std::to_string(i));
}

// ---- softmax family ----------------------------------------------------------------------

TEST(Softmax, AxisTemperatureLengthAndGradients) {
  const HostTensor x = Random({2, 3, 4}, 15, -2, 2);
  for (std::string op : {"softmax", "log_softmax", "softmin"}) {
    for (int axis : {-1, 1, 0}) {
      for (double t : {1.0, 2.5}) {
        const Params p{{"axis", std::to_string(axis)}, {"temperature", std::to_string(t)}};
        const int ax = axis < 0 ? axis + 3 : axis;
        const int64_t n = x.shape[ax];
        int64_t inner = 1;
        for (int i = ax + 1; i < 3; ++i) inner *= x.shape[i];
        HostTensor ref(x.shape);
        for (int64_t j = 0; j < x.Size(); ++j) {
          const int64_t base = (j / (n * inner)) * n * inner + j % inner;
          const double sgn = op == "softmin" ? -1 : 1;
          double sum = 0;
          for (int64_t k = 0; k < n; ++k) sum += std::exp(sgn * x.v[base + k * inner] / t);
          const double sm = std::exp(sgn * x.v[j] / t) / sum;
          ref.v[j] = op == "log_softmax" ? std::log(sm) : sm;
        }
        BothPathsMatch(op, p, {x}, ref);
        CheckGrad(op, p, {x},
                  [](const HostTensor& h, const std::vector<HostTensor>& in, const std::vector<HostTensor>& out) {
                    return std::vector<HostTensor>{h, out[0], in[0]};
                  });
      }
    }
  }
  // length masks positions beyond each row's length (axis -1: length shape (2, 3)).
  const HostTensor len{TShape{2, 3}, {1, 4, 2, 3, 0, 4}};
  std::vector<HostTensor> in{x, len};
  const auto out = RunOp("softmax", {{"use_length", "True"}}, &in, kFloat32, false, {kFloat32, kInt32});
  for (int64_t r = 0; r < 6; ++r) {
    double s = 0;
    for (int64_t k = 0; k < 4; ++k) {
      if (k >= len.v[r]) EXPECT_EQ(out[0].v[r * 4 + k], 0.0);
      s += out[0].v[r * 4 + k];
    }
    EXPECT_NEAR(s, len.v[r] > 0 ? 1.0 : 0.0, 1e-6);
  }
}

TEST(SoftmaxOutput, GradientIgnoresHeadAndAppliesNormalization) {
  const HostTensor x = Random({4, 5}, 16);
  const HostTensor label{TShape{4}, {1, 3, -1, 0}};
  for (std::string norm : {"null", "batch", "valid"}) {
    const Params p{{"normalization", norm}, {"use_ignore", "True"}, {"ignore_label", "-1"}, {"grad_scale", "2"}};
    std::vector<HostTensor> in{x, label};
    const auto out = RunOp("SoftmaxOutput", p, &in);
    std::vector<HostTensor> b{Random(x.shape, 3), out[0], label};
    const auto g = RunOp("_backward_SoftmaxOutput", p, &b);
    const double div = norm == "null" ? 1 : norm == "batch" ? 4 : 3;
    for (int64_t r = 0; r < 4; ++r) {
      double sum = 0;
      for (int64_t k = 0; k < 5; ++k) sum += std::exp(x.v[r * 5 + k]);
      for (int64_t k = 0; k < 5; ++k) {
        const double pr = std::exp(x.v[r * 5 + k]) / sum;
        EXPECT_NEAR(out[0].v[r * 5 + k], pr, 1e-6);
        const double expect = label.v[r] == -1 ? 0 : (pr - (k == label.v[r] ? 1 : 0)) * 2 / div;
        EXPECT_NEAR(g[0].v[r * 5 + k], expect, 1e-6) << norm << " row " << r;
      }
    }
  }
  // multi_output: softmax over axis 1 of (N, C, L), label (N, L).
  const HostTensor x3 = Random({2, 3, 4}, 17);
  const HostTensor l3{TShape{2, 4}, {0, 1, 2, 0, 2, 2, 1, 0}};
  std::vector<HostTensor> in{x3, l3};
  const auto out = RunOp("SoftmaxOutput", {{"multi_output", "True"}}, &in);
  std::vector<HostTensor> b{x3, out[0], l3};
  const auto g = RunOp("_backward_SoftmaxOutput", {{"multi_output", "True"}}, &b);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 4; ++i) {
      double sum = 0;
      for (int64_t c = 0; c < 3; ++c) sum += std::exp(x3.v[(n * 3 + c) * 4 + i]);
      for (int64_t c = 0; c < 3; ++c) {
        const int64_t j = (n * 3 + c) * 4 + i;
        const double pr = std::exp(x3.v[j]) / sum;
        EXPECT_NEAR(g[0].v[j], pr - (c == l3.v[n * 4 + i] ? 1 : 0), 1e-6);
      }
    }
}

// ---- Dropout -----------------------------------------------------------------------------

TEST(Dropout, TrainingMasksAndScalesPredictIsIdentity) {
  const HostTensor x = Random({8, 16, 10}, 18, 0.5, 1.5);
  std::vector<HostTensor> in{x};
  const auto tr = RunOp("Dropout", {{"p", "0.3"}}, &in, kFloat32, true);
  int64_t dropped = 0;
  for (int64_t i = 0; i < x.Size(); ++i) {
    if (tr[0].v[i] == 0) {
      ++dropped;
      EXPECT_EQ(tr[1].v[i], 0);
    } else {
      EXPECT_NEAR(tr[0].v[i], x.v[i] / 0.7, 1e-5);
      EXPECT_NEAR(tr[1].v[i], 1 / 0.7, 1e-6);
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / x.Size(), 0.3, 0.05);
  const auto te = RunOp("Dropout", {{"p", "0.3"}}, &in, kFloat32, false);
  EXPECT_EQ(te[0].v, RunOp("Dropout", {{"p", "0.3"}}, &in, kFloat32, false)[0].v);
  for (int64_t i = 0; i < x.Size(); ++i) EXPECT_NEAR(te[0].v[i], x.v[i], 1e-6);
  const auto always = RunOp("Dropout", {{"p", "0.3"}, {"mode", "always"}}, &in, kFloat32, false);
  EXPECT_NE(always[0].v, te[0].v);
  // axes: one draw per (n, w) shared along axis 1.
  const auto ax = RunOp("Dropout", {{"p", "0.5"}, {"axes", "(1,)"}}, &in, kFloat32, true);
  for (int64_t n = 0; n < 8; ++n)
    for (int64_t w = 0; w < 10; ++w)
      for (int64_t c = 1; c < 16; ++c) EXPECT_EQ(ax[1].v[(n * 16 + c) * 10 + w], ax[1].v[(n * 16) * 10 + w]);
  // Backward multiplies by the mask.
  std::vector<HostTensor> b{x, tr[1]};
  const auto g = RunOp("_backward_Dropout", {{"p", "0.3"}}, &b);
  for (int64_t i = 0; i < x.Size(); ++i) EXPECT_NEAR(g[0].v[i], x.v[i] * tr[1].v[i], 1e-5);
}

}  // namespace
}  // namespace test
}  // namespace mxnet
