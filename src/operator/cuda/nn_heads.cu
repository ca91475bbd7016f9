/*!
 * \file nn_heads.cu
 * \brief CUDA kernels of the loss heads and the other NN ops that are neither GEMMs nor
 *        activations, with their `_backward_` ops: SoftmaxOutput (nn/softmax_output.cc), the
 *        regression outputs and MakeLoss (nn/regression_output.cc), Embedding (nn/embedding.cc)
 *        and Dropout (nn/dropout.cc). They compute in the CPU kernels' types with the element
 *        math of the shared headers; sums the CPU takes in double are taken in double here.
 *          - SoftmaxOutput: a warp (classes <= 1024) or a block per row, or a thread per row
 *            when rows are short or the classes strided (multi_output with trailing dims).
 *          - Counts of valid labels/elements: two passes through kTempSpace, read on the device.
 *          - Embedding's weight gradient: atomicAdd into the gradient (float32/float64) or into
 *            a kTempSpace buffer (float for float16/bfloat16, double for integers and bool, as
 *            the CPU accumulates), so repeated indices sum in no fixed order.
 *          - Dropout: the kRandom stream's Philox draw per element of the mask's reduced shape,
 *            so the mask equals the CPU's for the same seed and push order.
 */
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/segment_reduce.cuh"
#include "operator/nn/dropout_param.h"
#include "operator/nn/embedding_param.h"
#include "operator/nn/nn_util.h"
#include "operator/nn/regression_output_param.h"
#include "operator/nn/softmax_output_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief Element i of an array of any supported dtype, as double (labels and indices). */
__device__ __forceinline__ double LoadAsDouble(const void* p, int type, int64_t i) {
  switch (type) {
    case kFloat32: return static_cast<const float*>(p)[i];
    case kFloat64: return static_cast<const double*>(p)[i];
    case kFloat16: return static_cast<float>(static_cast<const half_t*>(p)[i]);
    case kBfloat16: return static_cast<float>(static_cast<const bf16_t*>(p)[i]);
    case kUint8: return static_cast<const uint8_t*>(p)[i];
    case kInt8: return static_cast<const int8_t*>(p)[i];
    case kInt32: return static_cast<const int32_t*>(p)[i];
    case kInt64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    default: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
  }
}

/*! \brief Throws as the CPU kernels' MXNET_TYPE_SWITCH does for a dtype LoadAsDouble cannot read. */
void CheckAnyDType(int type) { MXNET_TYPE_SWITCH(type, T, {}); }

/*! \brief Zeroes an output under req (the label/index gradients, which are always zero). */
void ZeroOutput(cudaStream_t s, const TBlob& b, OpReqType req) {
  if (req == kNullOp || req == kAddTo || b.Size() == 0) return;
  Check(cudaMemsetAsync(b.dptr_, 0, b.Bytes(), s), "zeroing a gradient");
}

/*!
 * \brief *sum (device) = the sum over t in [0, n) of term(t) (a double), in chunks summed in
 *        parallel and then in chunk order. scratch: kTempSpace of at least DeviceSumBytes(n).
 */
constexpr int64_t kSumChunk = 16384, kMaxSumChunks = 1024;
inline int64_t SumChunks(int64_t n) {
  return std::max<int64_t>(1, std::min<int64_t>((n + kSumChunk - 1) / kSumChunk, kMaxSumChunks));
}
inline size_t DeviceSumBytes(int64_t n) { return sizeof(double) * (1 + SumChunks(n)); }

template <typename Term>
const double* DeviceSum(cudaStream_t s, int64_t n, Term term, double* scratch, const char* what) {
  const int64_t chunks = SumChunks(n), len = (n + chunks - 1) / chunks;
  double* partial = scratch + 1;
  SegmentSum<1>(
      s, chunks, len,
      [=] __device__(int64_t c, int64_t t, double* acc) {
        const int64_t i = c * len + t;
        if (i < n) acc[0] += term(i);
      },
      [=] __device__(int64_t c, const double* v) { partial[c] = v[0]; }, what);
  SegmentSum<1>(
      s, 1, chunks, [=] __device__(int64_t, int64_t t, double* acc) { acc[0] += partial[t]; },
      [=] __device__(int64_t, const double* v) { scratch[0] = v[0]; }, what);
  return scratch;
}

// ------------------------------------------------------------------------------------------
// SoftmaxOutput

template <typename T, typename F>
__device__ __forceinline__ T WarpAllReduce(T v, F f) {
  for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/*! \brief f over the block (whole warps); every thread gets the result; buf: 32 shared slots. */
template <typename T, typename F>
__device__ __forceinline__ T BlockAllReduce(T v, F f, T* buf) {
  v = WarpAllReduce(v, f);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  __syncthreads();  // buf is free from its previous use
  if (lane == 0) buf[warp] = v;
  __syncthreads();
  v = buf[0];
  for (int w = 1; w < warps; ++w) v = f(v, buf[w]);
  return v;
}

/*!
 * \brief Softmax of contiguous rows of length n: a warp per row (kWarp) or a block per row.
 *        Max, sum of exp(x - max) and the quotient, as the CPU loop computes them.
 */
template <typename D, bool kWarp>
__global__ void RowSoftmaxKernel(const D* x, D* y, int64_t rows, int64_t n, OpReqType req) {
  using C = real_compute_t<D>;
  __shared__ C buf[32];
  const int width = kWarp ? 32 : blockDim.x;
  const int tid = kWarp ? (threadIdx.x & 31) : threadIdx.x;
  const int64_t groups = kWarp ? (blockDim.x >> 5) : 1;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * groups + (kWarp ? (threadIdx.x >> 5) : 0);
  auto max_op = [](C a, C b) { return a < b ? b : a; };
  auto add_op = [](C a, C b) { return a + b; };
  for (int64_t r = first; r < rows; r += static_cast<int64_t>(gridDim.x) * groups) {
    const D* xr = x + r * n;
    D* yr = y + r * n;
    C mx = C(xr[0]);
    for (int64_t k = tid; k < n; k += width) mx = max_op(mx, C(xr[k]));
    mx = kWarp ? WarpAllReduce(mx, max_op) : BlockAllReduce(mx, max_op, buf);
    C sum = 0;
    for (int64_t k = tid; k < n; k += width) sum += std::exp(C(xr[k]) - mx);
    sum = kWarp ? WarpAllReduce(sum, add_op) : BlockAllReduce(sum, add_op, buf);
    for (int64_t k = tid; k < n; k += width) StoreReq(yr + k, req, C(std::exp(C(xr[k]) - mx) / sum));
  }
}

template <typename D>
void SoftmaxRows(cudaStream_t s, const SMView& v, const D* x, D* y, OpReqType req) {
  using C = real_compute_t<D>;
  const int64_t rows = v.Rows(), n = v.n, inner = v.inner;
  if (rows == 0 || n == 0) return;
  if (inner > 1 || n <= 16) {
    // A thread per row: classes `inner` apart (neighbouring threads read neighbouring elements), or
    // rows too short to share a warp.
    ForEach(
        s, rows,
        [=] __device__(int64_t r) {
          const int64_t base = (r / inner) * n * inner + r % inner;
          C mx = C(x[base]);
          for (int64_t k = 1; k < n; ++k) mx = std::max(mx, C(x[base + k * inner]));
          C sum = 0;
          for (int64_t k = 0; k < n; ++k) sum += std::exp(C(x[base + k * inner]) - mx);
          for (int64_t k = 0; k < n; ++k) StoreReq(y + base + k * inner, req, C(std::exp(C(x[base + k * inner]) - mx) / sum));
        },
        "SoftmaxOutput launch");
    return;
  }
  if (n <= 1024) {
    constexpr int kWarps = 8;
    const int64_t blocks = std::min<int64_t>((rows + kWarps - 1) / kWarps, kMaxBlocks * 4);
    RowSoftmaxKernel<D, true><<<static_cast<unsigned>(blocks), kWarps * 32, 0, s>>>(x, y, rows, n, req);
  } else {
    const int64_t blocks = std::min<int64_t>(rows, kMaxBlocks * 4);
    RowSoftmaxKernel<D, false><<<static_cast<unsigned>(blocks), 512, 0, s>>>(x, y, rows, n, req);
  }
  Check(cudaGetLastError(), "SoftmaxOutput launch");
}

void SoftmaxOutputForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SMView v(attrs.get<SoftmaxOutputParam>(), in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D,
                         { SoftmaxRows<D>(Stream(ctx), v, in[0].dptr<D>(), out[0].dptr<D>(), req[0]); });
}

/*! \brief inputs (ograd, output, label); outputs (ddata, dlabel = 0). */
void SoftmaxOutputBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<SoftmaxOutputParam>();
  const cudaStream_t s = Stream(ctx);
  ZeroOutput(s, out[1], req[1]);
  if (req[0] == kNullOp) return;
  const SMView v(p, in[1].shape_);
  const bool prob_label = in[2].shape_ == in[1].shape_ && !(v.n == 1 && in[2].Size() == v.Rows());
  const int ltype = in[2].type_flag_;
  CheckAnyDType(ltype);
  const void* label = in[2].dptr_;
  const int64_t nlabel = in[2].Size();
  const bool use_ignore = p.use_ignore, out_grad = p.out_grad;
  const double ignore_label = p.ignore_label, grad_scale = p.grad_scale;
  // The normalisation: known on the host unless it counts the labels that are not ignored.
  double norm = 1.0;
  const double* valid = nullptr;
  if (p.normalization == kNormBatch) {
    norm = static_cast<double>(v.outer);
  } else if (p.normalization == kNormValid && !prob_label) {
    if (use_ignore) {
      double* scratch = static_cast<double*>(ctx.requested[0].GetSpace(DeviceSumBytes(nlabel)));
      valid = DeviceSum(
          s, nlabel,
          [=] __device__(int64_t i) { return LoadAsDouble(label, ltype, i) == ignore_label ? 0.0 : 1.0; }, scratch,
          "_backward_SoftmaxOutput: valid label count");
    } else {
      norm = static_cast<double>(nlabel > 0 ? nlabel : 1);
    }
  }
  const int64_t n = v.n, inner = v.inner;
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    using C = real_compute_t<D>;
    const D *y = in[1].dptr<D>(), *og = in[0].dptr<D>();
    D* dx = out[0].dptr<D>();
    const C alpha = static_cast<C>(p.smooth_alpha);
    ForEach(
        s, in[1].Size(),
        [=] __device__(int64_t j) {
          const int64_t o = j / (n * inner), rem = j - o * n * inner, k = rem / inner, row = o * inner + rem % inner;
          C g = 0;
          const double l = prob_label ? 0.0 : LoadAsDouble(label, ltype, row);
          if (!(!prob_label && use_ignore && l == ignore_label)) {
            const double nv = valid ? (*valid > 0 ? *valid : 1.0) : norm;
            const C scale = static_cast<C>(grad_scale / nv);
            const C target = prob_label ? static_cast<C>(LoadAsDouble(label, ltype, j))
                                        : SMClassTarget(k, static_cast<int64_t>(l), alpha, n);
            g = (C(y[j]) - target) * scale;
            if (out_grad) g *= C(og[j]);
          }
          StoreReq(dx + j, r, g);
        },
        "_backward_SoftmaxOutput launch");
  });
}

// ------------------------------------------------------------------------------------------
// Regression outputs and MakeLoss

template <Regression R>
void RegressionForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    ForEach(
        Stream(ctx), in[0].Size(),
        [=] __device__(int64_t i) {
          StoreReq(y + i, r, static_cast<compute_t<D>>(RegressionFwd<R>(static_cast<double>(x[i]))));
        },
        "regression output launch");
  });
}

/*! \brief inputs (output, label); outputs (ddata, dlabel = 0). */
template <Regression R>
void RegressionBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const cudaStream_t s = Stream(ctx);
  ZeroOutput(s, out[1], req[1]);
  if (req[0] == kNullOp) return;
  const double scale = RegressionGradScale(attrs.get<RegressionOutputParam>(), in[1].shape_);
  const int ltype = in[1].type_flag_;
  CheckAnyDType(ltype);
  const void* label = in[1].dptr_;
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* y = in[0].dptr<D>();
    D* dx = out[0].dptr<D>();
    ForEach(
        s, in[0].Size(),
        [=] __device__(int64_t i) {
          const double g = RegressionGrad<R>(static_cast<double>(y[i]) - LoadAsDouble(label, ltype, i)) * scale;
          StoreReq(dx + i, r, static_cast<compute_t<D>>(g));
        },
        "regression output gradient launch");
  });
}

void MakeLossForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || req[0] == kWriteInplace) return;
  const cudaStream_t s = Stream(ctx);
  if (req[0] == kWriteTo) {
    if (in[0].dptr_ != out[0].dptr_ && in[0].Size() > 0)
      Check(cudaMemcpyAsync(out[0].dptr_, in[0].dptr_, in[0].Bytes(), cudaMemcpyDeviceToDevice, s), "MakeLoss copy");
    return;
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    ForEach(
        s, in[0].Size(),
        [=] __device__(int64_t i) { StoreReq(y + i, kAddTo, static_cast<compute_t<D>>(static_cast<double>(x[i]))); },
        "MakeLoss launch");
  });
}

/*! \brief inputs (data); output grad_scale / norm everywhere. */
void MakeLossBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<MakeLossParam>();
  const cudaStream_t s = Stream(ctx);
  const int64_t n = in[0].Size();
  const double grad_scale = p.grad_scale;
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const D* x = in[0].dptr<D>();
    D* dx = out[0].dptr<D>();
    double norm = 1.0;
    const double* valid = nullptr;
    if (p.normalization == 1) {
      norm = in[0].shape_.ndim() > 0 ? static_cast<double>(in[0].shape_[0]) : 1.0;
    } else if (p.normalization == 2) {
      const double thresh = p.valid_thresh;
      double* scratch = static_cast<double*>(ctx.requested[0].GetSpace(DeviceSumBytes(n)));
      valid = DeviceSum(
          s, n, [=] __device__(int64_t i) { return static_cast<double>(x[i]) > thresh ? 1.0 : 0.0; }, scratch,
          "_backward_MakeLoss: valid count");
    }
    ForEach(
        s, n,
        [=] __device__(int64_t i) {
          const double nv = valid ? (*valid > 0 ? *valid : 1.0) : norm;
          StoreReq(dx + i, r, static_cast<compute_t<D>>(grad_scale / nv));
        },
        "_backward_MakeLoss launch");
  });
}

// ------------------------------------------------------------------------------------------
// Embedding

void EmbeddingForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const auto& p = attrs.get<EmbeddingParam>();
  const int itype = in[0].type_flag_;
  CheckAnyDType(itype);
  const void* idx = in[0].dptr_;
  const int64_t D = p.output_dim, rows = p.input_dim;
  const OpReqType r = req[0];
  MXNET_TYPE_SWITCH(in[1].type_flag_, T, {
    const T* w = in[1].dptr<T>();
    T* y = out[0].dptr<T>();
    ForEach(
        Stream(ctx), in[0].Size() * D,
        [=] __device__(int64_t j) {
          const int64_t i = j / D, d = j - i * D;
          StoreReq(y + j, r, compute_t<T>(w[ClipRow(LoadAsDouble(idx, itype, i), rows) * D + d]));
        },
        "Embedding launch");
  });
}

/*! \brief acc[row(j / D) * D + j % D] += dy[j] for every element j of the output gradient. */
template <typename T, typename A>
void ScatterAddRows(cudaStream_t s, const T* dy, int64_t n, const void* idx, int itype, int64_t rows, int64_t D,
                    A* acc) {
  ForEach(
      s, n,
      [=] __device__(int64_t j) {
        const int64_t i = j / D, d = j - i * D;
        atomicAdd(acc + ClipRow(LoadAsDouble(idx, itype, i), rows) * D + d, static_cast<A>(dy[j]));
      },
      "_backward_Embedding launch");
}

/*! \brief inputs (ograd, data); outputs (ddata = 0, dweight). */
void EmbeddingBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<EmbeddingParam>();
  const cudaStream_t s = Stream(ctx);
  ZeroOutput(s, out[0], req[0]);
  if (req[1] == kNullOp) return;
  const int itype = in[1].type_flag_;
  CheckAnyDType(itype);
  const void* idx = in[1].dptr_;
  const int64_t D = p.output_dim, rows = p.input_dim, n = in[0].Size(), wsize = rows * D;
  const OpReqType r = req[1];
  MXNET_TYPE_SWITCH(out[1].type_flag_, T, {
    const T* dy = in[0].dptr<T>();
    T* dw = out[1].dptr<T>();
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      // Sum straight into the gradient (zeroed first unless accumulating).
      if (r != kAddTo && wsize > 0) Check(cudaMemsetAsync(dw, 0, sizeof(T) * wsize, s), "_backward_Embedding");
      ScatterAddRows<T, T>(s, dy, n, idx, itype, rows, D, dw);
    } else {
      // float16/bfloat16 sum in float, integers and bool in double, then are stored under req.
      using A = std::conditional_t<std::is_integral_v<T>, double, float>;
      A* acc = static_cast<A*>(ctx.requested[0].GetSpace(sizeof(A) * std::max<int64_t>(wsize, 1)));
      if (wsize > 0) Check(cudaMemsetAsync(acc, 0, sizeof(A) * wsize, s), "_backward_Embedding");
      ScatterAddRows<T, A>(s, dy, n, idx, itype, rows, D, acc);
      ForEach(
          s, wsize, [=] __device__(int64_t j) { StoreReq(dw + j, r, static_cast<compute_t<T>>(acc[j])); },
          "_backward_Embedding launch");
    }
  });
}

// ------------------------------------------------------------------------------------------
// Dropout

constexpr int kMaxMaskDims = 32;

/*!
 * \brief Flat element index -> index in the mask's reduced shape (axes in `axes` share one draw),
 *        with size-1 dims dropped and neighbouring dims of the same kind merged; the result is
 *        the CPU kernel's sum of coordinate times reduced stride.
 */
struct MaskIndex {
  int nd{0};
  int64_t shape[kMaxMaskDims]{};
  int64_t rstride[kMaxMaskDims]{};
  __device__ __forceinline__ int64_t operator()(int64_t j) const {
    int64_t r = 0;
    for (int i = nd - 1; i >= 0; --i) {
      const int64_t q = j / shape[i];
      r += (j - q * shape[i]) * rstride[i];
      j = q;
    }
    return r;
  }
};

MaskIndex MakeMaskIndex(const NodeAttrs& attrs, const DropoutParam& p, const TShape& s) {
  const int nd = s.ndim();
  std::vector<bool> shared(nd, false);
  for (dim_t a : p.axes) shared[NormAxis(attrs, static_cast<int>(a), nd, "axes")] = true;
  std::vector<int64_t> dims;
  std::vector<bool> kinds;
  for (int i = 0; i < nd; ++i) {
    if (s[i] == 1) continue;
    if (!dims.empty() && kinds.back() == shared[i]) {
      dims.back() *= s[i];
    } else {
      dims.push_back(s[i]);
      kinds.push_back(shared[i]);
    }
  }
  MX_CHECK_KIND(dims.size() <= static_cast<size_t>(kMaxMaskDims), "ValueError")
      << "Dropout: the CUDA kernel supports up to " << kMaxMaskDims << " alternating shared/unshared axes, got "
      << dims.size();
  MaskIndex m;
  m.nd = static_cast<int>(dims.size());
  int64_t acc = 1;
  for (int i = m.nd - 1; i >= 0; --i) {
    m.shape[i] = dims[i];
    m.rstride[i] = kinds[i] ? 0 : acc;
    if (!kinds[i]) acc *= dims[i];
  }
  return m;
}

void DropoutForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = attrs.get<DropoutParam>();
  const bool active = DropoutActive(p, ctx);
  const bool plain_index = p.axes.ndim() <= 0;
  const MaskIndex mi = plain_index ? MaskIndex() : MakeMaskIndex(attrs, p, in[0].shape_);
  const double keep = 1.0 - static_cast<double>(p.p);
  const RandomStream rnd = active ? ctx.requested[0].random : RandomStream();
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = compute_t<D>;
    const D* x = in[0].dptr<D>();
    D* y = out[0].dptr<D>();
    D* mask = out[1].dptr<D>();
    const C scale = keep > 0 ? C(1.0 / keep) : C(0);
    ForEach(
        Stream(ctx), in[0].Size(),
        [=] __device__(int64_t j) {
          C m = C(1);
          if (active) m = DropoutMaskValue(rnd, plain_index ? j : mi(j), keep, scale);
          mask[j] = static_cast<D>(m);
          if (r != kNullOp) StoreReq(y + j, r, C(C(x[j]) * m));
        },
        "Dropout launch");
  });
}

/*! \brief inputs (ograd, mask) -> ograd * mask. */
void DropoutBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    using C = compute_t<D>;
    const D *dy = in[0].dptr<D>(), *mask = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    ForEach(
        Stream(ctx), in[0].Size(), [=] __device__(int64_t j) { StoreReq(dx + j, r, C(C(dy[j]) * C(mask[j]))); },
        "_backward_Dropout launch");
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(SoftmaxOutput, kGPU, cuda).set_compute(cuda::SoftmaxOutputForward);
MXNET_REGISTER_KERNEL(_backward_SoftmaxOutput, kGPU, cuda).set_compute(cuda::SoftmaxOutputBackward);
MXNET_REGISTER_KERNEL(LinearRegressionOutput, kGPU, cuda).set_compute(cuda::RegressionForward<Regression::kLinear>);
MXNET_REGISTER_KERNEL(_backward_LinearRegressionOutput, kGPU, cuda)
    .set_compute(cuda::RegressionBackward<Regression::kLinear>);
MXNET_REGISTER_KERNEL(MAERegressionOutput, kGPU, cuda).set_compute(cuda::RegressionForward<Regression::kMAE>);
MXNET_REGISTER_KERNEL(_backward_MAERegressionOutput, kGPU, cuda).set_compute(cuda::RegressionBackward<Regression::kMAE>);
MXNET_REGISTER_KERNEL(LogisticRegressionOutput, kGPU, cuda).set_compute(cuda::RegressionForward<Regression::kLogistic>);
MXNET_REGISTER_KERNEL(_backward_LogisticRegressionOutput, kGPU, cuda)
    .set_compute(cuda::RegressionBackward<Regression::kLogistic>);
MXNET_REGISTER_KERNEL(MakeLoss, kGPU, cuda).set_compute(cuda::MakeLossForward);
MXNET_REGISTER_KERNEL(_backward_MakeLoss, kGPU, cuda).set_compute(cuda::MakeLossBackward);
MXNET_REGISTER_KERNEL(Embedding, kGPU, cuda).set_compute(cuda::EmbeddingForward);
MXNET_REGISTER_KERNEL(_backward_Embedding, kGPU, cuda).set_compute(cuda::EmbeddingBackward);
MXNET_REGISTER_KERNEL(Dropout, kGPU, cuda).set_compute(cuda::DropoutForward);
MXNET_REGISTER_KERNEL(_backward_Dropout, kGPU, cuda).set_compute(cuda::DropoutBackward);

}  // namespace op
}  // namespace mxnet
