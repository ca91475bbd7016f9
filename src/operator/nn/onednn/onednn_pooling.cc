/*!
 * \file onednn_pooling.cc
 * \brief oneDNN pooling on plain channel-first tensors: max and average forward (inference
 *        propagation, so max needs no workspace) and average backward.
 */
#if MXNET_USE_ONEDNN

#include "operator/nn/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

dnnl::algorithm Alg(const PoolDesc& p) {
  if (p.max) return dnnl::algorithm::pooling_max;
  return p.include_pad ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
}

Key MakeKey(const PoolDesc& p, const TBlob& a, const TBlob& b) {
  Key k;
  k.Add(a).Add(b.shape_).Add(p.max).Add(p.include_pad);
  for (auto* v : {&p.kernel, &p.stride, &p.pad_l, &p.pad_r})
    for (int64_t x : *v) k.Add(x);
  return k;
}

dnnl::pooling_forward::desc FwdDesc(const PoolDesc& p, const dnnl::memory::desc& src, const dnnl::memory::desc& dst,
                                    dnnl::prop_kind prop) {
  return dnnl::pooling_forward::desc(prop, Alg(p), src, dst, p.stride, p.kernel, p.pad_l, p.pad_r);
}

struct FwdEntry {
  dnnl::pooling_forward prim;
  dnnl::memory src, dst;
};
struct BwdEntry {
  dnnl::pooling_backward prim;
  dnnl::memory ddst, dsrc;
};

}  // namespace

void PoolForward(const PoolDesc& p, const TBlob& x, const TBlob& y) {
  thread_local PrimitiveCache<FwdEntry> cache;
  FwdEntry& e = cache.Get(MakeKey(p, x, y), [&] {
    const auto src = PlainDesc(x), dst = PlainDesc(y);
    dnnl::pooling_forward::primitive_desc pd(FwdDesc(p, src, dst, dnnl::prop_kind::forward_inference), CpuEngine());
    return FwdEntry{dnnl::pooling_forward(pd), dnnl::memory(src, CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(dst, CpuEngine(), DNNL_MEMORY_NONE)};
  });
  e.src.set_data_handle(x.dptr_);
  e.dst.set_data_handle(y.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}});
  s.wait();
}

void AvgPoolBackward(const PoolDesc& p, const TBlob& dy, const TBlob& dx) {
  thread_local PrimitiveCache<BwdEntry> cache;
  BwdEntry& e = cache.Get(MakeKey(p, dx, dy), [&] {
    const auto src = PlainDesc(dx), dst = PlainDesc(dy);
    dnnl::pooling_forward::primitive_desc hint(FwdDesc(p, src, dst, dnnl::prop_kind::forward_training), CpuEngine());
    dnnl::pooling_backward::primitive_desc pd(
        dnnl::pooling_backward::desc(Alg(p), src, dst, p.stride, p.kernel, p.pad_l, p.pad_r), CpuEngine(), hint);
    return BwdEntry{dnnl::pooling_backward(pd), dnnl::memory(dst, CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(src, CpuEngine(), DNNL_MEMORY_NONE)};
  });
  e.ddst.set_data_handle(dy.dptr_);
  e.dsrc.set_data_handle(dx.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_DIFF_DST, e.ddst}, {DNNL_ARG_DIFF_SRC, e.dsrc}});
  s.wait();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
