/*!
 * \file ctc_loss.cu
 * \brief CUDA kernels of CTCLoss and `_backward_CTCLoss` (nn/ctc_loss.cc): the alpha-beta
 *        recursion in log space, in double, as the CPU computes it.
 *          - Labels and lengths are copied to the host and read and checked by the CPU's code
 *            (ctc_loss_param.h), so bad input raises the CPU's errors; one wait per call.
 *          - The log-softmax normaliser of every (t, n) row: a group of lanes per row.
 *          - The recursions: one thread block per sequence, a thread per state, a barrier
 *            per frame; the forward keeps two rows of alpha, the backward all of alpha and beta
 *            (kTempSpace).
 *          - The gradient: a thread per element of data; each class sums the occupancy of its
 *            states in state order (the CPU's), found from the sequence's sorted class list.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/copy_kernels.cuh"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/nn/ctc_loss_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

template <typename D>
__device__ __forceinline__ double AsDouble(D v) {
  return static_cast<double>(static_cast<compute_t<D>>(v));
}

/*!
 * \brief Per-sequence tables on the device (int64 arrays of N entries unless noted).
 *        frames, len: frames and target length; tgt_off: offset of the target in `targets`;
 *        alpha_off: offset of the sequence's alpha (and beta) rows; cls_off, cls_cnt: its
 *        distinct target classes, sorted, in `cls` (with pos_beg, pos_end: its states, by
 *        class then state order, in `pos`). The class tables are filled for the backward only.
 */
struct CtcTables {
  const int64_t *frames, *len, *tgt_off, *alpha_off, *cls_off, *cls_cnt;
  const int64_t *targets, *cls, *pos_beg, *pos_end, *pos;
};

/*! \brief The tables built on the host (one array; `at` holds each table's offset into it). */
struct HostTables {
  std::vector<int64_t> data;
  int64_t at[11]{};
  int64_t alpha_rows{0};  // doubles of alpha (and of beta) for every sequence
};

HostTables BuildTables(const std::vector<CtcSample>& samples, bool backward) {
  const int64_t N = static_cast<int64_t>(samples.size());
  std::vector<int64_t> frames(N), len(N), tgt_off(N), alpha_off(N), cls_off(N), cls_cnt(N);
  std::vector<int64_t> targets, cls, pos_beg, pos_end, pos;
  HostTables h;
  for (int64_t n = 0; n < N; ++n) {
    const CtcSample& s = samples[n];
    const int64_t L = static_cast<int64_t>(s.target.size()), S = 2 * L + 1;
    frames[n] = s.frames;
    len[n] = L;
    tgt_off[n] = static_cast<int64_t>(targets.size());
    targets.insert(targets.end(), s.target.begin(), s.target.end());
    alpha_off[n] = h.alpha_rows;
    h.alpha_rows += (backward ? s.frames : 2) * S;
    cls_off[n] = static_cast<int64_t>(cls.size());
    if (backward) {
      std::vector<std::pair<int64_t, int64_t>> by_class(L);  // (class, state)
      for (int64_t j = 0; j < L; ++j) by_class[j] = {s.target[j], 2 * j + 1};
      std::sort(by_class.begin(), by_class.end());
      for (int64_t j = 0; j < L; ++j) {
        if (j == 0 || by_class[j].first != by_class[j - 1].first) {
          cls.push_back(by_class[j].first);
          pos_beg.push_back(static_cast<int64_t>(pos.size()));
          pos_end.push_back(static_cast<int64_t>(pos.size()));
        }
        pos.push_back(by_class[j].second);
        pos_end.back() = static_cast<int64_t>(pos.size());
      }
    }
    cls_cnt[n] = static_cast<int64_t>(cls.size()) - cls_off[n];
  }
  const std::vector<int64_t>* parts[11] = {&frames,  &len, &tgt_off, &alpha_off, &cls_off, &cls_cnt,
                                           &targets, &cls, &pos_beg, &pos_end,   &pos};
  for (int k = 0; k < 11; ++k) {
    h.at[k] = static_cast<int64_t>(h.data.size());
    h.data.insert(h.data.end(), parts[k]->begin(), parts[k]->end());
  }
  return h;
}

CtcTables DeviceTables(const HostTables& h, const int64_t* dev) {
  const int64_t* p[11];
  for (int k = 0; k < 11; ++k) p[k] = dev + h.at[k];
  return CtcTables{p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]};
}

/*!
 * \brief The samples as the CPU reads them: label and lengths (fwd_in[1..]) copied to the host,
 *        data (fwd_in[0]) passed on for its shape only.
 */
std::vector<CtcSample> ReadSamplesFromDevice(const NodeAttrs& attrs, const std::vector<TBlob>& fwd_in, cudaStream_t s) {
  std::vector<std::vector<unsigned char>> bufs(fwd_in.size());
  std::vector<TBlob> host(fwd_in);
  for (size_t k = 1; k < fwd_in.size(); ++k) {
    bufs[k].resize(std::max<size_t>(fwd_in[k].Bytes(), 1));
    if (fwd_in[k].Bytes() > 0)
      Check(cudaMemcpyAsync(bufs[k].data(), fwd_in[k].dptr_, fwd_in[k].Bytes(), cudaMemcpyDeviceToHost, s),
            "CTCLoss: copying labels to the host");
    host[k].dptr_ = bufs[k].data();
    host[k].ctx_ = Context::CPU();
  }
  Check(cudaStreamSynchronize(s), "CTCLoss: copying labels to the host");
  return CtcReadSamples(attrs, host);
}

/*! \brief norm[r] = log(sum(exp(row r))) of each row of C values (the log-softmax normaliser). */
template <typename D>
__global__ void LogNormKernel(const D* x, int64_t rows, int64_t C, double* norm) {
  extern __shared__ double smem[];
  const int lane = threadIdx.x, lanes = blockDim.x;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.y; base < rows; base += step) {
    const int64_t r = base + threadIdx.y;
    const bool active = r < rows;
    const D* row = x + r * C;
    double hi = kCtcNegInf;
    if (active)
      for (int64_t c = lane; c < C; c += lanes) {
        const double v = AsDouble(row[c]);
        hi = hi < v ? v : hi;  // std::max(hi, v)
      }
    hi = GroupReduce(hi, true, smem, [](double& a, const double& b) { a = a < b ? b : a; });
    double sum = 0.0;
    if (active)
      for (int64_t c = lane; c < C; c += lanes) sum += std::exp(AsDouble(row[c]) - hi);
    sum = GroupReduce(sum, true, smem, [](double& a, const double& b) { a += b; });
    if (active && lane == 0) norm[r] = hi + std::log(sum);
  }
}

/*!
 * \brief One block per sequence: alpha (and, kBackward, beta) over its frames; log_p[n] =
 *        log p(target | data), -inf when no alignment exists. alpha, beta: per sequence
 *        frames * S rows (kBackward) or 2 * S (the forward's two alternating rows of alpha).
 */
template <typename D, bool kBackward>
__global__ void CtcRecursionKernel(const D* x, int64_t N, int64_t C, int64_t blank, const double* norm, CtcTables tb,
                                   double* alpha, double* beta, double* log_p) {
  for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
    const int64_t T = tb.frames[n], L = tb.len[n], S = 2 * L + 1;
    const int64_t* tgt = tb.targets + tb.tgt_off[n];
    auto sym = [&](int64_t i) { return i % 2 == 0 ? blank : tgt[i / 2]; };
    // a skip from i-2 to i is allowed onto a label different from the one before it
    auto can_skip = [&](int64_t i) { return i % 2 == 1 && i >= 2 && sym(i) != sym(i - 2); };
    auto lp = [&](int64_t t, int64_t c) { return AsDouble(x[(t * N + n) * C + c]) - norm[t * N + n]; };
    if (T == 0) {  // no frames: only the empty label has an alignment (the empty one)
      if (threadIdx.x == 0) log_p[n] = L == 0 ? 0.0 : kCtcNegInf;
      continue;
    }
    double* al = alpha + tb.alpha_off[n];
    auto arow = [&](int64_t t) { return al + (kBackward ? t : t % 2) * S; };
    for (int64_t i = threadIdx.x; i < S; i += blockDim.x)
      al[i] = i == 0 ? lp(0, blank) : i == 1 ? lp(0, sym(1)) : kCtcNegInf;
    for (int64_t t = 1; t < T; ++t) {
      __syncthreads();
      const double* prev = arow(t - 1);
      double* cur = arow(t);
      for (int64_t i = threadIdx.x; i < S; i += blockDim.x) {
        double a = prev[i];
        if (i >= 1) a = CtcLogAdd(a, prev[i - 1]);
        if (can_skip(i)) a = CtcLogAdd(a, prev[i - 2]);
        cur[i] = a == kCtcNegInf ? kCtcNegInf : a + lp(t, sym(i));
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const double* last = arow(T - 1);
      log_p[n] = S > 1 ? CtcLogAdd(last[S - 1], last[S - 2]) : last[S - 1];
    }
    if constexpr (kBackward) {
      // beta[t][i]: log probability of the frames after t given state i at t (frame t not included)
      double* be = beta + tb.alpha_off[n];
      for (int64_t i = threadIdx.x; i < S; i += blockDim.x)
        be[(T - 1) * S + i] = (i == S - 1 || (S > 1 && i == S - 2)) ? 0.0 : kCtcNegInf;
      for (int64_t t = T - 2; t >= 0; --t) {
        __syncthreads();
        const double* nxt = be + (t + 1) * S;
        double* cur = be + t * S;
        for (int64_t i = threadIdx.x; i < S; i += blockDim.x) {
          double b = nxt[i] == kCtcNegInf ? kCtcNegInf : nxt[i] + lp(t + 1, sym(i));
          if (i + 1 < S && nxt[i + 1] != kCtcNegInf) b = CtcLogAdd(b, nxt[i + 1] + lp(t + 1, sym(i + 1)));
          if (i + 2 < S && can_skip(i + 2) && nxt[i + 2] != kCtcNegInf)
            b = CtcLogAdd(b, nxt[i + 2] + lp(t + 1, sym(i + 2)));
          cur[i] = b;
        }
      }
    }
    __syncthreads();  // the next sequence of this block reuses nothing, but keep the block in step
  }
}

/*! \brief Threads per recursion block: enough for the longest state sequence, 32 to 256. */
int RecursionThreads(const std::vector<CtcSample>& samples) {
  int64_t S = 1;
  for (const CtcSample& s : samples) S = std::max<int64_t>(S, 2 * static_cast<int64_t>(s.target.size()) + 1);
  return static_cast<int>(std::min<int64_t>(std::max<int64_t>(Pow2Ceil(S), 32), kThreads));
}

/*! \brief Scratch of one call, carved from kTempSpace. */
struct CtcScratch {
  double *norm, *log_p, *alpha, *beta;
  CtcTables tables;
};

/*!
 * \brief Reads the samples, uploads their tables, computes every row's normaliser and runs the
 *        recursions; returns the scratch holding log_p (and alpha, beta for the backward).
 */
template <typename D>
CtcScratch RunRecursions(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& fwd_in,
                         bool backward) {
  const cudaStream_t s = Stream(ctx);
  const std::vector<CtcSample> samples = ReadSamplesFromDevice(attrs, fwd_in, s);
  const int64_t T = fwd_in[0].shape_[0], N = fwd_in[0].shape_[1], C = fwd_in[0].shape_[2];
  const int64_t blank = attrs.get<CTCLossParam>().blank_label == 0 ? 0 : C - 1;
  const HostTables h = BuildTables(samples, backward);
  const size_t norm_b = layout::Words(sizeof(double) * T * N), logp_b = layout::Words(sizeof(double) * N);
  const size_t alpha_b = layout::Words(sizeof(double) * h.alpha_rows);
  const size_t tab_b = layout::Words(sizeof(int64_t) * h.data.size());
  char* sp = static_cast<char*>(
      ctx.requested[0].GetSpace(std::max<size_t>(norm_b + logp_b + alpha_b * (backward ? 2 : 1) + tab_b, 8)));
  CtcScratch c;
  c.norm = reinterpret_cast<double*>(sp);
  c.log_p = reinterpret_cast<double*>(sp + norm_b);
  c.alpha = reinterpret_cast<double*>(sp + norm_b + logp_b);
  c.beta = backward ? reinterpret_cast<double*>(sp + norm_b + logp_b + alpha_b) : nullptr;
  int64_t* tab = reinterpret_cast<int64_t*>(sp + norm_b + logp_b + alpha_b * (backward ? 2 : 1));
  // pageable source: the copy is staged before cudaMemcpyAsync returns, so h may go out of scope
  if (!h.data.empty())
    Check(cudaMemcpyAsync(tab, h.data.data(), sizeof(int64_t) * h.data.size(), cudaMemcpyHostToDevice, s),
          "CTCLoss: uploading the label tables");
  c.tables = DeviceTables(h, tab);
  if (N == 0) return c;
  const D* x = fwd_in[0].dptr<D>();
  const int64_t rows = T * N;
  if (rows > 0 && C > 0) {
    const GroupLayout l = MakeGroupLayout(true, C, 32);
    const int64_t blocks = std::min<int64_t>((rows + l.by - 1) / l.by, kMaxBlocks * 4);
    LogNormKernel<D><<<static_cast<int>(blocks), dim3(l.bx, l.by), GroupReduceSmem(kGroupThreads, sizeof(double)), s>>>(
        x, rows, C, c.norm);
    Check(cudaGetLastError(), "CTCLoss CUDA kernel (normaliser)");
  }
  const int threads = RecursionThreads(samples);
  const int blocks = static_cast<int>(std::min<int64_t>(N, kMaxBlocks * 4));
  if (backward) {
    CtcRecursionKernel<D, true><<<blocks, threads, 0, s>>>(x, N, C, blank, c.norm, c.tables, c.alpha, c.beta, c.log_p);
  } else {
    CtcRecursionKernel<D, false>
        <<<blocks, threads, 0, s>>>(x, N, C, blank, c.norm, c.tables, c.alpha, nullptr, c.log_p);
  }
  Check(cudaGetLastError(), "CTCLoss CUDA kernel (recursion)");
  return c;
}

void CtcForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, D, {
    const CtcScratch c = RunRecursions<D>(attrs, ctx, in, false);
    const double* log_p = c.log_p;
    D* y = out[0].dptr<D>();
    const OpReqType r = req[0];
    ForEach(
        Stream(ctx), in[0].shape_[1],
        [=] __device__(int64_t n) {
          const double lp = log_p[n];
          Store(y + n, r, lp == kCtcNegInf ? 0.0 : 0.0 - lp);  // 0 - x: no -0
        },
        "CTCLoss CUDA kernel (output)");
  });
}

/*! \brief inputs (ograd, data, label, [data_lengths], [label_lengths]); outputs one gradient per
 *         forward input, zero for all but data. */
void CtcBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const cudaStream_t s = Stream(ctx);
  for (size_t i = 1; i < out.size(); ++i) layout::ZeroForReq(s, out[i], req[i]);
  if (req[0] == kNullOp) return;
  const std::vector<TBlob> fwd_in(in.begin() + 1, in.end());
  const int64_t T = in[1].shape_[0], N = in[1].shape_[1], C = in[1].shape_[2];
  const int64_t blank = attrs.get<CTCLossParam>().blank_label == 0 ? 0 : C - 1;
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, D, {
    const CtcScratch c = RunRecursions<D>(attrs, ctx, fwd_in, true);
    const CtcTables tb = c.tables;
    const double *norm = c.norm, *log_p = c.log_p, *alpha = c.alpha, *beta = c.beta;
    const D* head = in[0].dptr<D>();
    const D* x = in[1].dptr<D>();
    D* dx = out[0].dptr<D>();
    const OpReqType r = req[0];
    ForEach(
        s, T * N * C,
        [=] __device__(int64_t j) {
          int64_t cl, n;
          const int64_t tn = DivMod(j, C, &cl);
          const int64_t t = DivMod(tn, N, &n);
          if (t >= tb.frames[n]) {  // frames past the sample's length do not affect its loss
            Store(dx + j, r, 0.0);
            return;
          }
          const double lp = log_p[n], scale = AsDouble(head[n]);
          const bool feasible = lp != kCtcNegInf;
          double d = 0.0;
          if (feasible) {
            const int64_t S = 2 * tb.len[n] + 1;
            const double* a = alpha + tb.alpha_off[n] + t * S;
            const double* b = beta + tb.alpha_off[n] + t * S;
            double occ = 0.0;
            auto add = [&](int64_t i) {
              if (a[i] != kCtcNegInf && b[i] != kCtcNegInf) occ += std::exp(a[i] + b[i] - lp);
            };
            if (cl == blank) {
              for (int64_t i = 0; i < S; i += 2) add(i);
            } else {  // the class's states, if the target holds it
              const int64_t* cls = tb.cls + tb.cls_off[n];
              int64_t lo = 0, hi = tb.cls_cnt[n];
              while (lo < hi) {
                const int64_t m = lo + (hi - lo) / 2;
                if (cls[m] < cl)
                  lo = m + 1;
                else
                  hi = m;
              }
              if (lo < tb.cls_cnt[n] && cls[lo] == cl) {
                const int64_t k = tb.cls_off[n] + lo;
                for (int64_t q = tb.pos_beg[k]; q < tb.pos_end[k]; ++q) add(tb.pos[q]);
              }
            }
            d = std::exp(AsDouble(x[j]) - norm[t * N + n]) - occ;
          }
          Store(dx + j, r, d * scale);
        },
        "_backward_CTCLoss CUDA kernel (gradient)");
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(CTCLoss, kGPU, cuda).set_compute(cuda::CtcForward);
MXNET_REGISTER_KERNEL(_backward_CTCLoss, kGPU, cuda).set_compute(cuda::CtcBackward);

}  // namespace op
}  // namespace mxnet
