/*!
 * \file onednn_softmax.cc
 * \brief oneDNN softmax and logsoftmax (forward and backward) along one axis of a plain
 *        float32 tensor.
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_norm_backward.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

template <bool kLog>
struct P;
template <>
struct P<false> {
  using Fwd = dnnl::softmax_forward;
  using Bwd = dnnl::softmax_backward;
};
template <>
struct P<true> {
  using Fwd = dnnl::logsoftmax_forward;
  using Bwd = dnnl::logsoftmax_backward;
};

template <bool kLog>
struct FwdEntry {
  typename P<kLog>::Fwd prim;
  dnnl::memory src, dst;
};
template <bool kLog>
struct BwdEntry {
  typename P<kLog>::Bwd prim;
  dnnl::memory ddst, dst, dsrc;
};

template <bool kLog>
void Forward(const TBlob& x, const TBlob& y, int axis) {
  thread_local PrimitiveCache<FwdEntry<kLog>> cache;
  FwdEntry<kLog>& e = cache.Get(Key().Add(x).Add(axis), [&] {
    const auto d = PlainDesc(x);
    typename P<kLog>::Fwd::primitive_desc pd(typename P<kLog>::Fwd::desc(dnnl::prop_kind::forward_training, d, axis),
                                             CpuEngine());
    return FwdEntry<kLog>{typename P<kLog>::Fwd(pd), UnboundMemory(d), UnboundMemory(d)};
  });
  e.src.set_data_handle(x.dptr_);
  e.dst.set_data_handle(y.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}});
  s.wait();
}

template <bool kLog>
void Backward(const TBlob& dy, const TBlob& y, const TBlob& dx, int axis) {
  thread_local PrimitiveCache<BwdEntry<kLog>> cache;
  BwdEntry<kLog>& e = cache.Get(Key().Add(y).Add(axis), [&] {
    const auto d = PlainDesc(y);
    typename P<kLog>::Fwd::primitive_desc hint(typename P<kLog>::Fwd::desc(dnnl::prop_kind::forward_training, d, axis),
                                               CpuEngine());
    typename P<kLog>::Bwd::primitive_desc pd(typename P<kLog>::Bwd::desc(d, d, axis), CpuEngine(), hint);
    return BwdEntry<kLog>{typename P<kLog>::Bwd(pd), UnboundMemory(d), UnboundMemory(d), UnboundMemory(d)};
  });
  e.ddst.set_data_handle(dy.dptr_);
  e.dst.set_data_handle(y.dptr_);
  e.dsrc.set_data_handle(dx.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_DIFF_DST, e.ddst}, {DNNL_ARG_DST, e.dst}, {DNNL_ARG_DIFF_SRC, e.dsrc}});
  s.wait();
}

}  // namespace

void SoftmaxForward(bool log, const TBlob& x, const TBlob& y, int axis) {
  if (log)
    Forward<true>(x, y, axis);
  else
    Forward<false>(x, y, axis);
}

void SoftmaxBackward(bool log, const TBlob& dy, const TBlob& y, const TBlob& dx, int axis) {
  if (log)
    Backward<true>(dy, y, dx, axis);
  else
    Backward<false>(dy, y, dx, axis);
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
