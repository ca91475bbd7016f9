/*!
 * \file onednn_fc.cc
 * \brief FullyConnected on oneDNN's inner product. The weight layout is the primitive's
 *        choice ("any", reordered from MXNet's (H, K) through the cache entry's buffer)
 *        unless MXNET_ONEDNN_FORCE_FC_AB_FORMAT pins it to plain (H, K) = "ab".
 */
#if MXNET_USE_ONEDNN

#include <unordered_map>

#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;

bool ForceAB() {
  static const bool v = env::GetBool(env::Var::MXNET_ONEDNN_FORCE_FC_AB_FORMAT);
  return v;
}

struct FCDescs {
  md src, wei, dst, bias;
  FCDescs(int64_t M, int64_t K, int64_t H, dnnl::memory::data_type t, bool has_bias)
      : src({M, K}, t, tag::ab), wei({H, K}, t, tag::ab), dst({M, H}, t, tag::ab) {
    if (has_bias) bias = md({H}, t, tag::a);
  }
  md WeiAny() const { return ForceAB() ? wei : md(wei.dims(), wei.data_type(), tag::any); }
};

/*!
 * \brief Training reads the plain (H, K) weight: it changes every step, so a blocked choice
 *        costs a reorder per call (0.4 ms for LeNet's 500x800, more than the GEMM itself).
 *        Inference reorders once per weight value (WeightOperand's cached copy).
 */
dnnl::inner_product_forward::desc FwdDesc(const FCDescs& d, bool has_bias, bool training) {
  const auto prop = training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  const md wei = training ? d.wei : d.WeiAny();
  if (has_bias) return dnnl::inner_product_forward::desc(prop, d.src, wei, d.bias, d.dst);
  return dnnl::inner_product_forward::desc(prop, d.src, wei, d.dst);
}

// Float32 batches of 1-2 rows do not come here: FCGemv (fc_gemv.h) reads the plain weight.

struct FwdEntry {
  dnnl::inner_product_forward prim;
  dnnl::memory src, dst, bias;
  WeightOperand wei;
};

struct BwdEntry {
  dnnl::inner_product_backward_data data;
  dnnl::inner_product_backward_weights weights;
  dnnl::memory x, dy, dx, dbias;
  LayoutBridge wei_d, dwei;
};

Key MakeKey(int64_t M, int64_t K, int64_t H, int dtype, bool has_bias) {
  Key k;
  k.Add(M).Add(K).Add(H).Add(dtype).Add(has_bias).Add(ForceAB());
  return k;
}

}  // namespace

void FCForward(const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y, int64_t M, int64_t K, int64_t H,
               bool training, const PostOps& post) {
  thread_local PrimitiveCache<FwdEntry> cache;
  Key key = MakeKey(M, K, H, x.type_flag_, bias != nullptr).Add(training);
  post.AppendKey(&key.v);
  FwdEntry& e = cache.Get(key, [&] {
    FCDescs d(M, K, H, DataType(x.type_flag_), bias != nullptr);
    dnnl::inner_product_forward::primitive_desc pd(FwdDesc(d, bias != nullptr, training), post.ToAttr(), CpuEngine());
    const auto& eng = CpuEngine();
    return FwdEntry{dnnl::inner_product_forward(pd), dnnl::memory(d.src, eng, DNNL_MEMORY_NONE),
                    dnnl::memory(d.dst, eng, DNNL_MEMORY_NONE),
                    bias ? dnnl::memory(d.bias, eng, DNNL_MEMORY_NONE) : dnnl::memory(),
                    WeightOperand(d.wei, pd.weights_desc())};
  });
  dnnl::stream& s = ThreadStream();
  e.src.set_data_handle(x.dptr_);
  e.dst.set_data_handle(y.dptr_);
  // Inference reads the weight's cached copy in the primitive's format (reordered once per
  // weight value); training reorders per call, as the weight changes every step.
  std::shared_ptr<const BlockedData> hold;
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, e.src}, {DNNL_ARG_WEIGHTS, e.wei.Bind(1, w, !training, s, &hold)}, {DNNL_ARG_DST, e.dst}};
  if (bias) {
    e.bias.set_data_handle(bias->dptr_);
    args[DNNL_ARG_BIAS] = e.bias;
  }
  e.prim.execute(s, args);
  s.wait();
}

void FCBackward(const TBlob& dy, const TBlob& x, const TBlob& w, const TBlob* dx, const TBlob* dw, const TBlob* db,
                int64_t M, int64_t K, int64_t H) {
  thread_local PrimitiveCache<BwdEntry> cache;
  const bool has_bias = db != nullptr;
  BwdEntry& e = cache.Get(MakeKey(M, K, H, x.type_flag_, has_bias), [&] {
    FCDescs d(M, K, H, DataType(x.type_flag_), has_bias);
    const auto& eng = CpuEngine();
    // Plain (H, K) weights on both sides: the GEMM-based backward reads MXNet's weight and
    // writes its gradient in place, where a blocked choice cost a reorder of each per call
    // (0.4 ms apiece for LeNet's 500x800) and a slower brgemm weight-gradient kernel.
    dnnl::inner_product_forward::primitive_desc hint(
        has_bias ? dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, d.src, d.wei, d.bias, d.dst)
                 : dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, d.src, d.wei, d.dst),
        eng);
    dnnl::inner_product_backward_data::primitive_desc dpd(dnnl::inner_product_backward_data::desc(d.src, d.wei, d.dst),
                                                          eng, hint);
    auto wdesc = has_bias ? dnnl::inner_product_backward_weights::desc(d.src, d.wei, d.bias, d.dst)
                          : dnnl::inner_product_backward_weights::desc(d.src, d.wei, d.dst);
    dnnl::inner_product_backward_weights::primitive_desc wpd(wdesc, eng, hint);
    return BwdEntry{dnnl::inner_product_backward_data(dpd),
                    dnnl::inner_product_backward_weights(wpd),
                    dnnl::memory(d.src, eng, DNNL_MEMORY_NONE),
                    dnnl::memory(d.dst, eng, DNNL_MEMORY_NONE),
                    dnnl::memory(d.src, eng, DNNL_MEMORY_NONE),
                    has_bias ? dnnl::memory(d.bias, eng, DNNL_MEMORY_NONE) : dnnl::memory(),
                    LayoutBridge(d.wei, dpd.weights_desc()),
                    LayoutBridge(d.wei, wpd.diff_weights_desc())};
  });
  dnnl::stream& s = ThreadStream();
  e.dy.set_data_handle(dy.dptr_);
  if (dx) {
    e.dx.set_data_handle(dx->dptr_);
    e.wei_d.Bind(w.dptr_);
    e.wei_d.ToPrim(s);
    e.data.execute(s, {{DNNL_ARG_DIFF_DST, e.dy}, {DNNL_ARG_WEIGHTS, e.wei_d.Prim()}, {DNNL_ARG_DIFF_SRC, e.dx}});
  }
  if (dw) {  // FullyConnectedBackward asks for dw whenever it asks for db
    e.x.set_data_handle(x.dptr_);
    e.dwei.Bind(dw->dptr_);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, e.x}, {DNNL_ARG_DIFF_DST, e.dy}, {DNNL_ARG_DIFF_WEIGHTS, e.dwei.Prim()}};
    if (has_bias) {
      e.dbias.set_data_handle(db->dptr_);
      args[DNNL_ARG_DIFF_BIAS] = e.dbias;
    }
    e.weights.execute(s, args);
    e.dwei.FromPrim(s);
  }
  s.wait();
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
