/*!
 * \file take_pick.h
 * \brief The parameters of take and pick and pick's axis rule, shared by the CPU kernels
 *        (take_pick.cc) and the CUDA kernels (operator/cuda/indexing.cu).
 */
#ifndef MXNET_OPERATOR_TENSOR_TAKE_PICK_H_
#define MXNET_OPERATOR_TENSOR_TAKE_PICK_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include "mxnet/op.h"
#include "operator/common/axis_util.h"
#include "operator/common/index_util.h"

namespace mxnet {
namespace op {

struct TakeParam : public dmlc::Parameter<TakeParam> {
  int axis;
  int mode;
  DMLC_DECLARE_PARAMETER(TakeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The axis of input array to be taken. For input tensor of rank "
        "r, it could be in the range of [-r, r-1]");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("raise", kIndexRaise)
        .add_enum("wrap", kIndexWrap)
        .add_enum("clip", kIndexClip)
        .set_default(kIndexClip)
        .describe("Specify how out-of-bound indices behave: clip to the range, wrap around, or raise an error.");
  }
};

struct PickParam : public dmlc::Parameter<PickParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  int mode;
  DMLC_DECLARE_PARAMETER(PickParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe("int or None. The axis to picking the elements. Negative values means indexing from right to left.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "If true, the axis where we pick the elements is left in the result as dimension with size one.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("wrap", kIndexWrap)
        .add_enum("clip", kIndexClip)
        .set_default(kIndexClip)
        .describe("Specify how out-of-bound indices behave: clip to the range or wrap around.");
  }
};

inline int PickAxis(const NodeAttrs& attrs, const TShape& s) {
  const auto& p = attrs.get<PickParam>();
  MX_CHECK_KIND(p.axis.has_value(), "ValueError") << attrs.op->name << ": axis=None is not supported; give an axis";
  return CheckAxis(attrs, p.axis.value(), s);
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_TAKE_PICK_H_
