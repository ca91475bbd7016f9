/*!
 * \file pooling.cu
 * \brief CUDA kernels of Pooling and `_backward_Pooling` (nn/pooling.cc): max, avg (with or
 *        without the padding in the divisor), sum and lp; 1-D to 3-D; global pooling; every
 *        pooling_convention; channel-first or channel-last data, read in place (no permuted
 *        copies). The window math is pooling_param.h's, shared with the CPU kernels. This is the
 *        plain fallback; a cuDNN entry may join the list ahead of it (lower rank).
 *          - Forward: the lanes of a group (group_reduce.cuh) reduce one window: one thread per
 *            output for windows of up to 64 elements (the CPU's element order), up to a block
 *            per output for larger (global) ones.
 *          - Backward: a gather per input element over the windows covering it, in output
 *            order, with the CPU's per-add rounding; no atomics. Max pooling first finds each
 *            window's arg-max (the first position holding the maximum, as the CPU) into
 *            kTempSpace.
 */
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/nn/pooling_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief Where one (n, c) plane of a tensor lies: element at plane index i is at base + i * step. */
struct PlaneAt {
  int64_t base, step;
};

/*!
 * \brief The (n, c, position) of memory offset r of a tensor with `size` positions per plane:
 *        channel-first (n, c, position) or channel-last (n, position, c) order.
 */
__device__ __forceinline__ void Decode(int64_t r, int64_t C, int64_t size, bool cl, int64_t* n, int64_t* c,
                                       int64_t* pos) {
  int64_t rem;
  if (cl) {
    const int64_t t = DivMod(r, C, c);
    *n = DivMod(t, size, pos);
  } else {
    const int64_t nc = DivMod(r, size, pos);
    *n = DivMod(nc, C, &rem);
    *c = rem;
  }
}

__device__ __forceinline__ PlaneAt Plane(int64_t n, int64_t c, int64_t C, int64_t size, bool cl) {
  return cl ? PlaneAt{n * size * C + c, C} : PlaneAt{(n * C + c) * size, 1};
}

/*! \brief Memory offset of plane position pos of (n, c). */
__device__ __forceinline__ int64_t OffsetOf(int64_t n, int64_t c, int64_t pos, int64_t C, int64_t size, bool cl) {
  return cl ? (n * size + pos) * C + c : (n * C + c) * size + pos;
}

/*! \brief (od, oh, ow) of output position o. */
__device__ __forceinline__ void OutCoords(const PoolGeom& g, int64_t o, int64_t* od, int64_t* oh, int64_t* ow) {
  int64_t r;
  const int64_t dh = DivMod(o, g.out[2], ow);
  *od = DivMod(dh, g.out[1], &r);
  *oh = r;
}

/*!
 * \brief Calls f(plane index) for this lane's elements of window w, in the CPU's row-major
 *        order when the group has one lane; otherwise lane, lane + lanes, ... of that order.
 */
template <typename F>
__device__ __forceinline__ void ForWindow(const PoolGeom& g, const PoolWin& w, int lane, int lanes, F f) {
  if (lanes == 1) {
    for (int64_t d = w.b[0]; d < w.e[0]; ++d)
      for (int64_t h = w.b[1]; h < w.e[1]; ++h)
        for (int64_t x = w.b[2]; x < w.e[2]; ++x) f((d * g.in[1] + h) * g.in[2] + x);
    return;
  }
  const int64_t hs = w.e[1] - w.b[1], ws = w.e[2] - w.b[2], cnt = w.Count();
  for (int64_t j = lane; j < cnt; j += lanes) {
    int64_t jw, jh;
    const int64_t jdh = DivMod(j, ws, &jw);
    const int64_t jd = DivMod(jdh, hs, &jh);
    f(((w.b[0] + jd) * g.in[1] + w.b[1] + jh) * g.in[2] + w.b[2] + jw);
  }
}

/*! \brief Arg-max state of part of a window: the largest non-NaN value and its first index (-1: none). */
template <typename C>
struct ArgMax {
  C v;
  int64_t idx;
};

/*!
 * \brief One window per group of lanes (rows in output memory order); kArg: each window's
 *        arg-max plane index into arg (max pooling's backward), else the pooled value into y.
 */
template <typename D, bool kArg>
__global__ void PoolWindowsKernel(PoolGeom g, bool cl, const D* x, D* y, int64_t* arg, int64_t rows, OpReqType req) {
  using C = compute_t<D>;
  using S = std::conditional_t<kArg, ArgMax<C>, C>;
  extern __shared__ unsigned char smem_bytes[];
  S* smem = reinterpret_cast<S*>(smem_bytes);
  const int lane = threadIdx.x, lanes = blockDim.x;
  const int64_t I = g.InSize(), O = g.OutSize();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.y; base < rows; base += step) {
    const int64_t r = base + threadIdx.y;
    const bool active = r < rows;
    PoolWin w;
    PlaneAt p{0, 1};
    S s;
    if constexpr (kArg) {
      s = ArgMax<C>{C(0), -1};
    } else {
      s = PoolInit<C>(g.type);
    }
    if (active) {
      int64_t n, c, o, od, oh, ow;
      Decode(r, g.C, O, cl, &n, &c, &o);
      OutCoords(g, o, &od, &oh, &ow);
      w = PoolWindowAt(g, od, oh, ow);
      p = Plane(n, c, g.C, I, cl);
      ForWindow(g, w, lane, lanes, [&](int64_t i) {
        const C v = static_cast<C>(x[p.base + i * p.step]);
        if constexpr (kArg) {
          if (v == v && (s.idx < 0 || v > s.v)) s = ArgMax<C>{v, i};  // NaN never wins
        } else {
          PoolAccum(g, &s, v);
        }
      });
    }
    if constexpr (kArg) {
      s = GroupReduce(s, true, smem, [](ArgMax<C>& a, const ArgMax<C>& b) {
        if (b.idx >= 0 && (a.idx < 0 || b.v > a.v || (b.v == a.v && b.idx < a.idx))) a = b;
      });
    } else {
      s = GroupReduce(s, true, smem, [&](C& a, const C& b) {
        if (g.type == kMaxPool)
          a = b > a ? b : a;
        else
          a += b;
      });
    }
    if (active && lane == 0) {
      if constexpr (kArg) {
        // The CPU's scan takes the window's first element whatever it is and then strictly larger
        // ones: a NaN first element keeps the gradient; later NaNs never take it.
        int64_t best = -1;
        if (w.Count() > 0) {
          const int64_t first = (w.b[0] * g.in[1] + w.b[1]) * g.in[2] + w.b[2];
          const C v0 = static_cast<C>(x[p.base + first * p.step]);
          best = (v0 != v0 || s.idx < 0) ? first : s.idx;
        }
        arg[r] = best;
      } else {
        Store(y + r, req, PoolFinish(g, w, s));
      }
    }
  }
}

constexpr int64_t kSerialWindow = 64;

template <typename D, bool kArg>
void LaunchWindows(cudaStream_t stream, const PoolGeom& g, bool cl, const D* x, D* y, int64_t* arg, OpReqType req) {
  const int64_t rows = g.N * g.C * g.OutSize();
  if (rows <= 0) return;
  using C = compute_t<D>;
  using S = std::conditional_t<kArg, ArgMax<C>, C>;
  // Up to kSerialWindow elements a window is one thread's (the CPU's order, no shuffles).
  const int64_t window = g.k[0] * g.k[1] * g.k[2];
  const GroupLayout l = window <= kSerialWindow ? GroupLayout{true, 1, kGroupThreads} : MakeGroupLayout(true, window);
  const int64_t blocks = std::min<int64_t>((rows + l.by - 1) / l.by, kMaxBlocks * 4);
  const dim3 threads(l.bx, l.by);
  PoolWindowsKernel<D, kArg><<<static_cast<int>(blocks), threads, GroupReduceSmem(kGroupThreads, sizeof(S)), stream>>>(
      g, cl, x, y, arg, rows, req);
  Check(cudaGetLastError(), "Pooling CUDA kernel");
}

/*! \brief Output positions [*lo, *hi] along dim k whose windows hold input coordinate h. */
__device__ __forceinline__ void Covering(const PoolGeom& g, int k, int64_t h, int64_t* lo, int64_t* hi) {
  const int64_t a = h + g.p[k] - g.k[k] + 1;  // start <= h < start + kernel, start = o * s - p
  *lo = a <= 0 ? 0 : (a + g.s[k] - 1) / g.s[k];
  const int64_t b = (h + g.p[k]) / g.s[k];
  *hi = b < g.out[k] - 1 ? b : g.out[k] - 1;
}

/*!
 * \brief dx (memory order) gathered from the windows holding each input element, in output
 *        order with the CPU's rounding per add; arg: max pooling's arg-max per output row.
 */
template <typename D>
void PoolBackwardGather(cudaStream_t stream, const PoolGeom& g, bool cl, const D* dy, const D* x, const D* y,
                        const int64_t* arg, D* dx, OpReqType req) {
  using C = compute_t<D>;
  const int64_t I = g.InSize(), O = g.OutSize();
  ForEach(
      stream, g.N * g.C * I,
      [=] __device__(int64_t i) {
        int64_t n, c, pos;
        Decode(i, g.C, I, cl, &n, &c, &pos);
        int64_t pw, ph;
        const int64_t pdh = DivMod(pos, g.in[2], &pw);
        const int64_t pd = DivMod(pdh, g.in[1], &ph);
        int64_t lo[3], hi[3];
        Covering(g, 0, pd, &lo[0], &hi[0]);
        Covering(g, 1, ph, &lo[1], &hi[1]);
        Covering(g, 2, pw, &lo[2], &hi[2]);
        const C xv = static_cast<C>(x[i]);
        D acc = D(0);
        for (int64_t od = lo[0]; od <= hi[0]; ++od)
          for (int64_t oh = lo[1]; oh <= hi[1]; ++oh)
            for (int64_t ow = lo[2]; ow <= hi[2]; ++ow) {
              const int64_t ro = OffsetOf(n, c, (od * g.out[1] + oh) * g.out[2] + ow, g.C, O, cl);
              if (g.type == kMaxPool) {
                if (arg[ro] == pos) acc = static_cast<D>(static_cast<C>(acc) + static_cast<C>(dy[ro]));
                continue;
              }
              const PoolWin w = PoolWindowAt(g, od, oh, ow);
              const C gx = PoolInputGrad(g, static_cast<C>(dy[ro]), PoolGradScale<C>(g, w), xv, static_cast<C>(y[ro]));
              acc = static_cast<D>(static_cast<C>(acc) + gx);
            }
        Store(dx + i, req, acc);
      },
      "_backward_Pooling CUDA kernel");
}

void PoolingForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool cl = ChannelLast(attrs.get<PoolingParam>().layout);
  const PoolGeom g = MakePoolGeom(attrs, ToChannelFirst(in[0].shape_, cl));
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    LaunchWindows<D, false>(Stream(ctx), g, cl, in[0].dptr<D>(), out[0].dptr<D>(), nullptr, req[0]);
  });
}

/*! \brief inputs (ograd, data, output). */
void PoolingBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool cl = ChannelLast(attrs.get<PoolingParam>().layout);
  const PoolGeom g = MakePoolGeom(attrs, ToChannelFirst(in[1].shape_, cl));
  const cudaStream_t s = Stream(ctx);
  int64_t* arg = nullptr;
  const int64_t rows = g.N * g.C * g.OutSize();
  if (g.type == kMaxPool && rows > 0) arg = static_cast<int64_t*>(ctx.requested[0].GetSpace(rows * sizeof(int64_t)));
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const D* x = in[1].dptr<D>();
    if (g.type == kMaxPool) LaunchWindows<D, true>(s, g, cl, x, nullptr, arg, kWriteTo);
    PoolBackwardGather<D>(s, g, cl, in[0].dptr<D>(), x, in[2].dptr<D>(), arg, out[0].dptr<D>(), req[0]);
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(Pooling, kGPU, cuda).set_rank(100).set_compute(cuda::PoolingForward);
MXNET_REGISTER_KERNEL(_backward_Pooling, kGPU, cuda).set_rank(100).set_compute(cuda::PoolingBackward);

}  // namespace op
}  // namespace mxnet
