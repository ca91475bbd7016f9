/*!
 * \file reduce.cu
 * \brief CUDA kernels of the axis reductions of reduce.cc (sum, mean, prod, nansum, nanprod,
 *        max, min, norm, argmax, argmin) and their `_backward_*` ops. The axes are planned by
 *        the CPU's MakeReducePlan (reduce_kernels.h): kept x reduced dims, adjacent dims of a
 *        kind merged. The reducers, the accumulation types (MXNET_SAFE_ACCUMULATION, float16
 *        in its storage type when off) and the derivatives are the CPU's.
 *
 *        Schedule (group_reduce.cuh): reduced dims innermost, a warp or block of lanes per
 *        output walks its contiguous elements; kept dims innermost, adjacent outputs lie along
 *        x (coalesced) with up to 16 lanes along y (fewer than 8 adjacent outputs: lanes along
 *        x as for reduced dims innermost). Few outputs with many elements each cut
 *        the elements into chunks over blockIdx.y whose partial states (in kTempSpace) a
 *        second launch of the same kernel merges. Results equal the CPU's up to the order of
 *        the additions (argmax/argmin and max/min exactly, NaN included). With
 *        MXNET_SAFE_ACCUMULATION=0, float16 (in its storage type, compensated) and bfloat16
 *        accumulate in the same type as on the CPU but merge partial states, so where that type
 *        stalls or overflows on long reductions the results part from the CPU's serial pass
 *        (a long float16 2-norm can reach inf where the CPU's stalls), as MXNet 1.x's GPU did.
 */
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "mxnet/env.h"
#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/reduce_kernels.h"
#include "operator/common/reduce_storage_type.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/tensor/reduce_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

constexpr int kMaxDims = 32;  // MXNet caps ndim at 32; merged plans have no more

/*! \brief A POD copy of ReducePlan, passed to kernels by value. */
struct DevPlan {
  int nk{0}, nr{0};
  int64_t kshape[kMaxDims], kstride[kMaxDims], rshape[kMaxDims], rstride[kMaxDims];
  int64_t M{1}, K{1};

  /*! \brief Input offset of output o (row-major over the kept dims). */
  __host__ __device__ __forceinline__ int64_t KeptOffset(int64_t o) const { return Offset(o, nk, kshape, kstride); }

  __host__ __device__ __forceinline__ static int64_t Offset(int64_t i, int nd, const int64_t* shape,
                                                            const int64_t* stride) {
    if (nd == 0) return 0;
    int64_t off = 0;
    for (int d = nd - 1; d > 0; --d) {
      int64_t r;
      i = DivMod(i, shape[d], &r);
      off += r * stride[d];
    }
    return off + i * stride[0];
  }
};

/*!
 * \brief Walks reduced elements k, k + step, ... of one output: reduced element k = q * E + r
 *        (E the extent of the innermost reduced dim) lies at Offset() from the output's offset;
 *        the divisions run only when r passes E.
 */
struct ReducedWalk {
  const DevPlan& p;
  int64_t k, r, outer, E, st;

  __host__ __device__ __forceinline__ ReducedWalk(const DevPlan& plan, int64_t k0) : p(plan), k(k0) {
    E = p.nr ? p.rshape[p.nr - 1] : 1;
    st = p.nr ? p.rstride[p.nr - 1] : 0;
    Locate();
  }
  __host__ __device__ __forceinline__ int64_t Offset() const { return outer + r * st; }
  /*! \brief k += step; the position is updated while k < end. */
  __host__ __device__ __forceinline__ void Advance(int64_t step, int64_t end) {
    k += step;
    r += step;
    if (r >= E && k < end) Locate();
  }

 private:
  __host__ __device__ __forceinline__ void Locate() {
    const int64_t q = DivMod(k, E, &r);
    outer = p.nr > 1 ? DevPlan::Offset(q, p.nr - 1, p.rshape, p.rstride) : 0;
  }
};

DevPlan ToDevPlan(const ReducePlan& p) {
  MX_CHECK(p.kshape.size() <= kMaxDims && p.rshape.size() <= kMaxDims) << "CUDA reduce: more than 32 dims";
  DevPlan d;
  d.nk = static_cast<int>(p.kshape.size());
  d.nr = static_cast<int>(p.rshape.size());
  for (int i = 0; i < d.nk; ++i) {
    d.kshape[i] = p.kshape[i];
    d.kstride[i] = p.kstride[i];
  }
  for (int i = 0; i < d.nr; ++i) {
    d.rshape[i] = p.rshape[i];
    d.rstride[i] = p.rstride[i];
  }
  d.M = p.M;
  d.K = p.K;
  return d;
}

// ---- Reducer states: Init, Add (one element and its index k), Merge, Write -------------

/*! \brief A reducer R of reduce_kernels.h accumulating in A. */
template <typename R, typename A, typename T>
struct ArithOp {
  using State = A;
  __device__ __forceinline__ A Init() const { return R::template Init<A>(); }
  __device__ __forceinline__ void Add(A& s, T x, int64_t) const {
    R::Combine(&s, R::Map(static_cast<A>(static_cast<compute_t<T>>(x))));
  }
  __device__ __forceinline__ void Merge(A& s, const A& o) const { R::Combine(&s, o); }
  template <typename O>
  __device__ __forceinline__ void Write(O* out, OpReqType req, const A& s, int64_t K) const {
    Store(out, req, R::Finalize(s, K));
  }
};

/*!
 * \brief float16 reduced in its storage type (MXNET_SAFE_ACCUMULATION=0), with the CPU's
 *        compensated steps (reduce_storage_type.h); partial states merge with the same steps.
 */
struct StorageOp {
  struct State {
    float acc, aux;  // the value, and the Kahan residual or the 2-norm's scale
  };
  StorageReduceKind kind;

  __device__ __forceinline__ State Init() const {
    const bool prod = kind == StorageReduceKind::kProd || kind == StorageReduceKind::kNanProd;
    return {prod ? 1.f : 0.f, 0.f};
  }
  __device__ __forceinline__ void Add(State& s, half_t h, int64_t) const {
    using namespace storage_reduce;
    const float x = static_cast<float>(h);
    switch (kind) {
      case StorageReduceKind::kNanSum:
        if (x == x) KahanAdd(&s.acc, &s.aux, x);
        break;
      case StorageReduceKind::kL1: KahanAdd(&s.acc, &s.aux, std::fabs(x)); break;
      case StorageReduceKind::kL2: ScaledSquareAdd(&s.acc, &s.aux, x); break;
      case StorageReduceKind::kNanProd:
        if (x == x) s.acc = H(s.acc * x);
        break;
      case StorageReduceKind::kProd: s.acc = H(s.acc * x); break;
      default: KahanAdd(&s.acc, &s.aux, x); break;
    }
  }
  __device__ __forceinline__ void Merge(State& a, const State& b) const {
    using namespace storage_reduce;
    switch (kind) {
      case StorageReduceKind::kProd:
      case StorageReduceKind::kNanProd: a.acc = H(a.acc * b.acc); break;
      case StorageReduceKind::kL2: {  // b is sum((x / b.aux)^2): rescale to the larger scale
        if (b.acc == 0.f && b.aux == 0.f) break;
        if (a.aux < b.aux) {
          const float r = H(a.aux / b.aux);
          a.acc = H(b.acc + H(H(a.acc * r) * r));
          a.aux = b.aux;
        } else {
          const float r = H(b.aux / a.aux);
          a.acc = H(a.acc + H(H(b.acc * r) * r));
        }
        break;
      }
      default:  // b's value is b.acc - b.aux
        KahanAdd(&a.acc, &a.aux, b.acc);
        if (b.aux != 0.f) KahanAdd(&a.acc, &a.aux, -b.aux);
        break;
    }
  }
  template <typename O>
  __device__ __forceinline__ void Write(O* out, OpReqType req, const State& s, int64_t K) const {
    using namespace storage_reduce;
    float acc = s.acc;
    if (kind == StorageReduceKind::kMean) acc = H(acc / H(static_cast<float>(K)));
    if (kind == StorageReduceKind::kL2) acc = H(s.aux * H(std::sqrt(acc)));
    Store(out, req, acc);
  }
};

/*!
 * \brief argmax (kMax) / argmin as the CPU's ArgReduce: the first NaN, else the first extreme.
 *        States merge by value, ties (and NaNs) to the lower index, so any order gives it.
 */
template <bool kMax, typename T>
struct ArgOp {
  using C = compute_t<T>;
  struct State {
    C v;
    int64_t idx;  // -1: no element yet
    bool nan;
  };
  __device__ __forceinline__ State Init() const { return {C(0), -1, false}; }
  __device__ __forceinline__ void Merge(State& a, const State& b) const {
    if (b.idx < 0) return;
    bool take;
    if (a.idx < 0) {
      take = true;
    } else if (a.nan || b.nan) {
      take = b.nan && (!a.nan || b.idx < a.idx);
    } else if (kMax ? b.v > a.v : b.v < a.v) {
      take = true;
    } else {
      take = b.v == a.v && b.idx < a.idx;
    }
    if (take) a = b;
  }
  __device__ __forceinline__ void Add(State& s, T x, int64_t k) const {
    const C v = static_cast<C>(x);
    Merge(s, State{v, k, v != v});
  }
  template <typename O>
  __device__ __forceinline__ void Write(O* out, OpReqType req, const State& s, int64_t) const {
    Store(out, req, static_cast<compute_t<O>>(s.idx));
  }
};

// ---- The schedule --------------------------------------------------------------------

/*!
 * \brief Outputs [blockIdx.x * rows_per_block, ...) strided by the grid; each group's lanes
 *        walk the output's elements of chunk blockIdx.y. One chunk: out[o] under req; more:
 *        the chunk's state into partial[chunk * M + o].
 */
template <typename Op, typename T, typename O>
__global__ void __launch_bounds__(kGroupThreads) ReduceKernel(const __grid_constant__ DevPlan p, Op op, const T* in,
                                                              O* out, OpReqType req,
                                                              bool lanes_x, int64_t kchunk,
                                                              typename Op::State* partial) {
  using S = typename Op::State;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  S* smem = reinterpret_cast<S*>(smem_raw);
  const int lanes = lanes_x ? blockDim.x : blockDim.y;
  const int lane = lanes_x ? threadIdx.x : threadIdx.y;
  const int group = lanes_x ? threadIdx.y : threadIdx.x;
  const int per_block = lanes_x ? blockDim.y : blockDim.x;
  const int64_t k0 = blockIdx.y * kchunk, k1 = min(p.K, k0 + kchunk);
  // ob is the same for the whole block, so every thread reaches GroupReduce's barriers.
  for (int64_t ob = static_cast<int64_t>(blockIdx.x) * per_block; ob < p.M;
       ob += static_cast<int64_t>(gridDim.x) * per_block) {
    const int64_t o = ob + group;
    S s = op.Init();
    if (o < p.M && k0 + lane < k1) {
      const T* base = in + p.KeptOffset(o);
      ReducedWalk w(p, k0 + lane);
      while (w.k < k1) {  // four loads issued before their (in-order) additions
        T v[4];
        int64_t kk[4];
        int n = 0;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (w.k < k1) {
            v[j] = base[w.Offset()];
            kk[j] = w.k;
            ++n;
            w.Advance(lanes, k1);
          }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (j < n) op.Add(s, v[j], kk[j]);
      }
    }
    s = GroupReduce(s, lanes_x, smem, [&](S& a, const S& b) { op.Merge(a, b); });
    if (lane == 0 && o < p.M) {
      if (gridDim.y == 1) {
        op.Write(out + o, req, s, p.K);
      } else {
        partial[blockIdx.y * p.M + o] = s;
      }
    }
  }
}

/*!
 * \brief The second pass over chunked reductions: merges Op's partial states (the elements
 *        it reduces) and writes as Op does, with the count of the original reduction.
 */
template <typename Op>
struct MergeOp {
  using State = typename Op::State;
  Op op;
  int64_t K;  // elements of each original reduction
  __device__ __forceinline__ State Init() const { return op.Init(); }
  __device__ __forceinline__ void Add(State& s, const State& x, int64_t) const { op.Merge(s, x); }
  __device__ __forceinline__ void Merge(State& s, const State& o) const { op.Merge(s, o); }
  template <typename O>
  __device__ __forceinline__ void Write(O* out, OpReqType req, const State& s, int64_t) const {
    op.Write(out, req, s, K);
  }
};

template <typename Op>
constexpr bool kIsMergeOp = false;
template <typename Op>
constexpr bool kIsMergeOp<MergeOp<Op>> = true;

template <typename Op, typename O>
void MergeChunks(const OpContext& ctx, const DevPlan& p, Op op, const typename Op::State* partial, int64_t chunks,
                 O* out, OpReqType req, const char* what);

/*! \brief Blocks a launch aims for (an H100 holds 132 SMs x 8 blocks of 256 threads). */
constexpr int64_t kTargetBlocks = 1024;
/*! \brief Elements per thread below which a reduction is not cut into more chunks. */
constexpr int64_t kMinPerThread = 32;

/*!
 * \brief out[o] = op's reduction of output o's elements of in, under req. With scratch
 *        (a temp space resource), few outputs of many elements each are cut into chunks
 *        whose partial states a second launch merges.
 */
template <typename Op, typename T, typename O>
void LaunchReduce(const OpContext& ctx, const DevPlan& p, Op op, const T* in, O* out, OpReqType req,
                  bool may_chunk, const char* what) {
  using S = typename Op::State;
  if (req == kNullOp || p.M == 0) return;
  cudaStream_t stream = Stream(ctx);
  // Lanes along x when the reduced dims are innermost, or when the kept ones are but fewer than 8
  // outputs lie side by side (rows of 32 outputs would idle most threads; the lanes' strided
  // reads of neighbouring outputs share cache lines).
  const bool rows = (p.nr > 0 && p.rstride[p.nr - 1] == 1) || (p.nk > 0 && p.kshape[p.nk - 1] < 8 && p.K >= 64);
  const GroupLayout g = MakeGroupLayout(rows, p.K);
  const int64_t blocks = (p.M + g.rows_per_block() - 1) / g.rows_per_block();
  int64_t chunks = 1;
  if (may_chunk && blocks < kTargetBlocks && !ctx.requested.empty()) {
    const int64_t most = std::max<int64_t>(1, p.K / (g.lanes() * kMinPerThread));
    chunks = std::min<int64_t>({(kTargetBlocks + blocks - 1) / blocks, most, 65535});
  }
  const int64_t kchunk = std::max<int64_t>(1, (p.K + chunks - 1) / chunks);
  chunks = std::max<int64_t>(1, (p.K + kchunk - 1) / kchunk);
  S* partial = chunks > 1 ? static_cast<S*>(ctx.requested[0].GetSpace(sizeof(S) * chunks * p.M)) : nullptr;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(blocks, 1 << 30)), static_cast<unsigned>(chunks));
  const size_t smem = GroupReduceSmem(g.bx * g.by, sizeof(S));
  ReduceKernel<<<grid, dim3(g.bx, g.by), smem, stream>>>(p, op, in, out, req, g.lanes_x, kchunk, partial);
  Check(cudaGetLastError(), what);
  if constexpr (!kIsMergeOp<Op>) {
    if (chunks > 1) MergeChunks(ctx, p, op, partial, chunks, out, req, what);
  }
}

/*! \brief The second launch: partial is (chunks, M), output o reduces column o. */
template <typename Op, typename O>
void MergeChunks(const OpContext& ctx, const DevPlan& p, Op op, const typename Op::State* partial, int64_t chunks,
                 O* out, OpReqType req, const char* what) {
  DevPlan m;
  m.nk = m.nr = 1;
  m.kshape[0] = p.M;
  m.kstride[0] = 1;
  m.rshape[0] = chunks;
  m.rstride[0] = p.M;
  m.M = p.M;
  m.K = chunks;
  LaunchReduce(ctx, m, MergeOp<Op>{op, p.K}, partial, out, req, false, what);
}

template <typename Op, typename T, typename O>
void LaunchReduce(const OpContext& ctx, const ReducePlan& plan, Op op, const T* in, O* out, OpReqType req,
                  const char* what) {
  if (req == kNullOp || plan.M == 0) return;
  LaunchReduce(ctx, ToDevPlan(plan), op, in, out, req, true, what);
}

// ---- Forward ops -----------------------------------------------------------------------

/*! \brief As reduce.cc's ReduceCompute: the same accumulation type for every dtype and mode. */
template <typename R, bool kSumLike>
void ReduceForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ReducePlan plan = MakeReducePlan(in[0].shape_, ReducedAxes(attrs, in[0].ndim()));
  const bool safe = env::GetBool(env::Var::MXNET_SAFE_ACCUMULATION);
  constexpr StorageReduceKind kStorage = kStorageReduceKind<R>;
  if constexpr (kSumLike && kStorage != StorageReduceKind::kNone) {
    if (!safe && in[0].type_flag_ == kFloat16)
      return LaunchReduce(ctx, plan, StorageOp{kStorage}, in[0].dptr<half_t>(), out[0].dptr<half_t>(), req[0],
                          "CUDA reduce (float16 storage type)");
  }
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    if constexpr (!kSumLike) {
      LaunchReduce(ctx, plan, ArithOp<R, compute_t<DType>, DType>{}, x, y, req[0], "CUDA reduce");
    } else if (safe) {
      LaunchReduce(ctx, plan, ArithOp<R, typename AccType<DType, true>::type, DType>{}, x, y, req[0], "CUDA reduce");
    } else if constexpr (!std::is_same_v<DType, half_t> || kStorage == StorageReduceKind::kNone) {
      LaunchReduce(ctx, plan, ArithOp<R, typename AccType<DType, false>::type, DType>{}, x, y, req[0], "CUDA reduce");
    }
  });
}

void NormForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (attrs.get<ReduceAxesParam>().ord == 1) return ReduceForward<L1Reducer, true>(attrs, ctx, in, req, out);
  ReduceForward<L2Reducer, true>(attrs, ctx, in, req, out);
}

template <bool kMax>
void ArgForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MX_CHECK_KIND(in[0].Size() > 0, "ValueError") << attrs.op->name << ": attempt to get an arg extremum of an empty array";
  const ReducePlan plan = MakeReducePlan(in[0].shape_, ArgReducedAxes(attrs, in[0].ndim()));
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    LaunchReduce(ctx, plan, ArgOp<kMax, DType>{}, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0], "CUDA argmax");
  });
}

// ---- Backward ops ----------------------------------------------------------------------

/*!
 * \brief Maps an input index to its output's index (row-major over the keepdims shape):
 *        merged dims with their stride in the output, 0 for reduced dims.
 */
struct KeptIndex {
  int nd{0};
  int64_t shape[kMaxDims], stride[kMaxDims];

  __host__ __device__ __forceinline__ int64_t Map(int64_t i) const { return DevPlan::Offset(i, nd, shape, stride); }
};

KeptIndex MakeKeptIndex(const TShape& ds, const std::vector<bool>& red) {
  const int n = ds.ndim();
  std::vector<int64_t> st(n);
  int64_t s = 1;
  for (int d = n - 1; d >= 0; --d) {
    st[d] = red[d] ? 0 : s;
    if (!red[d]) s *= ds[d];
  }
  KeptIndex k;
  for (int d = 0; d < n; ++d) {
    if (ds[d] == 1) continue;
    if (k.nd > 0 && (k.stride[k.nd - 1] == 0 ? st[d] == 0 : k.stride[k.nd - 1] == st[d] * ds[d])) {
      k.shape[k.nd - 1] *= ds[d];
      k.stride[k.nd - 1] = st[d];
    } else {
      MX_CHECK(k.nd < kMaxDims) << "CUDA reduce: more than 32 dims";
      k.shape[k.nd] = ds[d];
      k.stride[k.nd] = st[d];
      ++k.nd;
    }
  }
  return k;
}

/*! \brief (ograd, data, out) -> ograd * G::D(data, out, K) broadcast back over the reduced axes. */
template <typename G>
void ReduceBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& ds = in[1].shape_;
  const std::vector<bool> red = ReducedAxes(attrs, ds.ndim());
  const TShape ks = KeepdimsShape(ds, red);
  const int64_t k = ks.Size() ? ds.Size() / ks.Size() : 0;
  const KeptIndex kept = MakeKeptIndex(ds, red);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    const DType* y = in[2].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    const OpReqType r = req[0];
    ForEach(
        Stream(ctx), ds.Size(),
        [=] __device__(int64_t i) {
          const int64_t j = kept.Map(i);
          const C xv = static_cast<C>(x[i]), yv = static_cast<C>(y[j]), gv = static_cast<C>(g[j]);
          Store(dx + i, r, C(gv * G::template D<C>(xv, yv, k)));
        },
        "CUDA reduce backward");
  });
}

void NormBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (attrs.get<ReduceAxesParam>().ord == 1) return ReduceBackward<L1NormGrad>(attrs, ctx, in, req, out);
  ReduceBackward<NormGrad>(attrs, ctx, in, req, out);
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(sum, kGPU, cuda).set_compute(cuda::ReduceForward<SumReducer, true>);
MXNET_REGISTER_KERNEL(mean, kGPU, cuda).set_compute(cuda::ReduceForward<MeanReducer, true>);
MXNET_REGISTER_KERNEL(prod, kGPU, cuda).set_compute(cuda::ReduceForward<ProdReducer, true>);
MXNET_REGISTER_KERNEL(nansum, kGPU, cuda).set_compute(cuda::ReduceForward<NanSumReducer, true>);
MXNET_REGISTER_KERNEL(nanprod, kGPU, cuda).set_compute(cuda::ReduceForward<NanProdReducer, true>);
MXNET_REGISTER_KERNEL(max, kGPU, cuda).set_compute(cuda::ReduceForward<MaxReducer, false>);
MXNET_REGISTER_KERNEL(min, kGPU, cuda).set_compute(cuda::ReduceForward<MinReducer, false>);
MXNET_REGISTER_KERNEL(norm, kGPU, cuda).set_compute(cuda::NormForward);
MXNET_REGISTER_KERNEL(argmax, kGPU, cuda).set_compute(cuda::ArgForward<true>);
MXNET_REGISTER_KERNEL(argmin, kGPU, cuda).set_compute(cuda::ArgForward<false>);

MXNET_REGISTER_KERNEL(_backward_sum, kGPU, cuda).set_compute(cuda::ReduceBackward<SumGrad>);
MXNET_REGISTER_KERNEL(_backward_mean, kGPU, cuda).set_compute(cuda::ReduceBackward<MeanGrad>);
MXNET_REGISTER_KERNEL(_backward_prod, kGPU, cuda).set_compute(cuda::ReduceBackward<ProdGrad>);
MXNET_REGISTER_KERNEL(_backward_nansum, kGPU, cuda).set_compute(cuda::ReduceBackward<NanSumGrad>);
MXNET_REGISTER_KERNEL(_backward_nanprod, kGPU, cuda).set_compute(cuda::ReduceBackward<NanProdGrad>);
MXNET_REGISTER_KERNEL(_backward_max, kGPU, cuda).set_compute(cuda::ReduceBackward<ExtremumGrad>);
MXNET_REGISTER_KERNEL(_backward_min, kGPU, cuda).set_compute(cuda::ReduceBackward<ExtremumGrad>);
MXNET_REGISTER_KERNEL(_backward_norm, kGPU, cuda).set_compute(cuda::NormBackward);

}  // namespace op
}  // namespace mxnet
