// Heavy NN ops of ResNet-50 (3x3 and 1x1 convolution, FullyConnected, max pooling, batch
// norm in inference) timed two ways in the same run: through our op path
// (imperative::InvokeByName -> engine push -> cached oneDNN primitive -> wait) and as the
// bare oneDNN primitive on the same plain buffers. Counters: GFLOP/s, the fraction of the
// sgemm peak measured here (BM_SgemmPeak), and for the op path the overhead over bare.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"

namespace {

using mxnet::NDArray;
using mxnet::TShape;
using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

NDArray Filled(const TShape& s, float v) {
  NDArray a(s, mxnet::Context::CPU());
  std::vector<float> h(s.Size(), v);
  for (size_t i = 0; i < h.size(); ++i) h[i] = v * static_cast<float>((i % 13) - 6) / 6.f;
  a.SyncCopyFromCPU(h.data(), h.size());
  return a;
}

/*! \brief Bare-primitive inputs get the same finite values as ours (garbage may hold denormals). */
void Fill(const dnnl::memory& m) {
  float* p = static_cast<float*>(m.get_data_handle());
  const size_t n = m.get_desc().get_size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>((i % 13) - 6) / 6.f;
}

/*! \brief The machine's GEMM ceiling on this many threads: a large square sgemm. */
void BM_SgemmPeak(benchmark::State& st) {
  const int n = 2048;
  std::vector<float> a(n * n, 1.f), b(n * n, 1.f), c(n * n);
  for (auto _ : st)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n);
  st.counters["GFLOPs"] = benchmark::Counter(2.0 * n * n * n * st.iterations(), benchmark::Counter::kIsRate,
                                             benchmark::Counter::kIs1000);
}
BENCHMARK(BM_SgemmPeak)->Unit(benchmark::kMillisecond)->UseRealTime();

struct ConvShape {
  int64_t N, C, H, F, K, S, P;
  int64_t OH() const { return (H + 2 * P - K) / S + 1; }
  double Flops() const { return 2.0 * N * F * OH() * OH() * C * K * K; }
};
const ConvShape kConv[] = {{8, 64, 56, 64, 3, 1, 1}, {8, 256, 56, 64, 1, 1, 0}, {8, 128, 28, 128, 3, 1, 1},
                           {8, 512, 28, 128, 1, 1, 0}};

void SetFlops(benchmark::State& st, double flops) {
  st.counters["GFLOPs"] = benchmark::Counter(flops * st.iterations(), benchmark::Counter::kIsRate,
                                             benchmark::Counter::kIs1000);
}

void BM_ConvOurs(benchmark::State& st) {
  const ConvShape c = kConv[st.range(0)];
  NDArray x = Filled({c.N, c.C, c.H, c.H}, 1.f), w = Filled({c.F, c.C, c.K, c.K}, 0.1f);
  const std::unordered_map<std::string, std::string> p{
      {"kernel", "(" + std::to_string(c.K) + ", " + std::to_string(c.K) + ")"},
      {"pad", "(" + std::to_string(c.P) + ", " + std::to_string(c.P) + ")"},
      {"stride", "(" + std::to_string(c.S) + ", " + std::to_string(c.S) + ")"},
      {"num_filter", std::to_string(c.F)},
      {"no_bias", "True"}};
  // With blocked-layout propagation the output stays in the primitive's format; range(1) = 1
  // also reads it plainly (data() reorders once), which is the same work as BM_ConvBare.
  const bool plain_read = st.range(1) != 0;
  for (auto _ : st) {
    NDArray y = mxnet::imperative::InvokeByName("Convolution", {x, w}, p)[0];
    y.WaitToRead();
    if (plain_read) benchmark::DoNotOptimize(y.data().dptr_);
  }
  SetFlops(st, c.Flops());
}

/*! \brief The same work as our path: plain NCHW in/out reordered to the primitive's layouts. */
void BM_ConvBare(benchmark::State& st) {
  const ConvShape c = kConv[st.range(0)];
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const dims src{c.N, c.C, c.H, c.H}, wei{c.F, c.C, c.K, c.K}, dst{c.N, c.F, c.OH(), c.OH()};
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                      {src, f32, tag::any}, {wei, f32, tag::any}, {dst, f32, tag::any}, {c.S, c.S},
                                      {c.P, c.P}, {c.P, c.P}),
      eng);
  dnnl::memory us({src, f32, tag::nchw}, eng), uw({wei, f32, tag::oihw}, eng), ud({dst, f32, tag::nchw}, eng);
  dnnl::memory ps(pd.src_desc(), eng), pw(pd.weights_desc(), eng), pdst(pd.dst_desc(), eng);
  dnnl::convolution_forward conv(pd);
  Fill(us);
  Fill(uw);
  // Reorders built once, as our cache entries hold them; a same-format pair is a plain copy.
  dnnl::reorder rs(us, ps), rw(uw, pw), rd(pdst, ud);
  for (auto _ : st) {
    rs.execute(s, us, ps);
    rw.execute(s, uw, pw);
    conv.execute(s, {{DNNL_ARG_SRC, ps}, {DNNL_ARG_WEIGHTS, pw}, {DNNL_ARG_DST, pdst}});
    rd.execute(s, pdst, ud);
    s.wait();
  }
  SetFlops(st, c.Flops());
}
BENCHMARK(BM_ConvOurs)
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1}})
    ->ArgNames({"shape", "plain_read"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_ConvBare)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

// FullyConnected 2048 -> 1000 (ResNet-50's head) at batch 32.
constexpr int64_t kFcM = 32, kFcK = 2048, kFcH = 1000;
void BM_FCOurs(benchmark::State& st) {
  NDArray x = Filled({kFcM, kFcK}, 1.f), w = Filled({kFcH, kFcK}, 0.1f), b = Filled({kFcH}, 0.1f);
  for (auto _ : st)
    mxnet::imperative::InvokeByName("FullyConnected", {x, w, b}, {{"num_hidden", std::to_string(kFcH)}})[0].WaitToRead();
  SetFlops(st, 2.0 * kFcM * kFcK * kFcH);
}
void BM_FCBare(benchmark::State& st) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  dnnl::memory::desc src({kFcM, kFcK}, f32, tag::ab), wei({kFcH, kFcK}, f32, tag::ab), bias({kFcH}, f32, tag::a),
      dst({kFcM, kFcH}, f32, tag::ab);
  dnnl::inner_product_forward::primitive_desc pd(
      dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_inference, src, {{kFcH, kFcK}, f32, tag::any}, bias,
                                        dst),
      eng);
  dnnl::memory ms(src, eng), uw(wei, eng), pw(pd.weights_desc(), eng), mb(bias, eng), md(dst, eng);
  dnnl::inner_product_forward ip(pd);
  for (const auto* m : {&ms, &uw, &mb}) Fill(*m);
  dnnl::reorder rw(uw, pw);
  for (auto _ : st) {
    rw.execute(s, uw, pw);
    ip.execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, pw}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST, md}});
    s.wait();
  }
  SetFlops(st, 2.0 * kFcM * kFcK * kFcH);
}
BENCHMARK(BM_FCOurs)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_FCBare)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Max pooling 3x3 stride 2 pad 1 of ResNet-50's stem, and batch norm (inference) on 256x56x56.
const dims kPoolIn{8, 64, 112, 112}, kPoolOut{8, 64, 56, 56}, kBN{8, 256, 56, 56};
void BM_PoolOurs(benchmark::State& st) {
  NDArray x = Filled(TShape(kPoolIn.begin(), kPoolIn.end()), 1.f);
  for (auto _ : st)
    mxnet::imperative::InvokeByName("Pooling", {x}, {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}})[0]
        .WaitToRead();
}
void BM_PoolBare(benchmark::State& st) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  dnnl::memory::desc src(kPoolIn, f32, tag::nchw), dst(kPoolOut, f32, tag::nchw);
  dnnl::pooling_forward::primitive_desc pd(
      dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, src, dst, {2, 2},
                                  {3, 3}, {1, 1}, {1, 1}),
      eng);
  dnnl::memory ms(src, eng), md(dst, eng);
  dnnl::pooling_forward pool(pd);
  Fill(ms);
  for (auto _ : st) {
    pool.execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}});
    s.wait();
  }
}
BENCHMARK(BM_PoolOurs)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PoolBare)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BatchNormOurs(benchmark::State& st) {
  NDArray x = Filled(TShape(kBN.begin(), kBN.end()), 1.f);
  NDArray g = Filled({256}, 1.f), b = Filled({256}, 0.f), m = Filled({256}, 0.f), v = Filled({256}, 1.f);
  for (auto _ : st)
    mxnet::imperative::InvokeByName("BatchNorm", {x, g, b, m, v}, {{"fix_gamma", "False"}})[0].WaitToRead();
}
void BM_BatchNormBare(benchmark::State& st) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  dnnl::memory::desc d(kBN, f32, tag::nchw), c({256}, f32, tag::a);
  const auto fl = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift |
                  dnnl::normalization_flags::use_global_stats;
  dnnl::batch_normalization_forward::primitive_desc pd(
      dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_inference, d, 1e-3f, fl), eng);
  dnnl::memory ms(d, eng), md(d, eng), sc(c, eng), sh(c, eng), mm(c, eng), mv(c, eng);
  dnnl::batch_normalization_forward bn(pd);
  for (const auto* m : {&ms, &sc, &sh, &mm}) Fill(*m);
  float* var = static_cast<float*>(mv.get_data_handle());
  for (int i = 0; i < 256; ++i) var[i] = 1.f;
  for (auto _ : st) {
    bn.execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}, {DNNL_ARG_SCALE, sc}, {DNNL_ARG_SHIFT, sh},
                   {DNNL_ARG_MEAN, mm}, {DNNL_ARG_VARIANCE, mv}});
    s.wait();
  }
}
BENCHMARK(BM_BatchNormOurs)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_BatchNormBare)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
