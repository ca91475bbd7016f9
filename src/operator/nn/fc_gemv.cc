/*!
 * \file fc_gemv.cc
 * \brief See fc_gemv.h.
 */
#include "operator/nn/fc_gemv.h"

#include <omp.h>

#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

constexpr int64_t kRowsPerBlock = 4;  // weight rows sharing each load of x

void Store(float* y, float v, bool add) { *y = add ? *y + v : v; }

/*! \brief Rows [h0, h0 + 4) of one output row: four dot products over one pass of x. */
void FourRows(const float* x, const float* w, int64_t K, float out[kRowsPerBlock]) {
  const float *w0 = w, *w1 = w0 + K, *w2 = w1 + K, *w3 = w2 + K;
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
  for (int64_t k = 0; k < K; ++k) {
    const float xv = x[k];
    a0 += w0[k] * xv;
    a1 += w1[k] * xv;
    a2 += w2[k] * xv;
    a3 += w3[k] * xv;
  }
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
}

float OneRow(const float* x, const float* w, int64_t K) {
  float a = 0.f;
#pragma omp simd reduction(+ : a)
  for (int64_t k = 0; k < K; ++k) a += w[k] * x[k];
  return a;
}

}  // namespace

void FCGemv(const float* x, const float* w, const float* bias, float* y, int64_t M, int64_t K, int64_t H, bool add) {
  const int64_t blocks = (H + kRowsPerBlock - 1) / kRowsPerBlock;
  // Threads take contiguous blocks of weight rows, each read from memory once (the second
  // batch row finds it in cache). Threading is gated by the weight's size, not the block count.
#pragma omp parallel for schedule(static) if (UseParallel(H * K))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t h0 = b * kRowsPerBlock, rows = H - h0 < kRowsPerBlock ? H - h0 : kRowsPerBlock;
    for (int64_t m = 0; m < M; ++m) {
      const float* xm = x + m * K;
      float dots[kRowsPerBlock];
      if (rows == kRowsPerBlock) {
        FourRows(xm, w + h0 * K, K, dots);
      } else {
        for (int64_t r = 0; r < rows; ++r) dots[r] = OneRow(xm, w + (h0 + r) * K, K);
      }
      for (int64_t r = 0; r < rows; ++r) Store(y + m * H + h0 + r, dots[r] + (bias ? bias[h0 + r] : 0.f), add);
    }
  }
}

int64_t NonzeroIndices(const float* x, int64_t K, std::vector<int64_t>* nz) {
  nz->clear();
  for (int64_t k = 0; k < K; ++k)
    if (x[k] != 0.f) nz->push_back(k);
  return static_cast<int64_t>(nz->size());
}

void FCGemvSparseInput(const float* x, const float* wt, const std::vector<int64_t>& nz, const float* bias, float* y,
                       int64_t H, bool add) {
  const int64_t n = static_cast<int64_t>(nz.size());
  // Each thread owns a contiguous range of outputs, kept in cache while the weight rows of
  // the nonzero inputs stream past it four at a time (one pass over its outputs per four).
#pragma omp parallel if (UseParallel(n * H))
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t h0 = H * t / threads, len = H * (t + 1) / threads - h0;
    float* acc = y + h0;
    for (int64_t h = 0; h < len; ++h) acc[h] = (add ? acc[h] : 0.f) + (bias ? bias[h0 + h] : 0.f);
    int64_t i = 0;
    for (; i + kRowsPerBlock <= n; i += kRowsPerBlock) {
      const float *w0 = wt + nz[i] * H + h0, *w1 = wt + nz[i + 1] * H + h0, *w2 = wt + nz[i + 2] * H + h0,
                  *w3 = wt + nz[i + 3] * H + h0;
      const float x0 = x[nz[i]], x1 = x[nz[i + 1]], x2 = x[nz[i + 2]], x3 = x[nz[i + 3]];
#pragma omp simd
      for (int64_t h = 0; h < len; ++h) acc[h] += x0 * w0[h] + x1 * w1[h] + x2 * w2[h] + x3 * w3[h];
    }
    for (; i < n; ++i) {
      const float* w0 = wt + nz[i] * H + h0;
      const float x0 = x[nz[i]];
#pragma omp simd
      for (int64_t h = 0; h < len; ++h) acc[h] += x0 * w0[h];
    }
  }
}

}  // namespace op
}  // namespace mxnet
