/*!
 * \file random_multinomial.cu
 * \brief CUDA kernels of _sample_multinomial and _backward_sample_multinomial (multinomial.cc).
 *        Draw i takes u = ForElement(i).UniformD() and the inverse-CDF pick of multinomial.h, as
 *        on the CPU. Rows of probabilities are checked on the device first; the first bad row is
 *        copied back and raises the CPU kernel's ValueError.
 */
#include <cmath>
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"
#include "operator/cuda/segment_reduce.cuh"
#include "operator/random/multinomial.h"

namespace mxnet {
namespace op {
namespace cuda {

/*! \brief Throws the CPU kernel's ValueError for the first row (of k values) that is invalid. */
template <typename DType>
void CheckRows(const std::string& op, cudaStream_t stream, const DType* x, int64_t rows, int64_t k,
               const FirstIndex& bad) {
  bad.Clear(stream);
  SegmentSum<2>(
      stream, rows, k,
      [=] __device__(int64_t r, int64_t t, double* acc) {
        const double v = static_cast<double>(x[r * k + t]);
        acc[0] += v;
        acc[1] += v >= 0.0 && isfinite(v) ? 0.0 : 1.0;
      },
      [=] __device__(int64_t r, const double* sums) {
        if (sums[1] > 0.0 || !(sums[0] > 0.0)) bad.Report(r);
      },
      "multinomial probability check");
  const int64_t r = bad.Read(stream);
  if (r < 0) return;
  std::vector<DType> row(static_cast<size_t>(k));
  CopyToHostNow(row.data(), x + r * k, sizeof(DType) * k, stream);
  std::vector<double> p(row.begin(), row.end());
  random::CheckProbabilityRow(op, p.data(), k, r);
}

void MultinomialCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& d = in[0].shape_;
  const int64_t rows = d.ProdShape(0, d.ndim() - 1), k = d[d.ndim() - 1];
  const int64_t n = out[0].Size();
  if (rows == 0) return;
  const int64_t per = n / rows;
  cudaStream_t stream = Stream(ctx);
  const RandomStream rs = ctx.requested[0].random;
  const FirstIndex bad{static_cast<unsigned long long*>(ctx.requested[1].GetSpace(8))};  // NOLINT(runtime/int)
  const bool get_prob = out.size() > 1;
  const OpReqType r0 = req[0], r1 = get_prob ? req[1] : kNullOp;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, PType, {
    const PType* x = in[0].dptr<PType>();
    CheckRows(attrs.op->name, stream, x, rows, k, bad);  // as on the CPU, even when nothing is drawn
    if (n == 0) return;
    PType* lp = get_prob ? out[1].dptr<PType>() : nullptr;
    MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
      DType* y = out[0].dptr<DType>();
      ForEach(
          stream, n,
          [=] __device__(int64_t i) {
            const PType* row = x + (i / per) * k;
            const int64_t j = random::InverseCdfPick(row, k, rs.ForElement(i).UniformD());
            AssignReqDevice(y + i, r0, j);
            if (r1 != kNullOp) AssignReqDevice(lp + i, r1, log(static_cast<double>(row[j])));
          },
          "multinomial sampling");
    });
  });
}

/*!
 * \brief (ograd of the log-probabilities, data, samples) -> d/d data: per row and category, the
 *        sum of ograd / p over the draws that picked it, accumulated in double in temp space.
 */
void MultinomialBackward(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& d = in[1].shape_;
  const int64_t rows = d.ProdShape(0, d.ndim() - 1), k = d[d.ndim() - 1];
  const int64_t n = in[0].Size();
  if (rows * k == 0) return;
  const int64_t per = n / rows;
  cudaStream_t stream = Stream(ctx);
  double* acc = static_cast<double*>(ctx.requested[0].GetSpace(sizeof(double) * rows * k));
  Check(cudaMemsetAsync(acc, 0, sizeof(double) * rows * k, stream), "multinomial backward");
  const OpReqType r = req[0];
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const DType* og = in[0].dptr<DType>();
    const DType* x = in[1].dptr<DType>();
    DType* g = out[0].dptr<DType>();
    MXNET_TYPE_SWITCH(in[2].type_flag_, SType, {
      const SType* s = in[2].dptr<SType>();
      ForEach(stream, n, [=] __device__(int64_t i) {
        const int64_t row = i / per, j = static_cast<int64_t>(s[i]);
        if (j < 0 || j >= k) return;  // not a category: no term (the CPU would index out of bounds)
        atomicAdd(acc + row * k + j, static_cast<double>(og[i]) / static_cast<double>(x[row * k + j]));
      });
    });
    ForEach(stream, rows * k, [=] __device__(int64_t e) { StoreReq(g + e, r, static_cast<DType>(acc[e])); });
  });
}

}  // namespace cuda

MXNET_REGISTER_KERNEL(_sample_multinomial, kGPU, cuda).set_compute(cuda::MultinomialCompute);
MXNET_REGISTER_KERNEL(_backward_sample_multinomial, kGPU, cuda).set_compute(cuda::MultinomialBackward);

}  // namespace op
}  // namespace mxnet
