/*!
 * \file tile_repeat.cc
 * \brief tile and repeat with _backward_tile / _backward_repeat. tile is a strided gather
 *        over the output viewed as (r0, d0, r1, d1, ...) with stride 0 on the rep axes; its
 *        gradient sums, for every input element, the output-gradient elements it was copied
 *        to (a gather-sum, so it is parallel and deterministic).
 */
#include <algorithm>
#include <string>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/backward_with_data.h"
#include "operator/common/elemwise_kernels.h"
#include "operator/common/parallel.h"
#include "operator/common/param_text.h"
#include "operator/common/strided_copy.h"
#include "operator/tensor/tile_repeat.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(TileParam);
DMLC_REGISTER_PARAMETER(RepeatParam);

namespace {

void TileForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<int64_t> shape, stride;
  TileWalk(PlanTile(attrs, in[0].shape_), &shape, &stride);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType,
                    { StridedGather(shape, stride, 0, in[0].dptr<DType>(), out[0].dptr<DType>(), req[0]); });
}

/*! \brief Inputs (ograd, data): grad[e] = sum over every tile copy of e. */
void TileBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TilePlan p = PlanTile(attrs, in[1].shape_);
  const int n = static_cast<int>(p.dims.size());
  const auto os = ContiguousStrides(p.OutShape());
  // Offsets of every tile copy relative to the first one.
  std::vector<int64_t> copies{0};
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> next;
    for (int64_t r = 0; r < p.reps[i]; ++r)
      for (int64_t c : copies) next.push_back(c + r * p.dims[i] * os[i]);
    copies.swap(next);
  }
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    ParallelFor(out[0].Size(), [&](int64_t e) {
      int64_t rem = e, base = 0;
      for (int i = n - 1; i >= 0; --i) {
        base += (rem % p.dims[i]) * os[i];
        rem /= p.dims[i];
      }
      C acc = 0;
      for (int64_t c : copies) acc += static_cast<C>(g[base + c]);
      Store(d + e, req[0], acc);
    });
  });
}

bool RepeatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const auto& p = attrs.get<RepeatParam>();
  TShape o;
  if (!p.axis.has_value()) {
    o = TShape{s.Size() * p.repeats};
  } else {
    o = s;
    o[CheckAxis(attrs, p.axis.value(), s)] *= p.repeats;
  }
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return true;
}

void RepeatForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const AxisView v = RepeatView(attrs, in[0].shape_);
  const int64_t r = attrs.get<RepeatParam>().repeats;
  // output as (outer, mid, r, inner) reading the input with stride 0 along r
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    StridedGather({v.outer, v.mid, r, v.inner}, {v.mid * v.inner, v.inner, 0, 1}, 0, in[0].dptr<DType>(),
                  out[0].dptr<DType>(), req[0]);
  });
}

/*! \brief Inputs (ograd, data): sums the `repeats` copies of each element. */
void RepeatBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AxisView v = RepeatView(attrs, in[1].shape_);
  const int64_t r = attrs.get<RepeatParam>().repeats;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    DType* d = out[0].dptr<DType>();
    ParallelFor(out[0].Size(), [&](int64_t e) {
      const int64_t om = e / v.inner, i = e % v.inner;  // om = outer * mid + m
      C acc = 0;
      for (int64_t k = 0; k < r; ++k) acc += static_cast<C>(g[(om * r + k) * v.inner + i]);
      Store(d + e, req[0], acc);
    });
  });
}

struct Registrar {
  Registrar() {
    MXNET_REGISTER_OP(tile)
        .describe(
            "Repeats the whole array multiple times: out.shape[i] = data.shape[i] * reps[i] (shorter of data "
            "shape and reps padded with leading 1s).")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input data array")
        .add_arguments(TileParam::__FIELDS__())
        .set_attr_parser(ParamParser<TileParam>)
        .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
          if (!(*in)[0].IsKnown()) return false;
          AssignShape(attrs, &(*out)[0], PlanTile(attrs, (*in)[0]).OutShape(), "output", 0);
          return true;
        })
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, TileForward)
        .set_gradient(GradWithData("_backward_tile"));
    MXNET_REGISTER_OP_FAMILY(_backward_tile, BackwardWithData, "Gradient of tile: sums the tile copies.", TileBackward)
        .add_arguments(TileParam::__FIELDS__())
        .set_attr_parser(ParamParser<TileParam>);

    MXNET_REGISTER_OP(repeat)
        .describe(
            "Repeats each element of an array `repeats` times along `axis` (of the flattened array when axis "
            "is None).")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "Input data array")
        .add_arguments(RepeatParam::__FIELDS__())
        .set_attr_parser(ParamParser<RepeatParam>)
        .set_infer_shape(RepeatShape)
        .set_infer_type(ElemwiseType)
        .set_compute(Context::kCPU, RepeatForward)
        .set_gradient(GradWithData("_backward_repeat"));
    MXNET_REGISTER_OP_FAMILY(_backward_repeat, BackwardWithData, "Gradient of repeat: sums the repeated copies.",
                             RepeatBackward)
        .add_arguments(RepeatParam::__FIELDS__())
        .set_attr_parser(ParamParser<RepeatParam>);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace op
}  // namespace mxnet
