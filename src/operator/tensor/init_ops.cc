/*!
 * \file init_ops.cc
 * \brief Array creation from parameters alone: _zeros, _ones, _full, _empty, _arange,
 *        _linspace, _eye. They take no inputs, so the device comes from the `ctx`
 *        parameter (read by imperative invoke) and the shape from `shape` or, when absent,
 *        from an `out=` array given by the caller.
 */
#include <cmath>
#include <cstring>
#include <string>

#include "mxnet/op.h"
#include "operator/common/op_family.h"
#include "operator/common/parallel.h"
#include "operator/common/param_text.h"
#include "operator/tensor/init_param.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(InitParam);
DMLC_REGISTER_PARAMETER(FullParam);
DMLC_REGISTER_PARAMETER(RangeParam);
DMLC_REGISTER_PARAMETER(LinspaceParam);
DMLC_REGISTER_PARAMETER(EyeParam);

namespace {

/*! \brief The output takes `shape` when given; otherwise the shape of a caller-provided output. */
bool ShapeFromParam(const NodeAttrs& attrs, const TShape& shape, std::vector<TShape>* out) {
  if (shape.ndim() > 0) {
    for (int i = 0; i < shape.ndim(); ++i)
      MX_CHECK_KIND(shape[i] >= 0, "ValueError")
          << attrs.op->name << ": shape " << ParamTuple(shape) << " has a negative dimension";
    AssignShape(attrs, &(*out)[0], shape, "output", 0);
    return true;
  }
  MX_CHECK_KIND((*out)[0].IsKnown() && (*out)[0].ndim() > 0, "ValueError")
      << attrs.op->name << ": the shape parameter is required when no output array is given";
  return true;
}

template <typename P>
bool InitShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  return ShapeFromParam(attrs, attrs.get<P>().shape, out);
}

template <typename P>
bool InitType(const NodeAttrs& attrs, std::vector<int>*, std::vector<int>* out) {
  AssignType(attrs, &(*out)[0], attrs.get<P>().dtype, "output", 0);
  return true;
}

/*! \brief Writes f(i) to every element; f returns double, converted once per element. */
template <typename F>
void FillWith(const TBlob& out, OpReqType req, F f) {
  if (req == kNullOp) return;
  MXNET_TYPE_SWITCH(out.type_flag_, DType, {
    DType* y = out.dptr<DType>();
    ParallelFor(out.Size(), [&](int64_t i) { AssignReq(&y[i], req, static_cast<DType>(f(i))); });
  });
}

void FillConstant(const TBlob& out, OpReqType req, double v) {
  if (v == 0.0 && req != kAddTo && req != kNullOp) {
    std::memset(out.dptr_, 0, out.Bytes());  // all-zero bits are zero for every dtype
    return;
  }
  FillWith(out, req, [v](int64_t) { return v; });
}

void ZerosCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                  const std::vector<TBlob>& out) {
  FillConstant(out[0], req[0], 0.0);
}

void OnesCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  FillConstant(out[0], req[0], 1.0);
}

void FullCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                 const std::vector<TBlob>& out) {
  FillConstant(out[0], req[0], attrs.get<FullParam>().value);
}

// _empty leaves memory as allocated: callers promise to overwrite it, so filling would be waste.
void EmptyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>&,
                  const std::vector<TBlob>&) {}

bool RangeShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const auto& p = attrs.get<RangeParam>();
  const std::string& name = attrs.op->name;
  MX_CHECK_KIND(p.step != 0, "ValueError") << name << ": step must not be 0";
  MX_CHECK_KIND(std::isfinite(p.start) && std::isfinite(p.step), "ValueError")
      << name << ": start and step must be finite, got start=" << p.start << ", step=" << p.step;
  if (p.infer_range && !p.stop.has_value()) {
    // The length comes from the output the caller supplies (symbolic use in MXNet).
    MX_CHECK_KIND((*out)[0].IsKnown() && (*out)[0].ndim() == 1, "ValueError")
        << name << ": infer_range without stop needs a 1-D output to take its length from";
    return true;
  }
  double start, stop;
  RangeBounds(p, &start, &stop);
  MX_CHECK_KIND(std::isfinite(stop), "ValueError") << name << ": stop must be finite, got " << stop;
  MX_CHECK_KIND((p.step > 0 && start < stop) || (p.step < 0 && start > stop), "ValueError")
      << name << ": invalid range (start, stop, step) = (" << start << ", " << stop << ", " << p.step << ")";
  const double count = std::ceil((stop - start) / p.step);
  MX_CHECK_KIND(count * p.repeat < 9.0e18, "ValueError")
      << name << ": range of " << count << " x " << p.repeat << " elements is too large";
  AssignShape(attrs, &(*out)[0], TShape{static_cast<dim_t>(count) * p.repeat}, "output", 0);
  return true;
}

void RangeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillWith(out[0], req[0], RangeValue(attrs.get<RangeParam>()));
}

bool LinspaceShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const auto& p = attrs.get<LinspaceParam>();
  MX_CHECK_KIND(std::isfinite(p.start) && std::isfinite(p.stop), "ValueError")
      << attrs.op->name << ": start and stop must be finite, got (" << p.start << ", " << p.stop << ")";
  AssignShape(attrs, &(*out)[0], TShape{static_cast<dim_t>(p.num)}, "output", 0);
  return true;
}

void LinspaceCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillWith(out[0], req[0], LinspaceValue(attrs.get<LinspaceParam>()));
}

bool EyeShape(const NodeAttrs& attrs, std::vector<TShape>*, std::vector<TShape>* out) {
  const auto& p = attrs.get<EyeParam>();
  AssignShape(attrs, &(*out)[0], TShape{p.N, p.M > 0 ? p.M : p.N}, "output", 0);
  return true;
}

void EyeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&, const std::vector<OpReqType>& req,
                const std::vector<TBlob>& out) {
  FillWith(out[0], req[0], EyeValue{out[0].shape_[1], attrs.get<EyeParam>().k});
}

template <typename P>
Op& InitFamily(Op& op, const char* doc, FInferShape shape, FCompute fn) {
  return op.describe(doc)
      .set_num_inputs(0)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<P>)
      .add_arguments(P::__FIELDS__())
      .set_infer_shape(shape)
      .set_infer_type(InitType<P>)
      .set_compute(Context::kCPU, fn);
}

[[maybe_unused]] const bool registered = [] {
  MXNET_REGISTER_OP_FAMILY(_zeros, InitFamily<InitParam>,
                           "Returns an array of the given shape and dtype filled with zeros.", InitShape<InitParam>,
                           ZerosCompute);
  MXNET_REGISTER_OP_FAMILY(_ones, InitFamily<InitParam>,
                           "Returns an array of the given shape and dtype filled with ones.", InitShape<InitParam>,
                           OnesCompute);
  MXNET_REGISTER_OP_FAMILY(_full, InitFamily<FullParam>,
                           "Returns an array of the given shape and dtype filled with `value`.", InitShape<FullParam>,
                           FullCompute);
  MXNET_REGISTER_OP_FAMILY(_empty, InitFamily<InitParam>,
                           "Returns an array of the given shape and dtype without initializing its values.",
                           InitShape<InitParam>, EmptyCompute);
  MXNET_REGISTER_OP_FAMILY(_arange, InitFamily<RangeParam>,
                           "Returns evenly spaced values within [start, stop) with spacing `step`, each repeated "
                           "`repeat` times. Without stop the interval is [0, start).",
                           RangeShape, RangeCompute);
  MXNET_REGISTER_OP_FAMILY(_linspace, InitFamily<LinspaceParam>,
                           "Returns `num` evenly spaced samples over [start, stop] (or [start, stop) when "
                           "endpoint is False).",
                           LinspaceShape, LinspaceCompute);
  MXNET_REGISTER_OP_FAMILY(_eye, InitFamily<EyeParam>,
                           "Returns a 2-D array of shape (N, M) with ones on the k-th diagonal and zeros elsewhere.",
                           EyeShape, EyeCompute);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
