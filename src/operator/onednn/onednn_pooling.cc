/*!
 * \file onednn_pooling.cc
 * \brief Pooling on channel-first tensors, plain or blocked: the lane kernels
 *        (max_pool_lanes.h) for 2-D float32 max pooling, both ways, and oneDNN: max and average forward (inference propagation, so the forward
 *        op keeps a single output and no workspace), average backward, and max backward, which
 *        re-runs the training forward to get oneDNN's arg-max workspace (see MaxPoolBackward).
 *        Backward reads blocked gradients and inputs and leaves dx blocked where the op allows
 *        (onednn_operand.h).
 */
#if MXNET_USE_ONEDNN

#include <memory>
#include <string>
#include <utility>

#include "operator/nn/max_pool_lanes.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_operand.h"
#include "operator/onednn/onednn_ops.h"
#include "operator/onednn/onednn_pooling.h"

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
  bool plain_is_slow{false};  // plain src, and oneDNN's kernel for it is not JIT
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

/*!
 * \brief The cached forward for input format `src`: blocked, with y in the primitive's choice,
 *        or plain in and plain out.
 */
FwdEntry& ForwardEntry(const PoolDesc& p, const TBlob& x, const TBlob& y, const dnnl::memory::desc& src, bool blocked) {
  Key key = MakeKey(p, x, y);
  AddDescKey(&key, src);
  thread_local PrimitiveCache<FwdEntry> cache;
  return cache.Get(key, [&] {
    const auto plain_dst = PlainDesc(y);
    const auto dst = blocked
                         ? dnnl::memory::desc(plain_dst.dims(), plain_dst.data_type(), dnnl::memory::format_tag::any)
                         : plain_dst;
    dnnl::pooling_forward::primitive_desc pd(FwdDesc(p, src, dst, dnnl::prop_kind::forward_inference), CpuEngine());
    const std::string impl = pd.impl_info_str();
    return FwdEntry{dnnl::pooling_forward(pd), dnnl::memory(src, CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(pd.dst_desc(), CpuEngine(), DNNL_MEMORY_NONE),
                    !blocked && (impl.rfind("simple", 0) == 0 || impl.rfind("ref", 0) == 0)};
  });
}

/*!
 * \brief The lane kernels' geometry (max_pool_lanes.h) for 2-D max pooling of x stored as `src`
 *        into y shaped `out`, and src's format; false when src is not lane-stored float32.
 */
bool LaneGeom(const PoolDesc& p, const dnnl::memory::desc& src, const TShape& out, MaxPool2DGeom* g,
              dnnl::memory::format_tag* tag) {
  int64_t lanes;
  if (!p.max || p.kernel.size() != 2 || src.data.ndims != 4 || src.data_type() != dnnl::memory::data_type::f32 ||
      !ChannelLanes(src, tag, &lanes))
    return false;
  const auto& d = src.data;
  g->N = d.dims[0];
  g->B = lanes;
  g->Cb = d.padded_dims[1] / lanes;
  g->H = d.dims[2];
  g->W = d.dims[3];
  g->OH = out[2];
  g->OW = out[3];
  g->kh = p.kernel[0];
  g->kw = p.kernel[1];
  g->sh = p.stride[0];
  g->sw = p.stride[1];
  g->ph = p.pad_l[0];
  g->pw = p.pad_l[1];
  return true;
}

/*!
 * \brief Max pooling of a channel-blocked or NHWC float32 x by the lane kernel, y left in x's
 *        format; false when that does not apply.
 */
bool LaneMaxPoolForward(const PoolDesc& p, const BlockedData& bx, const TBlob& y) {
  MaxPool2DGeom g;
  dnnl::memory::format_tag tag;
  if (y.Size() == 0 || !LaneGeom(p, bx.desc(), y.shape_, &g, &tag) || tag == dnnl::memory::format_tag::abcd)
    return false;
  const auto plain_dst = PlainDesc(y);
  auto by = std::make_shared<BlockedData>(dnnl::memory::desc(plain_dst.dims(), plain_dst.data_type(), tag), plain_dst);
  MaxPool2DForward(g, static_cast<const float*>(bx.ptr()), static_cast<float*>(by->ptr()));
  SetBlockedOutput(0, std::move(by));
  return true;
}

}  // namespace

bool HoldsChannelLanes(const OpaqueLayout* layout, bool plain_too) {
  const auto* b = dynamic_cast<const BlockedData*>(layout);
  dnnl::memory::format_tag tag;
  int64_t lanes;
  return b && ChannelLanes(b->desc(), &tag, &lanes) && (plain_too || tag != dnnl::memory::format_tag::abcd);
}

bool PlainPoolIsSlow(const PoolDesc& p, const TBlob& x, const TBlob& y) {
  return ForwardEntry(p, x, y, PlainDesc(x), false).plain_is_slow;
}

void PoolForward(const PoolDesc& p, const TBlob& x, const TBlob& y) {
  // A blocked x (from a conv or an activation) is pooled in its format and y left blocked;
  // so is a plain 4-D float32 x that oneDNN pools only with a non-JIT kernel (AVX2 max pooling
  // 3x3/2 of AlexNet's 1x64x55x55 took 2.1-2.3 ms on "simple_nchw", against 0.05 ms to copy it
  // into channel blocks and about 0.1 ms to pool there); otherwise plain in, plain out.
  std::shared_ptr<const BlockedData> bx = BlockedInput(0, x);
  const bool leave_blocked = CanLeaveBlocked(0, y);
  if (bx && !leave_blocked) bx.reset();
  if (!bx) PlainInput(0);
  FwdEntry* e = &ForwardEntry(p, x, y, bx ? bx->desc() : PlainDesc(x), bx != nullptr);
  if (e->plain_is_slow && leave_blocked && x.shape_.ndim() == 4 && x.type_flag_ == kFloat32) {
    const auto plain_x = PlainDesc(x);
    auto blocked = std::make_shared<BlockedData>(
        dnnl::memory::desc(plain_x.dims(), plain_x.data_type(), NativeChannelBlocking()), plain_x);
    blocked->FromPlain(x.dptr_);
    bx = std::move(blocked);
    e = &ForwardEntry(p, x, y, bx->desc(), true);
  }
  const auto plain_dst = PlainDesc(y);
  std::shared_ptr<BlockedData> by;
  if (e->dst.get_desc() != plain_dst) by = std::make_shared<BlockedData>(e->dst.get_desc(), plain_dst);
  e->src.set_data_handle(bx ? bx->ptr() : x.dptr_);
  e->dst.set_data_handle(by ? by->ptr() : y.dptr_);
  dnnl::stream& s = ThreadStream();
  e->prim.execute(s, {{DNNL_ARG_SRC, e->src}, {DNNL_ARG_DST, e->dst}});
  s.wait();
  if (by) SetBlockedOutput(0, std::move(by));
}

void MaxPoolLanesForward(const PoolDesc& p, const TBlob& x, const TBlob& y) {
  if (y.Size() == 0) return;
  // Blocked x: pooled in its format, y left there. A plain x is copied into channel blocks
  // when y may stay blocked (PoolForward says why), else pooled in place with one lane.
  const bool leave_blocked = CanLeaveBlocked(0, y);
  if (const auto bx = BlockedInput(0, x); bx && leave_blocked && LaneMaxPoolForward(p, *bx, y)) return;
  PlainInput(0);
  const auto plain_x = PlainDesc(x);
  if (leave_blocked) {
    BlockedData blocked(dnnl::memory::desc(plain_x.dims(), plain_x.data_type(), NativeChannelBlocking()), plain_x);
    blocked.FromPlain(x.dptr_);
    if (LaneMaxPoolForward(p, blocked, y)) return;
  }
  MaxPool2DGeom g;
  dnnl::memory::format_tag tag;
  MX_CHECK(LaneGeom(p, plain_x, y.shape_, &g, &tag)) << "Pooling: the lane kernel takes 2-D float32 max pooling only";
  MaxPool2DForward(g, x.dptr<float>(), y.dptr<float>());
}

void AvgPoolBackward(const PoolDesc& p, const TBlob& dy, const TBlob& dx) {
  // A blocked dy (from a blocked backward chain) is read in its format and dx written in the
  // format oneDNN pairs with it; plain otherwise.
  const auto bdy = BlockedInput(0, dy);
  const auto plain_src = PlainDesc(dx), plain_dst = PlainDesc(dy);
  const auto dst = bdy ? bdy->desc() : plain_dst;
  Key key = MakeKey(p, dx, dy);
  AddDescKey(&key, dst);
  thread_local PrimitiveCache<BwdEntry> cache;
  BwdEntry& e = cache.Get(key, [&] {
    const auto src =
        bdy ? dnnl::memory::desc(plain_src.dims(), plain_src.data_type(), dnnl::memory::format_tag::any) : plain_src;
    dnnl::pooling_forward::primitive_desc hint(FwdDesc(p, src, dst, dnnl::prop_kind::forward_training), CpuEngine());
    dnnl::pooling_backward::primitive_desc pd(
        dnnl::pooling_backward::desc(Alg(p), src, dst, p.stride, p.kernel, p.pad_l, p.pad_r), CpuEngine(), hint);
    return BwdEntry{dnnl::pooling_backward(pd), dnnl::memory(pd.diff_dst_desc(), CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(pd.diff_src_desc(), CpuEngine(), DNNL_MEMORY_NONE)};
  });
  InputOperand gy(0, dy, plain_dst, e.ddst.get_desc());
  OutputOperand gx(0, dx, plain_src, e.dsrc.get_desc());
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_DIFF_DST, gy.mem()}, {DNNL_ARG_DIFF_SRC, gx.mem()}});
  gx.Finish();
  s.wait();
}

namespace {

/*! \brief 2-D float32 max pooling backward on plain or nChw{8,16}c data; false if not that case. */
bool DirectMaxPool2DBackward(const PoolDesc& p, const TBlob& dy, const TBlob& x, const TBlob& dx,
                             const std::shared_ptr<const BlockedData>& bx) {
  const auto plain_src = PlainDesc(x), plain_dst = PlainDesc(dy);
  const auto src = bx ? bx->desc() : plain_src;
  MaxPool2DGeom g;
  dnnl::memory::format_tag tag;
  if (dx.Size() == 0 || !LaneGeom(p, src, dy.shape_, &g, &tag)) return false;
  InputOperand in(1, x, plain_src, src);
  InputOperand gy(0, dy, plain_dst, dnnl::memory::desc(plain_dst.dims(), plain_dst.data_type(), tag));
  OutputOperand gx(0, dx, plain_src, src);
  MaxPool2DBackward(g, static_cast<const float*>(in.mem().get_data_handle()),
                    static_cast<const float*>(gy.mem().get_data_handle()),
                    static_cast<float*>(gx.mem().get_data_handle()));
  gx.Finish();
  ThreadStream().wait();
  return true;
}

}  // namespace

void MaxPoolLanesBackward(const PoolDesc& p, const TBlob& dy, const TBlob& x, const TBlob& dx) {
  if (dx.Size() == 0) return;
  MX_CHECK(DirectMaxPool2DBackward(p, dy, x, dx, BlockedInput(1, x)))
      << "_backward_Pooling: the lane kernel takes 2-D float32 max pooling of plain or channel-lane data only";
}

void MaxPoolBackward(const PoolDesc& p, const TBlob& dy, const TBlob& x, const TBlob& dx) {
  // The forward op runs forward_inference and has no hidden workspace output (its output
  // count is MXNet's); re-running the training forward here costs one pooling pass and
  // replaces the plain kernel's window re-scan with oneDNN's vectorised scatter. When x is
  // blocked (a conv/relu output) everything runs in x's format and dx stays in it, so the
  // backward of the op before reads it without a reorder.
  const auto bx = BlockedInput(1, x);
  const auto plain_src = PlainDesc(x), plain_dst = PlainDesc(dy);
  const auto src = bx ? bx->desc() : plain_src;
  Key key = MakeKey(p, x, dy);
  AddDescKey(&key, src);
  thread_local PrimitiveCache<MaxBwdEntry> cache;
  MaxBwdEntry& e = cache.Get(key, [&] {
    const auto dst =
        bx ? dnnl::memory::desc(plain_dst.dims(), plain_dst.data_type(), dnnl::memory::format_tag::any) : plain_dst;
    dnnl::pooling_forward::primitive_desc fpd(FwdDesc(p, src, dst, dnnl::prop_kind::forward_training), CpuEngine());
    dnnl::pooling_backward::primitive_desc bpd(
        dnnl::pooling_backward::desc(Alg(p), src, fpd.dst_desc(), p.stride, p.kernel, p.pad_l, p.pad_r), CpuEngine(),
        fpd);
    return MaxBwdEntry{dnnl::pooling_forward(fpd),
                       dnnl::pooling_backward(bpd),
                       dnnl::memory(src, CpuEngine(), DNNL_MEMORY_NONE),
                       dnnl::memory(fpd.dst_desc(), CpuEngine()),
                       dnnl::memory(fpd.workspace_desc(), CpuEngine()),
                       dnnl::memory(bpd.diff_dst_desc(), CpuEngine(), DNNL_MEMORY_NONE),
                       dnnl::memory(bpd.diff_src_desc(), CpuEngine(), DNNL_MEMORY_NONE)};
  });
  InputOperand in(1, x, plain_src, e.src.get_desc());
  InputOperand gy(0, dy, plain_dst, e.ddst.get_desc());
  OutputOperand gx(0, dx, plain_src, e.dsrc.get_desc());
  dnnl::stream& s = ThreadStream();
  e.fwd.execute(s, {{DNNL_ARG_SRC, in.mem()}, {DNNL_ARG_DST, e.dst}, {DNNL_ARG_WORKSPACE, e.ws}});
  e.bwd.execute(s, {{DNNL_ARG_DIFF_DST, gy.mem()}, {DNNL_ARG_WORKSPACE, e.ws}, {DNNL_ARG_DIFF_SRC, gx.mem()}});
  gx.Finish();
  s.wait();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
