/*!
 * \file reduce_kernels.h
 * \brief Reductions over any set of axes. The input is viewed as kept dims x reduced dims
 *        (adjacent dims of the same kind merged); each output element walks its reduced
 *        elements with an odometer. When there are few outputs and many reduced elements,
 *        the reduced range is cut into fixed-size blocks whose partials are merged in
 *        order, so the result does not depend on the number of threads. Contiguous runs and
 *        contiguous rows of outputs take vectorised, pairwise/blocked loops (below).
 */
#ifndef MXNET_OPERATOR_COMMON_REDUCE_KERNELS_H_
#define MXNET_OPERATOR_COMMON_REDUCE_KERNELS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "mxnet/tensor.h"
#include "mxnet/xinline.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

struct ReducePlan {
  std::vector<int64_t> kshape, kstride;  // kept dims (outer to inner) and input strides
  std::vector<int64_t> rshape, rstride;  // reduced dims
  int64_t M{1}, K{1};                    // output count, reduced count per output
};

/*! \brief Plans the reduction of `in` over the axes flagged in `reduce` (size = ndim). */
inline ReducePlan MakeReducePlan(const TShape& in, const std::vector<bool>& reduce) {
  ReducePlan p;
  const int n = in.ndim();
  std::vector<int64_t> stride(n);
  int64_t s = 1;
  for (int i = n - 1; i >= 0; --i) {
    stride[i] = s;
    s *= in[i];
  }
  int last = -1;  // 0 kept, 1 reduced, of the previous non-unit dim
  for (int i = 0; i < n; ++i) {
    if (in[i] == 1) continue;
    auto& sh = reduce[i] ? p.rshape : p.kshape;
    auto& st = reduce[i] ? p.rstride : p.kstride;
    if (last == static_cast<int>(reduce[i]) && st.back() == stride[i] * in[i]) {
      sh.back() *= in[i];
      st.back() = stride[i];
    } else {
      sh.push_back(in[i]);
      st.push_back(stride[i]);
    }
    last = reduce[i];
  }
  for (auto d : p.kshape) p.M *= d;
  for (auto d : p.rshape) p.K *= d;
  if (in.Size() == 0) {
    p.M = 1;
    for (int i = 0; i < n; ++i)
      if (!reduce[i]) p.M *= in[i];
    p.K = 0;
  }
  return p;
}

/*! \brief Input offset of output element o (row-major over kept dims). */
inline int64_t KeptOffset(const ReducePlan& p, int64_t o) {
  int64_t off = 0;
  for (int d = static_cast<int>(p.kshape.size()) - 1; d >= 0; --d) {
    off += (o % p.kshape[d]) * p.kstride[d];
    o /= p.kshape[d];
  }
  return off;
}

/*!
 * \brief Calls outer(o) for every kept position o in [0, p.M): one per OpenMP thread when the
 *        whole reduction is large enough and there is more than one, serially otherwise.
 */
template <typename F>
inline void ForEachKept(const ReducePlan& p, F&& outer) {
  if (UseParallel(p.M * p.K) && p.M > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < p.M; ++o) outer(o);
  } else {
    for (int64_t o = 0; o < p.M; ++o) outer(o);
  }
}

/*!
 * \brief Visits reduced elements [k0, k1) of one output as runs along the innermost reduced
 *        dim: fn(first_offset, length, stride).
 */
template <typename F>
inline void WalkReducedRuns(const ReducePlan& p, int64_t base, int64_t k0, int64_t k1, F fn) {
  // Nothing to visit; also keeps an empty reduced dim (an empty input) out of the divisions below.
  if (k0 >= k1) return;
  const int nr = static_cast<int>(p.rshape.size());
  if (nr == 0) {
    fn(base, int64_t{1}, int64_t{1});
    return;
  }
  int64_t idx[64] = {0};  // MXNet caps ndim at 32
  int64_t rem = k0, off = base;
  for (int d = nr - 1; d >= 0; --d) {
    idx[d] = rem % p.rshape[d];
    rem /= p.rshape[d];
    off += idx[d] * p.rstride[d];
  }
  const int64_t inner = p.rshape[nr - 1], ist = p.rstride[nr - 1];
  int64_t k = k0;
  while (k < k1) {
    const int64_t run = std::min(inner - idx[nr - 1], k1 - k);
    fn(off, run, ist);
    k += run;
    off += run * ist;
    idx[nr - 1] += run;
    for (int d = nr - 1; d > 0 && idx[d] == p.rshape[d]; --d) {
      off -= idx[d] * p.rstride[d];
      idx[d] = 0;
      ++idx[d - 1];
      off += p.rstride[d - 1];
    }
  }
}

/*! \brief Visits reduced elements [k0, k1) of one output: fn(input_offset). */
template <typename F>
inline void WalkReduced(const ReducePlan& p, int64_t base, int64_t k0, int64_t k1, F fn) {
  WalkReducedRuns(p, base, k0, k1, [&](int64_t off, int64_t run, int64_t st) {
    for (int64_t i = 0; i < run; ++i) fn(off + i * st);
  });
}

// Reducers over an accumulator type A: Map (element -> A), Combine, identity, Finalize. Host and
// device (the CUDA kernels of cuda/reduce.cu use them too).
struct SumReducer {
  template <typename A> MXNET_XINLINE static A Init() { return A(0); }
  template <typename A> MXNET_XINLINE static A Map(A x) { return x; }
  template <typename A> MXNET_XINLINE static void Combine(A* acc, A v) { *acc = A(*acc + v); }
  template <typename A> MXNET_XINLINE static A Finalize(A acc, int64_t) { return acc; }
};
struct MeanReducer : SumReducer {
  // The mean of nothing is NaN (numpy); an integer type has none and gives 0.
  template <typename A> MXNET_XINLINE static A Finalize(A acc, int64_t k) {
    if (k) return A(acc / A(k));
    if constexpr (std::is_floating_point_v<A>) return A(NAN);
    return A(0);
  }
};
struct NanSumReducer : SumReducer {
  template <typename A> MXNET_XINLINE static A Map(A x) { return x != x ? A(0) : x; }  // x != x: NaN, any A
};
struct ProdReducer {
  template <typename A> MXNET_XINLINE static A Init() { return A(1); }
  template <typename A> MXNET_XINLINE static A Map(A x) { return x; }
  template <typename A> MXNET_XINLINE static void Combine(A* acc, A v) { *acc = A(*acc * v); }
  template <typename A> MXNET_XINLINE static A Finalize(A acc, int64_t) { return acc; }
};
struct NanProdReducer : ProdReducer {
  template <typename A> MXNET_XINLINE static A Map(A x) { return x != x ? A(1) : x; }
};
struct MaxReducer {
  template <typename A> MXNET_XINLINE static A Init() {
    if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
    return std::numeric_limits<A>::lowest();
  }
  template <typename A> MXNET_XINLINE static A Map(A x) { return x; }
  // NaN propagates, as in numpy.
  template <typename A> MXNET_XINLINE static void Combine(A* acc, A v) {
    if (v > *acc || v != v) *acc = v;
  }
  template <typename A> MXNET_XINLINE static A Finalize(A acc, int64_t) { return acc; }
};
struct MinReducer {
  template <typename A> MXNET_XINLINE static A Init() {
    if constexpr (std::is_floating_point_v<A>) return std::numeric_limits<A>::infinity();
    return std::numeric_limits<A>::max();
  }
  template <typename A> MXNET_XINLINE static A Map(A x) { return x; }
  template <typename A> MXNET_XINLINE static void Combine(A* acc, A v) {
    if (v < *acc || v != v) *acc = v;
  }
  template <typename A> MXNET_XINLINE static A Finalize(A acc, int64_t) { return acc; }
};
struct L1Reducer : SumReducer {
  template <typename A> MXNET_XINLINE static A Map(A x) { return x < A(0) ? A(-x) : x; }
};
struct L2Reducer : SumReducer {
  template <typename A> MXNET_XINLINE static A Map(A x) { return A(x * x); }
  template <typename A> MXNET_XINLINE static A Finalize(A acc, int64_t) { return A(std::sqrt(static_cast<double>(acc))); }
};

/*! \brief Reduced elements per block when one output's reduction is split across threads. */
constexpr int64_t kReduceBlock = 1 << 15;
/*! \brief Independent accumulators of a contiguous run (vector registers' worth, several deep). */
constexpr int64_t kReduceLanes = 32;
/*! \brief Contiguous runs longer than this are halved and the halves combined (pairwise). */
constexpr int64_t kReduceLeaf = 1024;

/*!
 * \brief Combine of Map over n contiguous elements: kReduceLanes accumulators in a
 *        vectorised loop, halves combined pairwise above kReduceLeaf, so a float32 sum's
 *        error grows with log(n) instead of n. The order depends on n only.
 */
template <typename R, typename A, typename T>
inline A ReduceRun(const T* x, int64_t n) {
  using CT = compute_t<T>;
  if (n > kReduceLeaf) {
    const int64_t half = n / 2 / kReduceLanes * kReduceLanes;
    A a = ReduceRun<R, A>(x, half);
    R::Combine(&a, ReduceRun<R, A>(x + half, n - half));
    return a;
  }
  A acc[kReduceLanes];
  for (int64_t j = 0; j < kReduceLanes; ++j) acc[j] = R::template Init<A>();
  int64_t i = 0;
  for (; i + kReduceLanes <= n; i += kReduceLanes) {
    MXNET_SIMD
    for (int64_t j = 0; j < kReduceLanes; ++j) R::Combine(&acc[j], R::Map(static_cast<A>(static_cast<CT>(x[i + j]))));
  }
  for (int64_t w = kReduceLanes / 2; w > 0; w /= 2)
    for (int64_t j = 0; j < w; ++j) R::Combine(&acc[j], acc[j + w]);
  for (; i < n; ++i) R::Combine(&acc[0], R::Map(static_cast<A>(static_cast<CT>(x[i]))));
  return acc[0];
}

/*!
 * \brief Outputs whose innermost kept dim is contiguous and at least 16 long (sum over
 *        axis 0, or over the channels of NCHW): tiles of that dim accumulate input rows
 *        in a vectorised loop, instead of each output striding through memory alone. Reduced
 *        rows are combined in blocks of kRowBlock, then the blocks (two-level summation).
 *        False when the layout is not this one.
 */
template <typename R, typename A, typename T, typename O>
inline bool ReduceKeptInner(const ReducePlan& p, const T* in, O* out, OpReqType req) {
  if (p.kshape.empty() || p.rshape.empty() || p.kstride.back() != 1 || p.kshape.back() < 16) return false;
  using CT = compute_t<T>;
  // Wide tiles read long contiguous stretches of each row; 2 x 2048 doubles fit in L1/L2.
  constexpr int64_t kTile = 2048, kRowBlock = 64;
  const int64_t L = p.kshape.back(), tiles_per_row = (L + kTile - 1) / kTile;
  const int64_t ntiles = p.M / L * tiles_per_row;
  auto tile = [&](int64_t t) {
    const int64_t q = t / tiles_per_row, j0 = t % tiles_per_row * kTile, len = std::min(kTile, L - j0);
    const int64_t base = KeptOffset(p, q * L) + j0;
    A acc[kTile], blk[kTile];
    for (int64_t j = 0; j < len; ++j) acc[j] = R::template Init<A>();
    for (int64_t k0 = 0; k0 < p.K; k0 += kRowBlock) {
      for (int64_t j = 0; j < len; ++j) blk[j] = R::template Init<A>();
      WalkReduced(p, base, k0, std::min(p.K, k0 + kRowBlock), [&](int64_t off) {
        const T* row = in + off;
        MXNET_SIMD
        for (int64_t j = 0; j < len; ++j) R::Combine(&blk[j], R::Map(static_cast<A>(static_cast<CT>(row[j]))));
      });
      for (int64_t j = 0; j < len; ++j) R::Combine(&acc[j], blk[j]);
    }
    for (int64_t j = 0; j < len; ++j) Store(out + q * L + j0 + j, req, R::Finalize(acc[j], p.K));
  };
  if (UseParallel(p.M * p.K) && ntiles > 1) {
#pragma omp parallel for schedule(static)
    for (int64_t t = 0; t < ntiles; ++t) tile(t);
  } else {
    for (int64_t t = 0; t < ntiles; ++t) tile(t);
  }
  return true;
}

/*!
 * \brief out[o] = Finalize(Combine over reduced elements of Map(A(in))). A is the
 *        accumulation type (see AccTypeFor).
 */
template <typename R, typename A, typename T, typename O>
inline void Reduce(const ReducePlan& p, const T* in, O* out, OpReqType req) {
  if (req == kNullOp) return;
  if (p.K > 0 && ReduceKeptInner<R, A>(p, in, out, req)) return;
  using CT = compute_t<T>;
  const bool contiguous = !p.rstride.empty() && p.rstride.back() == 1;
  auto one = [&](int64_t base, int64_t k0, int64_t k1) {
    A acc = R::template Init<A>();
    WalkReducedRuns(p, base, k0, k1, [&](int64_t off, int64_t run, int64_t st) {
      if (contiguous) {
        R::Combine(&acc, ReduceRun<R, A>(in + off, run));
      } else {
        for (int64_t i = 0; i < run; ++i) R::Combine(&acc, R::Map(static_cast<A>(static_cast<CT>(in[off + i * st]))));
      }
    });
    return acc;
  };
  const int64_t nblocks = (p.K + kReduceBlock - 1) / kReduceBlock;
  if (p.M < 8 && nblocks > 1 && UseParallel(p.M * p.K)) {
    std::unique_ptr<A[]> part(new A[nblocks]);  // not vector: A may be bool
    for (int64_t o = 0; o < p.M; ++o) {
      const int64_t base = KeptOffset(p, o);
#pragma omp parallel for schedule(static)
      for (int64_t b = 0; b < nblocks; ++b)
        part[b] = one(base, b * kReduceBlock, std::min(p.K, (b + 1) * kReduceBlock));
      A acc = R::template Init<A>();
      for (int64_t b = 0; b < nblocks; ++b) R::Combine(&acc, part[b]);
      Store(out + o, req, R::Finalize(acc, p.K));
    }
    return;
  }
  auto outer = [&](int64_t o) { Store(out + o, req, R::Finalize(one(KeptOffset(p, o), 0, p.K), p.K)); };
  ForEachKept(p, outer);
}

/*!
 * \brief Index (within the reduced range, row-major) of the first max/min of each output;
 *        NaN counts as the extreme, as in numpy.
 */
template <bool kMax, typename T, typename O>
inline void ArgReduce(const ReducePlan& p, const T* in, O* out, OpReqType req) {
  if (req == kNullOp) return;
  using C = compute_t<T>;
  auto outer = [&](int64_t o) {
    int64_t best = 0, k = 0;
    C bv = C(0);
    bool have = false, bnan = false;
    WalkReduced(p, KeptOffset(p, o), 0, p.K, [&](int64_t off) {
      const C v = static_cast<C>(in[off]);
      if (!bnan) {
        const bool isnan = v != v;
        if (!have || isnan || (kMax ? v > bv : v < bv)) {
          bv = v;
          best = k;
          have = true;
          bnan = isnan;
        }
      }
      ++k;
    });
    Store(out + o, req, static_cast<compute_t<O>>(best));
  };
  ForEachKept(p, outer);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_REDUCE_KERNELS_H_
