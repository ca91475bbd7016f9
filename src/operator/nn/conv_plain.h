/*!
 * \file conv_plain.h
 * \brief Plain (reference) Convolution and Deconvolution on TBlobs: channel-last data goes
 *        through channel-first scratch copies, then the im2col kernels of conv_im2col.h run.
 *        Scratch comes from the op's kTempSpace resource.
 */
#ifndef MXNET_OPERATOR_NN_CONV_PLAIN_H_
#define MXNET_OPERATOR_NN_CONV_PLAIN_H_

#include <vector>

#include "operator/nn/conv_im2col.h"

namespace mxnet {
namespace op {

/*! \brief Hands out 64-byte aligned pieces of one scratch allocation. */
class ScratchCarver {
 public:
  explicit ScratchCarver(void* base) : base_(static_cast<char*>(base)) {}
  template <typename T>
  T* Take(int64_t n) {
    T* p = reinterpret_cast<T*>(base_ + off_);
    off_ += (static_cast<size_t>(n) * sizeof(T) + 63) / 64 * 64;
    return p;
  }
  static size_t Bytes(int64_t n, size_t elem) { return (static_cast<size_t>(n) * elem + 63) / 64 * 64; }

 private:
  char* base_;
  size_t off_{0};
};

/*!
 * \brief The channel-first problem a kernel works on. a = the tensor with g.C channels and
 *        g.in spatial (conv input / deconv output), b = g.F channels and g.out spatial.
 *        Weights are (g.F, g.C/g.G, k) for conv and (g.F, g.C/g.G, k) for deconv too.
 */
template <typename D>
struct ChannelFirstViews {
  const ConvGeom& g;
  bool cl;
  ScratchCarver sp;
  ChannelFirstViews(const ConvGeom& geom, bool channel_last, const Resource& tmp, int n_act_a, int n_act_b, int n_w)
      : g(geom), cl(channel_last), sp(tmp.GetSpace(Bytes(geom, channel_last, n_act_a, n_act_b, n_w))) {}
  static size_t Bytes(const ConvGeom& g, bool cl, int na, int nb, int nw) {
    size_t b = ScratchCarver::Bytes((g.C / g.G) * g.KSize() * g.OutSize(), sizeof(D)) + 64;
    if (cl) {
      b += na * ScratchCarver::Bytes(g.N * g.C * g.InSize(), sizeof(D));
      b += nb * ScratchCarver::Bytes(g.N * g.F * g.OutSize(), sizeof(D));
      b += nw * ScratchCarver::Bytes(g.F * (g.C / g.G) * g.KSize(), sizeof(D));
    }
    return b;
  }
  D* Col() { return sp.Take<D>(g.IsPointwise() ? 1 : (g.C / g.G) * g.KSize() * g.OutSize()); }
  /*! \brief Channel-first input: the tensor itself, or a permuted scratch copy. */
  const D* In(const TBlob& t, int64_t C, int64_t S) {
    if (!cl) return t.dptr<D>();
    D* p = sp.Take<D>(t.Size());
    PermuteNSC(t.dptr<D>(), p, t.Size() / (C * S), S, C, true);
    return p;
  }
  /*! \brief Channel-first output buffer; Finish() writes it back under req. */
  D* Out(const TBlob& t, OpReqType req, OpReqType* kernel_req) {
    *kernel_req = cl && req != kNullOp ? kWriteTo : req;
    return cl ? sp.Take<D>(t.Size()) : t.dptr<D>();
  }
  void Finish(const D* cf, const TBlob& t, int64_t C, int64_t S, OpReqType req) {
    if (cl && req != kNullOp) PermuteNSC(cf, t.dptr<D>(), t.Size() / (C * S), S, C, false, req);
  }
};

template <typename D>
void PlainConvForward(const ConvGeom& g, bool cl, const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y,
                      OpReqType req, const Resource& tmp) {
  ChannelFirstViews<D> v(g, cl, tmp, 1, 1, 1);
  D* col = v.Col();
  const D* xp = v.In(x, g.C, g.InSize());
  const D* wp = v.In(w, g.C / g.G, g.KSize());
  OpReqType kreq;
  D* yp = v.Out(y, req, &kreq);
  ConvForward(g, xp, wp, yp, kreq, col);
  if (bias) AddBias(bias->dptr<D>(), yp, g.N, g.F, g.OutSize());
  v.Finish(yp, y, g.F, g.OutSize(), req);
}

/*! \brief dx/dw/db may be null (not requested). */
template <typename D>
void PlainConvBackward(const ConvGeom& g, bool cl, const TBlob& dy, const TBlob& x, const TBlob& w, const TBlob* dx,
                       const TBlob* dw, const TBlob* db, const std::vector<OpReqType>& req, const Resource& tmp) {
  ChannelFirstViews<D> v(g, cl, tmp, 2, 1, 2);
  D* col = v.Col();
  const D* dyp = v.In(dy, g.F, g.OutSize());
  if (dx) {
    const D* wp = v.In(w, g.C / g.G, g.KSize());
    OpReqType r;
    D* p = v.Out(*dx, req[0], &r);
    ConvBackwardData(g, dyp, wp, p, r, col);
    v.Finish(p, *dx, g.C, g.InSize(), req[0]);
  }
  if (dw) {
    const D* xp = v.In(x, g.C, g.InSize());
    OpReqType r;
    D* p = v.Out(*dw, req[1], &r);
    ConvBackwardWeight(g, xp, dyp, p, r, col);
    v.Finish(p, *dw, g.C / g.G, g.KSize(), req[1]);
  }
  if (db) BiasGrad(dyp, db->dptr<D>(), g.N, g.F, g.OutSize(), req[2]);
}

/*! \brief Deconvolution = the transposed convolution g: y (g.C channels) from x (g.F channels). */
template <typename D>
void PlainDeconvForward(const ConvGeom& g, bool cl, const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y,
                        OpReqType req, const Resource& tmp) {
  ChannelFirstViews<D> v(g, cl, tmp, 1, 1, 1);
  D* col = v.Col();
  const D* xp = v.In(x, g.F, g.OutSize());
  const D* wp = v.In(w, g.C / g.G, g.KSize());
  OpReqType kreq;
  D* yp = v.Out(y, req, &kreq);
  ConvBackwardData(g, xp, wp, yp, kreq, col);
  if (bias) AddBias(bias->dptr<D>(), yp, g.N, g.C, g.InSize());
  v.Finish(yp, y, g.C, g.InSize(), req);
}

template <typename D>
void PlainDeconvBackward(const ConvGeom& g, bool cl, const TBlob& dy, const TBlob& x, const TBlob& w, const TBlob* dx,
                         const TBlob* dw, const TBlob* db, const std::vector<OpReqType>& req, const Resource& tmp) {
  ChannelFirstViews<D> v(g, cl, tmp, 1, 2, 2);
  D* col = v.Col();
  const D* dyp = v.In(dy, g.C, g.InSize());
  if (dx) {
    const D* wp = v.In(w, g.C / g.G, g.KSize());
    OpReqType r;
    D* p = v.Out(*dx, req[0], &r);
    ConvForward(g, dyp, wp, p, r, col);
    v.Finish(p, *dx, g.F, g.OutSize(), req[0]);
  }
  if (dw) {
    const D* xp = v.In(x, g.F, g.OutSize());
    OpReqType r;
    D* p = v.Out(*dw, req[1], &r);
    ConvBackwardWeight(g, dyp, xp, p, r, col);
    v.Finish(p, *dw, g.C / g.G, g.KSize(), req[1]);
  }
  if (db) BiasGrad(dyp, db->dptr<D>(), g.N, g.C, g.InSize(), req[2]);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONV_PLAIN_H_
