/*!
 * \file conv_gemm.cuh
 * \brief The CUDA convolution that Convolution and Deconvolution (convolution.cu,
 *        deconvolution.cu) share, on nn/conv_param.h's ConvGeom (a deconvolution runs the
 *        convolution it transposes, its forward being the backward-data pass and back):
 *        - forward: im2col of a batch of samples into kTempSpace, then per group a cuBLAS GEMM
 *          (cublas_handle.h) batched over the samples (1x1 stride-1 unpadded kernels read the
 *          data itself);
 *        - backward data: the GEMM into columns, then col2im as a gather (each input element
 *          sums its kernel taps in order, no atomics), writing under req;
 *        - weight gradient: per batch of samples the ograd transposed to (F, B*O) and one GEMM
 *          per group accumulating over the batch and then over batches;
 *        - bias gradient: per-channel sums in double (broadcast_reduce.cuh).
 *        Samples go in batches whose scratch fits the op's `workspace` (MB), one at least, as
 *        MXNet 1.x does. Channel-last data and weights pass through channel-first scratch
 *        copies, as the CPU's plain kernels do (conv_plain.h).
 */
#ifndef MXNET_OPERATOR_CUDA_CONV_GEMM_CUH_
#define MXNET_OPERATOR_CUDA_CONV_GEMM_CUH_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/broadcast_reduce.cuh"
#include "operator/cuda/cublas_handle.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/nn/conv_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace conv {

/*! \brief ConvGeom's window and sizes as a kernel argument. */
struct Win {
  int64_t in[3], out[3], k[3], s[3], p[3], d[3];
  int64_t K, O, I;
};

inline Win MakeWin(const ConvGeom& g) {
  Win w;
  for (int i = 0; i < 3; ++i) {
    w.in[i] = g.in[i];
    w.out[i] = g.out[i];
    w.k[i] = g.k[i];
    w.s[i] = g.s[i];
    w.p[i] = g.p[i];
    w.d[i] = g.d[i];
  }
  w.K = g.KSize();
  w.O = g.OutSize();
  w.I = g.InSize();
  return w;
}

/*! \brief (a, b, c) of position i in a (n0, n1, n2) box. */
__device__ __forceinline__ void Unravel3(int64_t i, const int64_t* n, int64_t* a, int64_t* b, int64_t* c) {
  int64_t r;
  *a = DivMod(i, n[1] * n[2], &r);
  *b = DivMod(r, n[2], c);
}

/*!
 * \brief col (C*K rows; columns b*O + o for sample b's output position o) from B samples of x
 *        (C channels of I elements, samples xs apart); zeros where a tap falls in the padding.
 */
template <typename D>
void Im2Col(cudaStream_t s, const Win& w, int64_t C, int64_t B, const D* x, int64_t xs, D* col) {
  const int64_t BO = B * w.O;
  const D zero = static_cast<D>(compute_t<D>(0));
  ForEach(
      s, C * w.K * BO,
      [=] __device__(int64_t idx) {
        int64_t pos, o, kk, kd, kh, kw, od, oh, ow;
        const int64_t row = DivMod(idx, BO, &pos);
        const int64_t b = DivMod(pos, w.O, &o);
        const int64_t c = DivMod(row, w.K, &kk);
        Unravel3(kk, w.k, &kd, &kh, &kw);
        Unravel3(o, w.out, &od, &oh, &ow);
        const int64_t id = od * w.s[0] - w.p[0] + kd * w.d[0];
        const int64_t ih = oh * w.s[1] - w.p[1] + kh * w.d[1];
        const int64_t iw = ow * w.s[2] - w.p[2] + kw * w.d[2];
        const bool inside = id >= 0 && id < w.in[0] && ih >= 0 && ih < w.in[1] && iw >= 0 && iw < w.in[2];
        col[idx] = inside ? x[b * xs + c * w.I + (id * w.in[1] + ih) * w.in[2] + iw] : zero;
      },
      "Convolution: im2col");
}

/*! \brief The output position a tap reads input position i from in one dim, or -1. */
__device__ __forceinline__ int64_t TapSource(int64_t i, int64_t k, const Win& w, int dim) {
  const int64_t t = i + w.p[dim] - k * w.d[dim];
  if (t < 0 || t % w.s[dim] != 0) return -1;
  const int64_t o = t / w.s[dim];
  return o < w.out[dim] ? o : -1;
}

/*!
 * \brief x (B samples xs apart, C channels of I) under req = col2im(col) (+ bias[c]): each
 *        element sums the column entries of its taps in kernel order (the CPU's order), in
 *        the compute type, then the bias.
 */
template <typename D>
void Col2Im(cudaStream_t s, const Win& w, int64_t C, int64_t B, const D* col, const D* bias, D* x, int64_t xs,
            OpReqType req) {
  if (req == kNullOp) return;
  using A = compute_t<D>;
  const int64_t BO = B * w.O;
  ForEach(
      s, B * C * w.I,
      [=] __device__(int64_t idx) {
        int64_t i, c, id, ih, iw;
        const int64_t b = DivMod(DivMod(idx, w.I, &i), C, &c);
        Unravel3(i, w.in, &id, &ih, &iw);
        const D* src = col + c * w.K * BO + b * w.O;
        A acc = A(0);
        for (int64_t kd = 0; kd < w.k[0]; ++kd) {
          const int64_t od = TapSource(id, kd, w, 0);
          if (od < 0) continue;
          for (int64_t kh = 0; kh < w.k[1]; ++kh) {
            const int64_t oh = TapSource(ih, kh, w, 1);
            if (oh < 0) continue;
            for (int64_t kw = 0; kw < w.k[2]; ++kw) {
              const int64_t ow = TapSource(iw, kw, w, 2);
              if (ow < 0) continue;
              const int64_t kk = (kd * w.k[1] + kh) * w.k[2] + kw;
              acc += static_cast<A>(src[kk * BO + (od * w.out[1] + oh) * w.out[2] + ow]);
            }
          }
        }
        if (bias) acc += static_cast<A>(bias[c]);
        Store(x + b * xs + c * w.I + i, req, acc);
      },
      "Convolution: col2im");
}

/*! \brief dst (F, B*O) = src (B, F, O). */
template <typename D>
void ToFeatureMajor(cudaStream_t s, const D* src, int64_t B, int64_t F, int64_t O, D* dst) {
  const int64_t BO = B * O;
  ForEach(
      s, F * BO,
      [=] __device__(int64_t idx) {
        int64_t r, o;
        const int64_t f = DivMod(idx, BO, &r);
        const int64_t b = DivMod(r, O, &o);
        dst[idx] = src[(b * F + f) * O + o];
      },
      "Convolution: ograd transpose");
}

/*! \brief (N, S, C) channel-last <-> (N, C, S) channel-first; the write goes under req. */
template <typename D>
void PermuteNSC(cudaStream_t s, const D* src, D* dst, int64_t N, int64_t S, int64_t C, bool to_channel_first,
                OpReqType req = kWriteTo) {
  if (req == kNullOp) return;
  ForEach(
      s, N * S * C,
      [=] __device__(int64_t idx) {
        int64_t r, a, b;
        const int64_t n = DivMod(idx, S * C, &r);
        if (to_channel_first) {  // idx = (n, c, i)
          a = DivMod(r, S, &b);
          Store(dst + idx, req, src[(n * S + b) * C + a]);
        } else {  // idx = (n, i, c)
          a = DivMod(r, C, &b);
          Store(dst + idx, req, src[(n * C + b) * S + a]);
        }
      },
      "Convolution: layout permute");
}

/*! \brief y (N, Ch, S) = bias[ch] (add: += bias[ch]). */
template <typename D>
void Bias(cudaStream_t s, const D* bias, D* y, int64_t N, int64_t Ch, int64_t S, bool add) {
  ForEach(
      s, N * Ch * S,
      [=] __device__(int64_t i) {
        int64_t r, ch;
        DivMod(DivMod(i, S, &r), Ch, &ch);
        Store(y + i, add ? kAddTo : kWriteTo, bias[ch]);
      },
      "Convolution: bias");
}

/*! \brief A GEMM operand: base, stored row length, element strides between samples and between groups. */
struct Operand {
  const void* p;
  int64_t ld, sb, sg;
};

/*!
 * \brief For every sample b < nb and group g < ng: C(b, g) (m x n, + C when accumulate) =
 *        op(A(b, g)) op(B(b, g)), one strided-batched cuBLAS call per index of the smaller of
 *        the two ranges, batched over the larger.
 */
inline void GemmGroups(const OpContext& ctx, int dtype, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                       const Operand& a, const Operand& b, void* c, int64_t ldc, int64_t scb, int64_t scg, int64_t nb,
                       int64_t ng, bool accumulate, const char* what) {
  if (nb == 0 || ng == 0) return;
  const int64_t es = static_cast<int64_t>(DTypeSize(dtype));
  const bool over_b = nb >= ng;
  GemmArgs g;
  g.ta = ta;
  g.tb = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = a.ld;
  g.ldb = b.ld;
  g.ldc = ldc;
  g.batch = over_b ? nb : ng;
  g.stride_a = over_b ? a.sb : a.sg;
  g.stride_b = over_b ? b.sb : b.sg;
  g.stride_c = over_b ? scb : scg;
  g.accumulate = accumulate;
  for (int64_t i = 0; i < (over_b ? ng : nb); ++i) {
    g.a = static_cast<const char*>(a.p) + i * (over_b ? a.sg : a.sb) * es;
    g.b = static_cast<const char*>(b.p) + i * (over_b ? b.sg : b.sb) * es;
    g.c = static_cast<char*>(c) + i * (over_b ? scg : scb) * es;
    Gemm(ctx, dtype, g, what);
  }
}

/*! \brief How many samples a pass takes at once and the scratch that needs. */
struct Plan {
  int64_t B{1};
  int64_t col{0}, ograd_t{0};  // elements of the im2col matrix and of the transposed ograd
};

/*!
 * \brief cols: a forward or backward-data pass needs im2col columns (not pointwise); wgrad:
 *        a weight gradient is computed. B is the most samples whose scratch fits
 *        workspace_mb MB (at least 1, at most N).
 */
inline Plan MakePlan(const ConvGeom& g, size_t es, uint64_t workspace_mb, bool cols, bool wgrad) {
  Plan pl;
  const bool pw = g.IsPointwise();
  const int64_t col1 = g.C * g.KSize() * g.OutSize(), t1 = g.F * g.OutSize();
  const int64_t per = ((cols && !pw) || wgrad ? col1 : 0) + (wgrad ? t1 : 0);
  if (g.N == 0 || per == 0) {
    pl.B = std::max<int64_t>(g.N, 1);
    return pl;
  }
  constexpr uint64_t kMost = std::numeric_limits<uint64_t>::max();
  const uint64_t bytes = workspace_mb > (kMost >> 20) ? kMost : workspace_mb << 20;
  pl.B = static_cast<int64_t>(std::min<uint64_t>(bytes / (static_cast<uint64_t>(per) * es), g.N));
  pl.B = std::max<int64_t>(pl.B, 1);
  const bool need_col = (cols && !pw) || (wgrad && !(pw && pl.B == 1));
  pl.col = need_col ? col1 * pl.B : 0;
  pl.ograd_t = wgrad && pl.B > 1 ? t1 * pl.B : 0;
  return pl;
}

/*! \brief One channel-first convolution g on the device: x (N, C, I), w (F, C/G, K), y (N, F, O). */
template <typename D>
struct Conv {
  const OpContext& ctx;
  const ConvGeom& g;
  int dtype;
  cudaStream_t s;
  Win w;
  int64_t Cg, Fg, KK, B;
  D* col;      // Plan::col elements
  D* ograd_t;  // Plan::ograd_t elements

  Conv(const OpContext& c, const ConvGeom& geom, int64_t batch, D* col_space, D* t_space)
      : ctx(c), g(geom), dtype(DTypeOf<D>::value), s(Stream(c)), w(MakeWin(geom)), Cg(geom.C / geom.G),
        Fg(geom.F / geom.G), KK(Cg * geom.KSize()), B(batch), col(col_space), ograd_t(t_space) {}

  /*! \brief y under req = conv(x, w) (+ bias over F). */
  void Forward(const D* x, const D* wt, const D* bias, D* y, OpReqType req, const char* what) const {
    if (req == kNullOp) return;
    const int64_t N = g.N, C = g.C, F = g.F, O = w.O, I = w.I;
    bool acc = req == kAddTo;
    if (bias && !acc) {  // y = bias, then the GEMMs add into it (one rounding for half types)
      Bias(s, bias, y, N, F, O, false);
      acc = true;
    }
    const bool pw = g.IsPointwise();
    const int64_t step = pw ? std::max<int64_t>(N, 1) : B;
    for (int64_t n0 = 0; n0 < N; n0 += step) {
      const int64_t nb = std::min(step, N - n0);
      Operand cm{x + n0 * C * I, O, C * I, Cg * I};
      if (!pw) {
        Im2Col(s, w, C, nb, x + n0 * C * I, C * I, col);
        cm = Operand{col, nb * O, O, KK * nb * O};
      }
      GemmGroups(ctx, dtype, false, false, Fg, O, KK, Operand{wt, KK, 0, Fg * KK}, cm, y + n0 * F * O, O, F * O,
                 Fg * O, nb, g.G, acc, what);
    }
    if (bias && req == kAddTo) Bias(s, bias, y, N, F, O, true);
  }

  /*! \brief dx under req = conv^T(dy, w) (+ bias over C). */
  void BackwardData(const D* dy, const D* wt, const D* bias, D* dx, OpReqType req, const char* what) const {
    if (req == kNullOp) return;
    const int64_t N = g.N, C = g.C, F = g.F, O = w.O, I = w.I;
    const Operand wop{wt, KK, 0, Fg * KK};
    if (g.IsPointwise()) {  // dx (Cg x O per sample and group) = w^T dy, straight into dx
      bool acc = req == kAddTo;
      if (bias && !acc) {
        Bias(s, bias, dx, N, C, I, false);
        acc = true;
      }
      GemmGroups(ctx, dtype, true, false, KK, O, Fg, wop, Operand{dy, O, F * O, Fg * O}, dx, O, C * I, Cg * I, N,
                 g.G, acc, what);
      if (bias && req == kAddTo) Bias(s, bias, dx, N, C, I, true);
      return;
    }
    for (int64_t n0 = 0; n0 < N; n0 += B) {
      const int64_t nb = std::min(B, N - n0);
      GemmGroups(ctx, dtype, true, false, KK, O, Fg, wop, Operand{dy + n0 * F * O, O, F * O, Fg * O}, col, nb * O, O,
                 KK * nb * O, nb, g.G, false, what);
      Col2Im(s, w, C, nb, col, bias, dx + n0 * C * I, C * I, req);
    }
  }

  /*! \brief dw under req = sum over samples of dy im2col(x)^T, per group. */
  void BackwardWeight(const D* x, const D* dy, D* dw, OpReqType req, const char* what) const {
    if (req == kNullOp) return;
    const int64_t N = g.N, C = g.C, F = g.F, O = w.O, I = w.I;
    if (N == 0) {
      if (req != kAddTo) Check(cudaMemsetAsync(dw, 0, sizeof(D) * F * KK, s), "Convolution: weight gradient memset");
      return;
    }
    const bool pw = g.IsPointwise();
    for (int64_t n0 = 0; n0 < N; n0 += B) {
      const int64_t nb = std::min(B, N - n0), L = nb * O;
      const D* cm = x + n0 * C * I;  // a pointwise sample is its own column matrix
      if (!(pw && nb == 1)) {
        Im2Col(s, w, C, nb, x + n0 * C * I, C * I, col);
        cm = col;
      }
      const D* gm = dy + n0 * F * O;  // one sample's ograd is (F, O) already
      if (nb > 1) {
        ToFeatureMajor(s, dy + n0 * F * O, nb, F, O, ograd_t);
        gm = ograd_t;
      }
      GemmGroups(ctx, dtype, false, true, Fg, KK, L, Operand{gm, L, 0, Fg * L}, Operand{cm, L, 0, KK * L}, dw, KK, 0,
                 Fg * KK, 1, g.G, n0 > 0 || req == kAddTo, what);
    }
  }
};

/*! \brief db (Ch) under req = sum of dy (N, Ch, S) over N and S, in double. */
template <typename D>
struct BiasGradSum {
  bcast::ReduceWalk<1> walk;
  BiasGradSum(int64_t N, int64_t Ch, int64_t S)
      : walk(bcast::MakeReduceWalk<1>(TShape{N, Ch, S}, {TShape{N, Ch, S}}, {true, false, true})) {}
  size_t ScratchBytes() const { return bcast::SumScratchBytes<double>(walk); }
  void Run(cudaStream_t s, const D* dy, D* db, OpReqType req, double* partial) const {
    bcast::Sum<double>(s, walk, [=] __device__(const int64_t* off) { return static_cast<double>(dy[off[0]]); }, db,
                       req, partial);
  }
};

/*!
 * \brief One call of a convolution-family kernel, in terms of the convolution g: tensor `a`
 *        has g.C channels over g.in (a convolution's data, a deconvolution's output), `b` has
 *        g.F channels over g.out; blobs are in the op's layout (channel-last when cl) and null
 *        where unused. b_out = Forward(a_in, w) (+ b_bias); a_out = BackwardData(b_in, w)
 *        (+ a_bias); w_out = BackwardWeight(a_in, b_in); bias_out = the sum of b_in (or of
 *        a_in when bias_of_a) per channel.
 */
struct ConvJob {
  const TBlob *a_in{nullptr}, *b_in{nullptr}, *w{nullptr}, *a_bias{nullptr}, *b_bias{nullptr};
  const TBlob *a_out{nullptr}, *b_out{nullptr}, *w_out{nullptr}, *bias_out{nullptr};
  OpReqType a_req{kNullOp}, b_req{kNullOp}, w_req{kNullOp}, bias_req{kNullOp};
  bool bias_of_a{false};
  const char* what{"Convolution"};
};

/*! \brief Hands out 256-byte aligned pieces of one kTempSpace allocation (Count first, then Take). */
class Carver {
 public:
  static size_t Bytes(int64_t n, size_t elem) { return (static_cast<size_t>(n) * elem + 255) / 256 * 256; }
  explicit Carver(char* base) : base_(base) {}
  template <typename T>
  T* Take(int64_t n) {
    T* p = reinterpret_cast<T*>(base_ + off_);
    off_ += Bytes(n, sizeof(T));
    return p;
  }

 private:
  char* base_;
  size_t off_{0};
};

/*! \brief Runs job j on g (see ConvJob) for data type D; workspace_mb bounds the im2col batches. */
template <typename D>
void RunConvJob(const OpContext& ctx, const ConvGeom& g, bool cl, uint64_t workspace_mb, const ConvJob& j) {
  const cudaStream_t s = Stream(ctx);
  const bool fwd = j.b_out && j.b_req != kNullOp, dgrad = j.a_out && j.a_req != kNullOp;
  const bool wgrad = j.w_out && j.w_req != kNullOp, bgrad = j.bias_out && j.bias_req != kNullOp;
  if (!fwd && !dgrad && !wgrad && !bgrad) return;
  const int64_t Cg = g.C / g.G, K = g.KSize(), I = g.InSize(), O = g.OutSize();
  const int64_t na = g.N * g.C * I, nbsz = g.N * g.F * O, nw = g.F * Cg * K;
  const Plan pl = MakePlan(g, sizeof(D), workspace_mb, fwd || dgrad, wgrad);
  const bool need_a = fwd || wgrad || (bgrad && j.bias_of_a), need_b = dgrad || wgrad || (bgrad && !j.bias_of_a);
  const bool need_w = fwd || dgrad;
  const BiasGradSum<D> bsum(g.N, j.bias_of_a ? g.C : g.F, j.bias_of_a ? I : O);
  const size_t partial = bgrad ? bsum.ScratchBytes() : 0;
  // scratch: columns, transposed ograd, channel-first copies (inputs, then outputs), partial sums
  const int64_t pieces[] = {pl.col,
                            pl.ograd_t,
                            cl && need_a ? na : 0,
                            cl && need_b ? nbsz : 0,
                            cl && need_w ? nw : 0,
                            cl && dgrad ? na : 0,
                            cl && fwd ? nbsz : 0,
                            cl && wgrad ? nw : 0};
  size_t bytes = Carver::Bytes(1, partial);
  for (int64_t n : pieces) bytes += Carver::Bytes(n, sizeof(D));
  Carver cv(static_cast<char*>(ctx.requested[0].GetSpace(std::max<size_t>(bytes, 256))));
  D* col = cv.Take<D>(pieces[0]);
  D* ograd_t = cv.Take<D>(pieces[1]);
  // channel-first views of the inputs: the blobs themselves, or permuted copies
  auto in_view = [&](const TBlob* t, bool need, int64_t n, int64_t C, int64_t S) -> const D* {
    if (!cl || !need) return need ? t->dptr<D>() : nullptr;
    D* p = cv.Take<D>(n);
    PermuteNSC(s, t->dptr<D>(), p, n / (C * S), S, C, true);
    return p;
  };
  const D* a = in_view(j.a_in, need_a, na, g.C, I);
  const D* b = in_view(j.b_in, need_b, nbsz, g.F, O);
  const D* wt = in_view(j.w, need_w, nw, Cg, K);
  // the outputs: channel-first scratch, or the blobs themselves
  auto out_view = [&](const TBlob* t, bool need, int64_t n) -> D* {
    if (!need) return nullptr;
    return cl ? cv.Take<D>(n) : t->dptr<D>();
  };
  D* a_out = out_view(j.a_out, dgrad, na);
  D* b_out = out_view(j.b_out, fwd, nbsz);
  D* w_out = out_view(j.w_out, wgrad, nw);
  double* part = partial ? cv.Take<double>(static_cast<int64_t>(partial / sizeof(double))) : nullptr;
  const Conv<D> c(ctx, g, pl.B, col, ograd_t);
  // scratch outputs take kWriteTo; the permute back applies the request (as conv_plain.h)
  if (fwd) {
    c.Forward(a, wt, j.b_bias ? j.b_bias->dptr<D>() : nullptr, b_out, cl ? kWriteTo : j.b_req, j.what);
    if (cl) PermuteNSC(s, b_out, j.b_out->dptr<D>(), g.N, O, g.F, false, j.b_req);
  }
  if (dgrad) {
    c.BackwardData(b, wt, j.a_bias ? j.a_bias->dptr<D>() : nullptr, a_out, cl ? kWriteTo : j.a_req, j.what);
    if (cl) PermuteNSC(s, a_out, j.a_out->dptr<D>(), g.N, I, g.C, false, j.a_req);
  }
  if (wgrad) {
    c.BackwardWeight(a, b, w_out, cl ? kWriteTo : j.w_req, j.what);
    if (cl) PermuteNSC(s, w_out, j.w_out->dptr<D>(), g.F, K, Cg, false, j.w_req);
  }
  if (bgrad) bsum.Run(s, j.bias_of_a ? a : b, j.bias_out->dptr<D>(), j.bias_req, part);
}

/*! \brief The dtypes of the CPU kernels (half types there go through float32). */
inline void CheckConvDType(int dtype, const char* op) {
  MX_CHECK_KIND(dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16 || dtype == kBfloat16, "TypeError")
      << op << ": supports float32, float64, float16 and bfloat16 inputs, got " << DTypeName(dtype);
}

}  // namespace conv
}  // namespace cuda
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_CUDA_CONV_GEMM_CUH_
