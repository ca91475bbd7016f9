/*!
 * \file onednn_eltwise.cc
 * \brief oneDNN element-wise activations (relu, leaky relu, logistic, tanh, soft_relu, elu,
 *        gelu) forward and backward, on tensors viewed as 1-D (layout does not matter), or on
 *        a blocked input's own format so that format passes through.
 */
#if MXNET_USE_ONEDNN

#include <cstring>
#include <memory>

#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_operand.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief Element-wise ops see a flat vector: one primitive per size, whatever the shape. */
dnnl::memory::desc FlatDesc(const TBlob& b) {
  return dnnl::memory::desc({b.Size()}, DataType(b.type_flag_), dnnl::memory::format_tag::a);
}

Key MakeKey(dnnl::algorithm alg, float alpha, float beta, const TBlob& b) {
  Key k;
  int32_t ia, ib;
  std::memcpy(&ia, &alpha, 4);
  std::memcpy(&ib, &beta, 4);
  k.Add(static_cast<int64_t>(alg)).Add(ia).Add(ib).Add(b.Size()).Add(b.type_flag_);
  return k;
}

struct FwdEntry {
  dnnl::eltwise_forward prim;
  dnnl::memory src, dst;
};
struct BwdEntry {
  dnnl::eltwise_backward prim;
  dnnl::memory ddst, src, dsrc;
};

}  // namespace

bool EltwiseSupported(dnnl::algorithm alg) {
  switch (alg) {
    case dnnl::algorithm::eltwise_relu:
    case dnnl::algorithm::eltwise_logistic:
    case dnnl::algorithm::eltwise_tanh:
    case dnnl::algorithm::eltwise_soft_relu:
    case dnnl::algorithm::eltwise_elu:
    case dnnl::algorithm::eltwise_gelu_erf:
      return true;
    default:
      return false;
  }
}

void EltwiseForward(dnnl::algorithm alg, float alpha, float beta, const TBlob& x, const TBlob& y) {
  thread_local PrimitiveCache<FwdEntry> cache;
  FwdEntry& e = cache.Get(MakeKey(alg, alpha, beta, x), [&] {
    const auto d = FlatDesc(x);
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, d, alpha, beta), CpuEngine());
    return FwdEntry{dnnl::eltwise_forward(pd), dnnl::memory(d, CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(d, CpuEngine(), DNNL_MEMORY_NONE)};
  });
  e.src.set_data_handle(x.dptr_);
  e.dst.set_data_handle(y.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}});
  s.wait();
}

void EltwiseForwardBlocked(dnnl::algorithm alg, float alpha, float beta, const BlockedData& x, const TBlob& y) {
  // Same format in and out: the next oneDNN op reads y as it read x (padding stays zero,
  // which is why this runs on the blocked descriptor rather than a flat view).
  thread_local PrimitiveCache<FwdEntry> cache;
  Key key = MakeKey(alg, alpha, beta, y);
  AddDescKey(&key, x.desc());
  FwdEntry& e = cache.Get(key, [&] {
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, x.desc(), alpha, beta), CpuEngine());
    return FwdEntry{dnnl::eltwise_forward(pd), dnnl::memory(x.desc(), CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(x.desc(), CpuEngine(), DNNL_MEMORY_NONE)};
  });
  auto by = std::make_shared<BlockedData>(x.desc(), PlainDesc(y));
  e.src.set_data_handle(x.ptr());
  e.dst.set_data_handle(by->ptr());
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_DST, e.dst}});
  s.wait();
  SetBlockedOutput(0, std::move(by));
}

void EltwiseBackward(dnnl::algorithm alg, float alpha, float beta, const TBlob& dy, const TBlob& x, const TBlob& dx) {
  // A blocked x (a conv output) sets the format: dy is read in it (usually already there, from
  // a blocked pooling backward) and dx left in it for the conv backward. Otherwise the three
  // are plain and seen as flat vectors.
  const auto bx = BlockedInput(1, x);
  const auto d = bx ? bx->desc() : FlatDesc(x);
  Key key = MakeKey(alg, alpha, beta, x);
  if (bx) AddDescKey(&key, d);
  thread_local PrimitiveCache<BwdEntry> cache;
  BwdEntry& e = cache.Get(key, [&] {
    dnnl::eltwise_forward::primitive_desc hint(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training, alg, d, alpha, beta), CpuEngine());
    dnnl::eltwise_backward::primitive_desc pd(dnnl::eltwise_backward::desc(alg, d, d, alpha, beta), CpuEngine(), hint);
    return BwdEntry{dnnl::eltwise_backward(pd), dnnl::memory(d, CpuEngine(), DNNL_MEMORY_NONE),
                    dnnl::memory(d, CpuEngine(), DNNL_MEMORY_NONE), dnnl::memory(d, CpuEngine(), DNNL_MEMORY_NONE)};
  });
  dnnl::stream& s = ThreadStream();
  if (bx) {
    InputOperand gy(0, dy, PlainDesc(dy), d);
    OutputOperand gx(0, dx, PlainDesc(dx), d);
    e.src.set_data_handle(bx->ptr());
    e.prim.execute(s, {{DNNL_ARG_DIFF_DST, gy.mem()}, {DNNL_ARG_SRC, e.src}, {DNNL_ARG_DIFF_SRC, gx.mem()}});
    gx.Finish();
    s.wait();
    return;
  }
  PlainInput(0);
  PlainInput(1);
  e.ddst.set_data_handle(dy.dptr_);
  e.src.set_data_handle(x.dptr_);
  e.dsrc.set_data_handle(dx.dptr_);
  e.prim.execute(s, {{DNNL_ARG_DIFF_DST, e.ddst}, {DNNL_ARG_SRC, e.src}, {DNNL_ARG_DIFF_SRC, e.dsrc}});
  s.wait();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
