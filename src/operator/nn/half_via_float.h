/*!
 * \file half_via_float.h
 * \brief float16 / bfloat16 for the GEMM-based kernels (convolution, deconvolution, fully
 *        connected) where no native path takes them: bfloat16 runs natively on oneDNN when
 *        it is enabled (avx512_bf16), float16 has no CPU GEMM or oneDNN kernel on this
 *        machine, and the plain kernels are float32/float64 only. Such calls widen every
 *        input to a float32 copy, run the float32 kernel list (RunKernelPlain) and narrow the
 *        outputs back, so half types are a slower path, never a type error. The callers are
 *        reference kernels, whose inputs the dispatcher has made plain.
 */
#ifndef MXNET_OPERATOR_NN_HALF_VIA_FLOAT_H_
#define MXNET_OPERATOR_NN_HALF_VIA_FLOAT_H_

#include <memory>
#include <vector>

#include "mxnet/ndarray.h"
#include "mxnet/op.h"
#include "mxnet/tensor.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

inline bool IsHalfType(int dtype) { return dtype == kFloat16 || dtype == kBfloat16; }

namespace half_detail {
template <typename S, typename D>
inline void Convert(const void* src, void* dst, int64_t n) {
  const S* s = static_cast<const S*>(src);
  D* d = static_cast<D*>(dst);
  ParallelFor(n, [&](int64_t i) { d[i] = static_cast<D>(static_cast<float>(s[i])); });
}
inline void Widen(const TBlob& half, float* f) {
  if (half.type_flag_ == kFloat16)
    Convert<half_t, float>(half.dptr_, f, half.Size());
  else
    Convert<bf16_t, float>(half.dptr_, f, half.Size());
}
inline void Narrow(const float* f, const TBlob& half) {
  if (half.type_flag_ == kFloat16)
    Convert<float, half_t>(f, half.dptr_, half.Size());
  else
    Convert<float, bf16_t>(f, half.dptr_, half.Size());
}
}  // namespace half_detail

/*!
 * \brief Runs fn on float32 copies of the half-typed blobs in `in` and `out` (others are
 *        passed through). kAddTo outputs are widened first so the kernel accumulates in
 *        float32; every half output is narrowed back afterwards (kNullOp ones are skipped).
 */
template <typename F>
void ComputeInFloat32(const std::vector<TBlob>& in, const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                      F&& fn) {
  std::vector<std::unique_ptr<float[]>> bufs;
  auto widen = [&bufs](const TBlob& b, bool copy) {
    if (!IsHalfType(b.type_flag_)) return b;
    bufs.emplace_back(new float[b.Size() > 0 ? b.Size() : 1]);
    if (copy) half_detail::Widen(b, bufs.back().get());
    return TBlob(bufs.back().get(), b.shape_, kFloat32, b.ctx_);
  };
  // The float32 copies are not the arrays' memory: no blocked layouts read or installed.
  KernelArraysScope no_arrays(nullptr);
  std::vector<TBlob> fin, fout;
  for (const TBlob& b : in) fin.push_back(widen(b, true));
  for (size_t i = 0; i < out.size(); ++i) fout.push_back(widen(out[i], req[i] == kAddTo));
  fn(fin, req, fout);
  for (size_t i = 0; i < out.size(); ++i)
    if (req[i] != kNullOp && IsHalfType(out[i].type_flag_)) half_detail::Narrow(fout[i].dptr<float>(), out[i]);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_HALF_VIA_FLOAT_H_
