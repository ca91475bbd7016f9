/*!
 * \file onednn_norm_backward.h
 * \brief What batch and layer normalization backward share: memory objects created
 *        without data (bound per call), and one executor for their common argument set.
 */
#ifndef MXNET_OPERATOR_ONEDNN_ONEDNN_NORM_BACKWARD_H_
#define MXNET_OPERATOR_ONEDNN_ONEDNN_NORM_BACKWARD_H_

#if MXNET_USE_ONEDNN

#include <unordered_map>

#include "operator/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

/*! \brief A memory object for desc d whose data pointer is set before each execution. */
inline dnnl::memory UnboundMemory(const dnnl::memory::desc& d) {
  return dnnl::memory(d, CpuEngine(), DNNL_MEMORY_NONE);
}

/*! \brief Operands of a normalization backward primitive, in a cached entry. */
struct NormBackwardOperands {
  dnnl::memory ddst, src, scale, mean, var, dsrc, dscale, dshift;
};

/*! \brief Binds the arrays of one call and runs a batch- or layer-norm backward primitive. */
inline void ExecuteNormBackward(const dnnl::primitive& prim, NormBackwardOperands* m, const TBlob& dy, const TBlob& x,
                                const float* gamma, const float* mean, const float* var, const TBlob& dx, float* dgamma,
                                float* dbeta, const dnnl::memory* workspace = nullptr) {
  m->ddst.set_data_handle(dy.dptr_);
  m->src.set_data_handle(x.dptr_);
  m->scale.set_data_handle(const_cast<float*>(gamma));
  m->mean.set_data_handle(const_cast<float*>(mean));
  m->var.set_data_handle(const_cast<float*>(var));
  m->dsrc.set_data_handle(dx.dptr_);
  m->dscale.set_data_handle(dgamma);
  m->dshift.set_data_handle(dbeta);
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_DIFF_DST, m->ddst},     {DNNL_ARG_SRC, m->src},          {DNNL_ARG_SCALE, m->scale},
      {DNNL_ARG_SHIFT, m->scale},  // oneDNN 2.6 checks it is bound though backward never reads it
      {DNNL_ARG_MEAN, m->mean},         {DNNL_ARG_VARIANCE, m->var},     {DNNL_ARG_DIFF_SRC, m->dsrc},
      {DNNL_ARG_DIFF_SCALE, m->dscale}, {DNNL_ARG_DIFF_SHIFT, m->dshift}};
  if (workspace) args.emplace(DNNL_ARG_WORKSPACE, *workspace);  // the fused ReLU's mask
  dnnl::stream& s = ThreadStream();
  prim.execute(s, args);
  s.wait();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
#endif  // MXNET_OPERATOR_ONEDNN_ONEDNN_NORM_BACKWARD_H_
