/*!
 * \file init_param.h
 * \brief Parameters of the array-creation ops (_zeros, _ones, _full, _empty, _arange, _linspace,
 *        _eye) and the value of element i of _arange, _linspace and _eye, host+device so the
 *        CPU kernels (init_ops.cc) and the CUDA kernels (cuda/init_ops.cu) compute it alike.
 */
#ifndef MXNET_OPERATOR_TENSOR_INIT_PARAM_H_
#define MXNET_OPERATOR_TENSOR_INIT_PARAM_H_

#include <cstdint>
#include <string>

#include "mxnet/op.h"
#include "mxnet/xinline.h"

namespace mxnet {
namespace op {

struct InitParam : public dmlc::Parameter<InitParam> {
  TShape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(InitParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("The shape of the output");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("Target data type.");
  }
};

struct FullParam : public dmlc::Parameter<FullParam> {
  TShape shape;
  std::string ctx;
  int dtype;
  double value;
  DMLC_DECLARE_PARAMETER(FullParam) {
    DMLC_DECLARE_FIELD(shape).set_default(TShape()).describe("The shape of the output");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("Target data type.");
    DMLC_DECLARE_FIELD(value).describe("Value with which to fill newly created tensor");
  }
};

struct RangeParam : public dmlc::Parameter<RangeParam> {
  double start;
  dmlc::optional<double> stop;
  double step;
  int repeat;
  bool infer_range;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RangeParam) {
    DMLC_DECLARE_FIELD(start).describe("Start of interval. The interval includes this value.");
    DMLC_DECLARE_FIELD(stop)
        .set_default(dmlc::optional<double>())
        .describe(
            "End of interval. The interval does not include this value, except in some cases where step is not an "
            "integer and floating point round-off affects the length of out. Without stop, the range is [0, start).");
    DMLC_DECLARE_FIELD(step).set_default(1).describe("Spacing between values.");
    DMLC_DECLARE_FIELD(repeat).set_default(1).set_lower_bound(1).describe(
        "The repeating time of all elements. E.g repeat=3, the element a will be repeated three times --> a, a, a.");
    DMLC_DECLARE_FIELD(infer_range)
        .set_default(false)
        .describe("When set to True, infer the stop position from the start, step, repeat, and output tensor size.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("Target data type.");
  }
};

struct LinspaceParam : public dmlc::Parameter<LinspaceParam> {
  double start, stop;
  int num;
  bool endpoint;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(LinspaceParam) {
    DMLC_DECLARE_FIELD(start).describe("The starting value of the sequence.");
    DMLC_DECLARE_FIELD(stop).describe(
        "The ending value of the sequence; excluded when endpoint is False (num + 1 evenly spaced samples, the "
        "last dropped).");
    DMLC_DECLARE_FIELD(num).set_lower_bound(0).describe("Number of samples to generate. Must be non-negative.");
    DMLC_DECLARE_FIELD(endpoint).set_default(true).describe("If True, stop is the last sample.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("Target data type.");
  }
};

struct EyeParam : public dmlc::Parameter<EyeParam> {
  int64_t N, M, k;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(EyeParam) {
    DMLC_DECLARE_FIELD(N).set_lower_bound(0).describe("Number of rows in the output.");
    DMLC_DECLARE_FIELD(M).set_default(0).set_lower_bound(0).describe(
        "Number of columns in the output. If 0, defaults to N");
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "Index of the diagonal. 0 (the default) refers to the main diagonal. A positive value refers to an upper "
        "diagonal, and a negative value to a lower diagonal.");
    DMLC_DECLARE_FIELD(ctx).set_default("").describe(
        "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls.");
    DMLC_DECLARE_FIELD(dtype).set_default(kFloat32).MXNET_ADD_ALL_DTYPES.describe("Target data type.");
  }
};

/*! \brief (start, stop) after MXNet's rule: a missing stop means the range [0, start). */
inline void RangeBounds(const RangeParam& p, double* start, double* stop) {
  *start = p.stop.has_value() ? p.start : 0.0;
  *stop = p.stop.has_value() ? p.stop.value() : p.start;
}

/*! \brief _arange's element i: start + k*step for each element, not a running sum, so no error accumulates. */
struct RangeValue {
  double start, step;
  int64_t repeat;
  explicit RangeValue(const RangeParam& p) : step(p.step), repeat(p.repeat) {
    double stop;
    RangeBounds(p, &start, &stop);
  }
  MXNET_XINLINE double operator()(int64_t i) const { return start + static_cast<double>(i / repeat) * step; }
};

/*! \brief _linspace's element i; the endpoint is written exactly, as numpy does, rather than start + (num-1)*step. */
struct LinspaceValue {
  double start, stop, step;
  bool exact_end;
  int64_t last;
  explicit LinspaceValue(const LinspaceParam& p) : start(p.start), stop(p.stop) {
    const int64_t intervals = p.endpoint ? p.num - 1 : p.num;
    step = intervals > 0 ? (stop - start) / static_cast<double>(intervals) : 0.0;
    exact_end = p.endpoint && p.num > 1;
    last = p.num - 1;
  }
  MXNET_XINLINE double operator()(int64_t i) const { return exact_end && i == last ? stop : start + step * i; }
};

/*! \brief _eye's element i of a row-major (N, cols) output: 1 on the k-th diagonal. */
struct EyeValue {
  int64_t cols, k;
  MXNET_XINLINE double operator()(int64_t i) const { return (i % cols) - (i / cols) == k ? 1.0 : 0.0; }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_INIT_PARAM_H_
