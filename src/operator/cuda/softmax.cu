/*!
 * \file softmax.cu
 * \brief CUDA kernels of softmax, log_softmax, softmin and their `_backward_*` ops
 *        (softmax.cc): the reference loops' math (temperature, length masking, float32
 *        compute for half types and float64 when either side is float64) with a group of
 *        lanes per row (group_reduce.cuh). The softmax axis innermost: lanes along x walk the
 *        row's contiguous elements; otherwise adjacent rows lie along x (coalesced) and lanes
 *        along y. Each row is read as the CPU reads it: its max, then the sum of exp(z - max),
 *        then the outputs, so NaN and infinities come out the same.
 */
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/group_reduce.cuh"
#include "operator/nn/softmax_param.h"

namespace mxnet {
namespace op {
namespace cuda {
namespace {

/*! \brief The length input (any dtype) of a masked softmax; null: no masking. */
struct LengthRef {
  const void* ptr{nullptr};
  int type{kInt32};

  /*! \brief Valid length of row r (softmax.cc's RowLength): clamped to [0, n]. */
  __device__ __forceinline__ int64_t Row(int64_t r, int64_t n) const {
    if (!ptr) return n;
    int64_t l = 0;
    switch (type) {
      case kFloat32: l = static_cast<int64_t>(static_cast<const float*>(ptr)[r]); break;
      case kFloat64: l = static_cast<int64_t>(static_cast<const double*>(ptr)[r]); break;
      case kFloat16: l = static_cast<int64_t>(static_cast<float>(static_cast<const half_t*>(ptr)[r])); break;
      case kBfloat16: l = static_cast<int64_t>(static_cast<float>(static_cast<const bf16_t*>(ptr)[r])); break;
      case kUint8: l = static_cast<const uint8_t*>(ptr)[r]; break;
      case kInt8: l = static_cast<const int8_t*>(ptr)[r]; break;
      case kInt32: l = static_cast<const int32_t*>(ptr)[r]; break;
      case kInt64: l = static_cast<const int64_t*>(ptr)[r]; break;
      case kBool: l = static_cast<const bool*>(ptr)[r]; break;
      default: break;
    }
    return l < 0 ? 0 : (l > n ? n : l);
  }
};

LengthRef LengthOf(const TBlob* len) {
  LengthRef l;
  if (len) {
    MXNET_TYPE_SWITCH(len->type_flag_, L, {});  // throws on a dtype the CPU kernel rejects
    l.ptr = len->dptr_;
    l.type = len->type_flag_;
  }
  return l;
}

/*! \brief A row of the (outer, n, inner) view: its first element, stride `inner`. */
struct RowView {
  int64_t rows, n, inner;
  __device__ __forceinline__ int64_t Base(int64_t r) const {
    int64_t i;
    const int64_t o = DivMod(r, inner, &i);
    return o * n * inner + i;
  }
};

/*! \brief Rows [blockIdx.x * rows_per_block, ...) strided by the grid; the block runs the loop together. */
#define MXNET_SOFTMAX_ROW_LOOP(v, body)                                                             \
  {                                                                                                 \
    const int lanes = lanes_x ? blockDim.x : blockDim.y;                                            \
    const int lane = lanes_x ? threadIdx.x : threadIdx.y;                                           \
    const int per_block = lanes_x ? blockDim.y : blockDim.x;                                        \
    for (int64_t rb = static_cast<int64_t>(blockIdx.x) * per_block; rb < v.rows;                   \
         rb += static_cast<int64_t>(gridDim.x) * per_block) {                                       \
      const int64_t r = rb + (lanes_x ? threadIdx.y : threadIdx.x);                                 \
      const bool valid = r < v.rows;                                                                \
      const int64_t base = valid ? v.Base(r) : 0, L = valid ? len.Row(r, v.n) : 0;                  \
      body                                                                                          \
    }                                                                                               \
  }

template <typename C>
__device__ __forceinline__ void MaxMerge(C& a, const C& b) {
  a = a < b ? b : a;  // std::max(a, b), as the CPU loop: a NaN never becomes the max
}

template <typename C>
__device__ __forceinline__ void AddMerge(C& a, const C& b) {
  a += b;
}

/*! \brief y = softmax (or log_softmax: kLog) of x * inv_t along the rows; 0 past a row's length. */
template <bool kLog, typename DI, typename DO, typename C>
__global__ void __launch_bounds__(1024) SoftmaxKernel(RowView v, LengthRef len, C inv_t, const DI* x, DO* y,
                                                      OpReqType req, bool lanes_x) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  C* smem = reinterpret_cast<C*>(smem_raw);
  MXNET_SOFTMAX_ROW_LOOP(v, {
    const int64_t st = v.inner;
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t k = lane; k < L; k += lanes) MaxMerge(mx, C(C(x[base + k * st]) * inv_t));
    mx = GroupReduce(mx, lanes_x, smem, MaxMerge<C>);
    C sum = 0;
    for (int64_t k = lane; k < L; k += lanes) sum += std::exp(C(x[base + k * st]) * inv_t - mx);
    sum = GroupReduce(sum, lanes_x, smem, AddMerge<C>);
    const C lse = mx + std::log(sum);
    if (valid) {
      for (int64_t k = lane; k < v.n; k += lanes) {
        C val = 0;
        if (k < L) {
          const C z = C(x[base + k * st]) * inv_t;
          val = kLog ? C(z - lse) : C(std::exp(z - lse));
        }
        Store(y + base + k * st, req, val);
      }
    }
  })
}

/*! \brief dx from dy and the output y: inv_t * y (dy - sum(dy y)), or inv_t * (dy - e^y sum(dy)) (kLog). */
template <bool kLog, typename DO, typename DI, typename C>
__global__ void __launch_bounds__(1024) SoftmaxGradKernel(RowView v, LengthRef len, C inv_t, const DO* dy,
                                                          const DO* y, DI* dx, OpReqType req, bool lanes_x) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  C* smem = reinterpret_cast<C*>(smem_raw);
  MXNET_SOFTMAX_ROW_LOOP(v, {
    const int64_t st = v.inner;
    C s = 0;
    for (int64_t k = lane; k < L; k += lanes) {
      const int64_t j = base + k * st;
      s += kLog ? C(dy[j]) : C(C(dy[j]) * C(y[j]));
    }
    s = GroupReduce(s, lanes_x, smem, AddMerge<C>);
    if (valid) {
      for (int64_t k = lane; k < v.n; k += lanes) {
        const int64_t j = base + k * st;
        C g = 0;
        if (k < L) g = kLog ? C(C(dy[j]) - std::exp(C(y[j])) * s) : C(C(y[j]) * (C(dy[j]) - s));
        Store(dx + j, req, C(g * inv_t));
      }
    }
  })
}

#undef MXNET_SOFTMAX_ROW_LOOP

/*! \brief Grid and blocks for rows of n elements (lanes up to a 1024-thread block for long rows). */
struct Launch {
  GroupLayout g;
  dim3 grid, block;
  Launch(const RowView& v, size_t state_bytes, size_t* smem) {
    g = MakeGroupLayout(v.inner == 1, v.n, 1024);
    const int64_t blocks = (v.rows + g.rows_per_block() - 1) / g.rows_per_block();
    grid = dim3(static_cast<unsigned>(std::min<int64_t>(blocks, 1 << 30)));
    block = dim3(g.bx, g.by);
    *smem = GroupReduceSmem(g.bx * g.by, state_bytes);
  }
};

RowView ViewOf(const AxisView& a) { return {a.outer * a.inner, a.n, a.inner}; }

template <typename DI, typename DO>
using ComputeOf = std::conditional_t<std::is_same_v<DI, double> || std::is_same_v<DO, double>, double, float>;

template <SoftmaxKind kKind>
void SoftmaxForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const double temp = Temperature(attrs);
  const RowView v = ViewOf(AxisView(attrs, in[0].shape_));
  if (v.rows == 0 || v.n == 0) return;
  const LengthRef len = LengthOf(UseLength(attrs) ? &in[1] : nullptr);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DI, {
    MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DO, {
      using C = ComputeOf<DI, DO>;
      const C inv_t = C(1) / C(temp) * (kKind == kSoftmin ? C(-1) : C(1));
      size_t smem;
      const Launch l(v, sizeof(C), &smem);
      SoftmaxKernel<kKind == kLogSoftmax><<<l.grid, l.block, smem, Stream(ctx)>>>(
          v, len, inv_t, in[0].dptr<DI>(), out[0].dptr<DO>(), req[0], l.g.lanes_x);
      Check(cudaGetLastError(), "CUDA softmax");
    });
  });
}

/*! \brief inputs (ograd, output, data [, length]); outputs (ddata [, dlength]). */
template <SoftmaxKind kKind>
void SoftmaxBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const bool use_len = UseLength(attrs);
  if (use_len && req[1] != kNullOp && req[1] != kAddTo && out[1].Size() > 0)
    Check(cudaMemsetAsync(out[1].dptr_, 0, out[1].Bytes(), Stream(ctx)), "CUDA softmax backward (dlength)");
  if (req[0] == kNullOp) return;
  const double temp = Temperature(attrs);
  const RowView v = ViewOf(AxisView(attrs, in[1].shape_));
  if (v.rows == 0 || v.n == 0) return;
  const LengthRef len = LengthOf(use_len ? &in[3] : nullptr);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DO, {
    MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DI, {
      using C = ComputeOf<DI, DO>;
      const C inv_t = C(1) / C(temp) * (kKind == kSoftmin ? C(-1) : C(1));
      size_t smem;
      const Launch l(v, sizeof(C), &smem);
      SoftmaxGradKernel<kKind == kLogSoftmax><<<l.grid, l.block, smem, Stream(ctx)>>>(
          v, len, inv_t, in[0].dptr<DO>(), in[1].dptr<DO>(), out[0].dptr<DI>(), req[0], l.g.lanes_x);
      Check(cudaGetLastError(), "CUDA softmax backward");
    });
  });
}

}  // namespace
}  // namespace cuda

MXNET_REGISTER_KERNEL(softmax, kGPU, cuda).set_compute(cuda::SoftmaxForward<kSoftmax>);
MXNET_REGISTER_KERNEL(log_softmax, kGPU, cuda).set_compute(cuda::SoftmaxForward<kLogSoftmax>);
MXNET_REGISTER_KERNEL(softmin, kGPU, cuda).set_compute(cuda::SoftmaxForward<kSoftmin>);
MXNET_REGISTER_KERNEL(_backward_softmax, kGPU, cuda).set_compute(cuda::SoftmaxBackward<kSoftmax>);
MXNET_REGISTER_KERNEL(_backward_log_softmax, kGPU, cuda).set_compute(cuda::SoftmaxBackward<kLogSoftmax>);
MXNET_REGISTER_KERNEL(_backward_softmin, kGPU, cuda).set_compute(cuda::SoftmaxBackward<kSoftmin>);

}  // namespace op
}  // namespace mxnet
