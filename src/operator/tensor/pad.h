/*!
 * \file pad.h
 * \brief Pad's parameters and the output-to-input coordinate map of its modes, shared by the CPU
 *        kernels (pad.cc) and the CUDA kernels (operator/cuda/tile_pad.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_PAD_H_
#define MXNET_OPERATOR_TENSOR_PAD_H_

#include <dmlc/parameter.h>

#include <cstdint>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/strided_copy.h"

namespace mxnet {
namespace op {

enum PadMode { kPadConstant = 0, kPadEdge = 1, kPadReflect = 2 };

struct PadParam : public dmlc::Parameter<PadParam> {
  int mode;
  TShape pad_width;
  double constant_value;
  DMLC_DECLARE_PARAMETER(PadParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("constant", kPadConstant)
        .add_enum("edge", kPadEdge)
        .add_enum("reflect", kPadReflect)
        .describe(
            "Padding type to use. \"constant\" pads with `constant_value`, \"edge\" pads using the edge "
            "values of the input array, \"reflect\" pads by reflecting values with respect to the edges.");
    DMLC_DECLARE_FIELD(pad_width).describe(
        "Widths of the padding regions applied to the edges of each axis: (before_1, after_1, ..., before_N, "
        "after_N), 2*N values for an N-d input.");
    DMLC_DECLARE_FIELD(constant_value)
        .set_default(0.0)
        .describe(
            "The value used for padding when `mode` is "
            "\"constant\".");
  }
};

/*! \brief Input coordinate read by output coordinate o along an axis of length n; -1 = padding value. */
MXNET_XINLINE int64_t SourceCoord(int64_t o, int64_t before, int64_t n, int mode) {
  int64_t c = o - before;
  if (c >= 0 && c < n) return c;
  if (mode == kPadConstant) return -1;
  if (mode == kPadEdge) return c < 0 ? 0 : n - 1;
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);  // reflect without repeating the edge, as numpy
  c %= period;
  if (c < 0) c += period;
  return c < n ? c : period - c;
}

/*!
 * \brief The input offset output element e reads, or -1 for the padding value. Per axis i of n:
 *        os/is the output/input dims, ist the input strides, before the leading pad width.
 */
MXNET_XINLINE int64_t PaddedSource(int64_t e, int n, const int64_t* os, const int64_t* is, const int64_t* ist,
                                   const int64_t* before, int mode) {
  int64_t rem = e, src = 0;
  bool pad = false;
  for (int i = n - 1; i >= 0; --i) {
    const int64_t o = rem % os[i];
    rem /= os[i];
    const int64_t c = SourceCoord(o, before[i], is[i], mode);
    if (c < 0)
      pad = true;
    else
      src += c * ist[i];
  }
  return pad ? -1 : src;
}

/*! \brief PaddedSource's per-axis arrays for padding input `is` to output `os`. */
struct PadGeometry {
  std::vector<int64_t> os, is, ist, before;
  PadGeometry(const PadParam& p, const TShape& in, const TShape& out)
      : os(out.begin(), out.end()), is(in.begin(), in.end()), ist(ContiguousStrides(in)) {
    for (int i = 0; i < in.ndim(); ++i) before.push_back(p.pad_width[2 * i]);
  }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_PAD_H_
