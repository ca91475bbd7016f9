/*!
 * \file random_samplers.cu
 * \brief CUDA kernels of the samplers with scalar parameters (_random_<dist>, _random_<dist>_like;
 *        sample_scalar.cc) and with per-element parameter arrays (_sample_<dist>; sample_rows.cc).
 *        Element i draws from ctx.requested[0].random.ForElement(i) with the distribution's Draw
 *        (samplers.h), the code the CPU kernels run, so a stream gives the same numbers on both
 *        devices up to the rounding of the transforms.
 */
#include <vector>

#include "mxnet/op.h"
#include "operator/cuda/cuda_kernel.cuh"
#include "operator/cuda/device_values.cuh"
#include "operator/cuda/segment_reduce.cuh"
#include "operator/random/dist_param.h"

namespace mxnet {
namespace op {
namespace cuda {

using random::Draws;

/*! \brief Every element's parameters are the op's scalar attributes. */
template <int kNumArgs>
struct ScalarArgs {
  double args[2];
  __device__ const double* operator()(int64_t) const { return args; }
};

/*! \brief Element i's parameters: row i / per of an element-major array of doubles. */
template <int kNumArgs>
struct RowArgs {
  const double* args;
  int64_t per;
  __device__ const double* operator()(int64_t i) const { return args + (i / per) * kNumArgs; }
};

/*! \brief y[i] = Draw(element i's sub-stream, args_of(i)) under req, converted to the output dtype once. */
template <typename Dist, typename ArgsOf>
void FillSamples(cudaStream_t stream, const TBlob& out, OpReqType req, const RandomStream& rs, ArgsOf args_of) {
  if (req == kNullOp) return;
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    DType* y = out.dptr<DType>();
    ForEach(
        stream, out.Size(),
        [=] __device__(int64_t i) {
          Draws e = rs.ForElement(i);
          StoreReq(y + i, req, static_cast<DType>(Dist::Draw(&e, args_of(i))));
        },
        "random sampler");
  });
}

template <typename Dist, bool kSized>
void ScalarSampleCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>&,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double* a = attrs.get<random::DistParam<Dist, kSized>>().args;
  FillSamples<Dist>(Stream(ctx), out[0], req[0], ctx.requested[0].random, ScalarArgs<Dist::kNumArgs>{{a[0], a[1]}});
}

/*!
 * \brief _sample_<dist>: the parameter arrays are gathered as doubles, element-major, into temp
 *        space (as the CPU kernel reads them) and checked there; the first invalid element raises
 *        the CPU kernel's ValueError. Then `per` samples are drawn from each element's parameters.
 */
template <typename Dist>
void RowsCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  constexpr int kN = Dist::kNumArgs;
  const int64_t n = in[0].Size();
  if (n == 0) return;
  cudaStream_t stream = Stream(ctx);
  char* space = static_cast<char*>(ctx.requested[1].GetSpace(sizeof(double) * (n * kN + 1)));
  const FirstIndex bad{reinterpret_cast<unsigned long long*>(space)};  // NOLINT(runtime/int)
  double* args = reinterpret_cast<double*>(space) + 1;
  bad.Clear(stream);
  for (int k = 0; k < kN; ++k) {
    MXNET_REAL_TYPE_SWITCH(in[k].type_flag_, PType, {
      const PType* p = in[k].dptr<PType>();
      ForEach(stream, n, [=] __device__(int64_t j) { args[j * kN + k] = static_cast<double>(p[j]); });
    });
  }
  ForEach(stream, n, [=] __device__(int64_t j) {
    if (Dist::Invalid(args + j * kN) != nullptr) bad.Report(j);
  });
  const int64_t j = bad.Read(stream);
  if (j >= 0) {
    double host[kN];
    CopyToHostNow(host, args + j * kN, sizeof(host), stream);
    random::ThrowBadRowArgs<Dist>(attrs.op->name, host, j);
  }
  FillSamples<Dist>(stream, out[0], req[0], ctx.requested[0].random, RowArgs<kN>{args, out[0].Size() / n});
}

}  // namespace cuda

#define MXNET_CUDA_SAMPLER(dist, Dist)                                                                        \
  MXNET_REGISTER_KERNEL(_random_##dist, kGPU, cuda).set_compute(cuda::ScalarSampleCompute<random::Dist, true>); \
  MXNET_REGISTER_KERNEL(_sample_##dist, kGPU, cuda).set_compute(cuda::RowsCompute<random::Dist>);              \
  MXNET_REGISTER_KERNEL(_random_##dist##_like, kGPU, cuda)                                                    \
      .set_compute(cuda::ScalarSampleCompute<random::Dist, false>);
MXNET_CUDA_SAMPLER(uniform, UniformDist)
MXNET_CUDA_SAMPLER(normal, NormalDist)
MXNET_CUDA_SAMPLER(gamma, GammaDist)
MXNET_CUDA_SAMPLER(exponential, ExponentialDist)
MXNET_CUDA_SAMPLER(poisson, PoissonDist)
MXNET_CUDA_SAMPLER(negative_binomial, NegBinomialDist)
MXNET_CUDA_SAMPLER(generalized_negative_binomial, GenNegBinomialDist)
#undef MXNET_CUDA_SAMPLER
// randint has neither a _sample_ nor a _like variant.
MXNET_REGISTER_KERNEL(_random_randint, kGPU, cuda).set_compute(cuda::ScalarSampleCompute<random::RandintDist, true>);

}  // namespace op
}  // namespace mxnet
