/*!
 * \file onednn_pooling.cc
 * \brief oneDNN pooling on plain channel-first tensors: max and average forward (inference
 *        propagation, so the forward op keeps a single output and no workspace), average
 *        backward, and max backward, which re-runs the training forward to get oneDNN's
 *        arg-max workspace (see MaxPoolBackward).
 */
#if MXNET_USE_ONEDNN

#include <memory>

#include "operator/nn/onednn/onednn_layout.h"
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

/*! \brief Max backward: the training forward (for its workspace) and the backward primitive. */
struct MaxBwdEntry {
  dnnl::pooling_forward fwd;
  dnnl::pooling_backward bwd;
  dnnl::memory src, dst, ws, ddst, dsrc;  // dst and ws are owned scratch of this entry
};

}  // namespace

void PoolForward(const PoolDesc& p, const TBlob& x, const TBlob& y) {
  // A blocked x (from a conv or an activation) is pooled in its format and y left blocked;
  // otherwise plain in, plain out.
  std::shared_ptr<const BlockedData> bx = BlockedInput(0, x);
  if (bx && !CanLeaveBlocked(0, y)) bx.reset();
  if (!bx) PlainInput(0);
  const auto src = bx ? bx->desc() : PlainDesc(x);
  const auto plain_dst = PlainDesc(y);
  Key key = MakeKey(p, x, y);
  AddDescKey(&key, src);
  thread_local PrimitiveCache<FwdEntry> cache;
  FwdEntry& e = cache.Get(key, [&] {
    const auto dst = bx ? dnnl::memory::desc(plain_dst.dims(), plain_dst.data_type(), dnnl::memory::format_tag::any)
                        : plain_dst;
    dnnl::pooling_forward::primitive_desc pd(FwdDesc(p, src, dst, dnnl::prop_kind::forward_inference), CpuEngine());
    return FwdEntry{dnnl::pooling_forward(pd), dnnl::memory(src, CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(pd.dst_desc(), CpuEngine(), DNNL_MEMORY_NONE)};
  });
  std::shared_ptr<BlockedData> by;
  if (e.dst.get_desc() != plain_dst) by = std::make_shared<BlockedData>(e.dst.get_desc(), plain_dst);
  e.src.set_data_handle(bx ? bx->ptr() : x.dptr_);
  e.dst.set_data_handle(by ? by->ptr() : y.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}});
  s.wait();
  if (by) SetBlockedOutput(0, std::move(by));
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

void MaxPoolBackward(const PoolDesc& p, const TBlob& dy, const TBlob& x, const TBlob& dx) {
  // The forward op runs forward_inference and has no hidden workspace output (its output
  // count is MXNet's); re-running the training forward here costs one pooling pass and
  // replaces the plain kernel's window re-scan with oneDNN's vectorised scatter.
  thread_local PrimitiveCache<MaxBwdEntry> cache;
  MaxBwdEntry& e = cache.Get(MakeKey(p, x, dy), [&] {
    const auto src = PlainDesc(x), dst = PlainDesc(dy);
    dnnl::pooling_forward::primitive_desc fpd(FwdDesc(p, src, dst, dnnl::prop_kind::forward_training), CpuEngine());
    dnnl::pooling_backward::primitive_desc bpd(
        dnnl::pooling_backward::desc(Alg(p), src, dst, p.stride, p.kernel, p.pad_l, p.pad_r), CpuEngine(), fpd);
    return MaxBwdEntry{dnnl::pooling_forward(fpd),
                       dnnl::pooling_backward(bpd),
                       dnnl::memory(src, CpuEngine(), DNNL_MEMORY_NONE),
                       dnnl::memory(fpd.dst_desc(), CpuEngine()),
                       dnnl::memory(fpd.workspace_desc(), CpuEngine()),
                       dnnl::memory(bpd.diff_dst_desc(), CpuEngine(), DNNL_MEMORY_NONE),
                       dnnl::memory(bpd.diff_src_desc(), CpuEngine(), DNNL_MEMORY_NONE)};
  });
  e.src.set_data_handle(x.dptr_);
  e.ddst.set_data_handle(dy.dptr_);
  e.dsrc.set_data_handle(dx.dptr_);
  dnnl::stream& s = ThreadStream();
  e.fwd.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}, {DNNL_ARG_WORKSPACE, e.ws}});
  e.bwd.execute(s, {{DNNL_ARG_DIFF_DST, e.ddst}, {DNNL_ARG_WORKSPACE, e.ws}, {DNNL_ARG_DIFF_SRC, e.dsrc}});
  s.wait();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
