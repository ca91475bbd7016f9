/*!
 * \file broadcast_binary.cc
 * \brief broadcast_add ... broadcast_logical_xor (NumPy broadcasting) and their
 *        gradients, which sum the element-wise gradient over each input's broadcast axes.
 */
#include <string>
#include <type_traits>
#include <vector>

#include "mxnet/op.h"
#include "operator/common/binary_functors.h"
#include "operator/common/broadcast_util.h"
#include "operator/common/op_family.h"
#include "operator/common/reduce_kernels.h"

namespace mxnet {
namespace op {
namespace {

bool BroadcastBinaryShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  const TShape& b = (*in)[1];
  if (a.ndim() < 0 || b.ndim() < 0) return false;
  TShape o;
  MX_CHECK_KIND(BroadcastShapes(a, b, &o), "ValueError")
      << attrs.op->name << ": operands could not be broadcast together with shapes " << a << " " << b;
  AssignShape(attrs, &(*out)[0], o, "output", 0);
  return o.IsKnown();
}

template <typename OP>
void BroadcastCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    BroadcastBinary(in[0].shape_, in[0].dptr<DType>(), in[1].shape_, in[1].dptr<DType>(), out[0].shape_,
                    out[0].dptr<DType>(), req[0], [](compute_t<DType> a, compute_t<DType> b) { return OP::Fwd(a, b); });
  });
}

/*! \brief Sums `full` (shape os, compute type C) down to shape `ts` into dst. */
template <typename C, typename DType>
void SumToShape(const C* full, const TShape& os, const TShape& ts, DType* dst, OpReqType req) {
  std::vector<bool> reduce(os.ndim());
  for (int i = 0; i < os.ndim(); ++i) {
    const int ti = ts.ndim() - os.ndim() + i;
    reduce[i] = (ti < 0 || ts[ti] == 1) && os[i] != 1;
  }
  Reduce<SumReducer, C>(MakeReducePlan(os, reduce), full, dst, req);
}

/*!
 * \brief add/sub of equal shapes (ResNet's residual sums): the gradients are +-ograd, so no
 *        temporary, no reduction and no read of a or b; outputs with req kNullOp are left alone
 *        (the share_ograd kernel may have handed a blocked ograd on to them). False when this
 *        is not that case.
 */
template <typename OP>
bool EqualShapeBackward(const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  constexpr bool kAdd = std::is_same<OP, binary::add>::value, kSub = std::is_same<OP, binary::sub>::value;
  if (!(kAdd || kSub) || in[1].shape_ != in[0].shape_ || in[2].shape_ != in[0].shape_) return false;
  const bool done[2] = {req[0] == kNullOp, req[1] == kNullOp};
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const DType* g = in[0].dptr<DType>();
    for (int side = 0; side < 2; ++side) {
      if (done[side]) continue;
      DType* dst = out[side].dptr<DType>();
      const OpReqType r = req[side];
      const C sign = side == 1 && kSub ? C(-1) : C(1);
      ParallelFor(in[0].Size(), [&](int64_t i) { Store(dst + i, r, sign * static_cast<C>(g[i])); });
    }
  });
  return true;
}

/*! \brief (ograd, a, b) -> (grad a, grad b), each summed to its input's shape. */
template <typename OP>
void BroadcastBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (EqualShapeBackward<OP>(in, req, out)) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    using C = real_compute_t<DType>;
    const TShape& os = in[0].shape_;
    const int64_t n = os.Size();
    const DType* g = in[0].dptr<DType>();
    const DType* a = in[1].dptr<DType>();
    const DType* b = in[2].dptr<DType>();
    if (in[1].shape_ == os && in[2].shape_ == os) {  // equal shapes: nothing to sum, one vectorised pass
      MapTernary<DType, C>(g, a, b, out[0].dptr<DType>(), n, req[0],
                           [](C gv, C av, C bv) { return C(gv * OP::LGrad(av, bv)); });
      MapTernary<DType, C>(g, a, b, out[1].dptr<DType>(), n, req[1],
                           [](C gv, C av, C bv) { return C(gv * OP::RGrad(av, bv)); });
      return;
    }
    C* tmp = static_cast<C*>(ctx.requested[0].GetSpace(sizeof(C) * (n > 0 ? n : 1)));
    // Broadcast a and b against ograd's shape with a ternary walk.
    const BroadcastPlan p = MakeBroadcastPlan({os, in[1].shape_, in[2].shape_}, os);
    for (int side = 0; side < 2; ++side) {
      if (req[side] == kNullOp) continue;
      ForEachBroadcastRow(p, [&](const int64_t* off, int64_t len, const int64_t* st, int64_t o) {
        for (int64_t i = 0; i < len; ++i) {
          const C gv = static_cast<C>(g[off[0] + i * st[0]]);
          const C av = static_cast<C>(a[off[1] + i * st[1]]);
          const C bv = static_cast<C>(b[off[2] + i * st[2]]);
          tmp[o + i] = C(gv * (side == 0 ? OP::LGrad(av, bv) : OP::RGrad(av, bv)));
        }
      });
      SumToShape(tmp, os, out[side].shape_, out[side].dptr<DType>(), req[side]);
    }
  });
}

/*! \brief What every broadcasting op of table row `row` registers. */
template <typename OP>
Op& BroadcastBinaryCommon(Op& op, const char* row) {
  return op
      .describe("Returns element-wise " + std::string(row) +
                " of the input arrays with broadcasting: shapes are right-aligned and each dimension must be "
                "equal or 1. Comparisons return 1 or 0 in the input dtype.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("lhs", "NDArray-or-Symbol", "First input to the function")
      .add_argument("rhs", "NDArray-or-Symbol", "Second input to the function")
      .set_infer_shape(BroadcastBinaryShape)
      .set_infer_type(ElemwiseType)
      // In place only where an input has the output's shape (the imperative layer checks), so
      // `x += y` writes x directly; the loops read each element before writing it.
      .set_inplace_option([](const NodeAttrs&) { return InplacePairs{{0, 0}, {1, 0}}; })
      .set_compute(Context::kCPU, BroadcastCompute<OP>);
}

/*! \brief An arithmetic row: its gradient is the op `_backward_<name>`. */
template <typename OP>
Op& BroadcastBinaryFamily(Op& op, const char* row) {
  const std::string bwd = "_backward_" + op.name;
  return BroadcastBinaryCommon<OP>(op, row).set_gradient([bwd](const NodePtr& n, const std::vector<NodeEntry>& og) {
    return MakeNodeOutputs(bwd, n->attrs.name + "_backward", {og[0], n->inputs[0], n->inputs[1]});
  });
}

/*! \brief A comparison or logical row: 1 or 0, no gradient. */
template <typename OP>
Op& BroadcastComparisonFamily(Op& op, const char* row) {
  return BroadcastBinaryCommon<OP>(op, row).set_gradient(ZeroGrads);
}

/*! \brief The gradient op of the broadcasting op `forward`. */
template <typename OP>
Op& BroadcastBinaryBackwardFamily(Op& op, const char* forward) {
  return op
      .describe("Gradient of " + std::string(forward) +
                ": the element-wise gradient summed over each input's broadcast axes.")
      .set_num_inputs(3)
      .set_num_outputs(2)
      .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output.")
      .add_argument("lhs", "NDArray-or-Symbol", "Forward lhs.")
      .add_argument("rhs", "NDArray-or-Symbol", "Forward rhs.")
      .set_infer_shape([](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
        AssignShape(attrs, &(*out)[0], (*in)[1], "output", 0);
        AssignShape(attrs, &(*out)[1], (*in)[2], "output", 1);
        return (*out)[0].IsKnown() && (*out)[1].IsKnown();
      })
      .set_infer_type(ElemwiseType)
      .set_resource_request(std::vector<ResourceRequest>{ResourceRequest::kTempSpace})
      .set_compute(Context::kCPU, BroadcastBackward<OP>);
}

// One op per row of MXNET_BINARY_MATH_OPS, in its order.
MXNET_REGISTER_OP_FAMILY(broadcast_add, BroadcastBinaryFamily<binary::add>, "add").add_alias("broadcast_plus");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_add, BroadcastBinaryBackwardFamily<binary::add>, "broadcast_add");
MXNET_REGISTER_OP_FAMILY(broadcast_sub, BroadcastBinaryFamily<binary::sub>, "sub").add_alias("broadcast_minus");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_sub, BroadcastBinaryBackwardFamily<binary::sub>, "broadcast_sub");
MXNET_REGISTER_OP_FAMILY(broadcast_mul, BroadcastBinaryFamily<binary::mul>, "mul");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_mul, BroadcastBinaryBackwardFamily<binary::mul>, "broadcast_mul");
MXNET_REGISTER_OP_FAMILY(broadcast_div, BroadcastBinaryFamily<binary::div>, "div");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_div, BroadcastBinaryBackwardFamily<binary::div>, "broadcast_div");
MXNET_REGISTER_OP_FAMILY(broadcast_mod, BroadcastBinaryFamily<binary::mod>, "mod");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_mod, BroadcastBinaryBackwardFamily<binary::mod>, "broadcast_mod");
MXNET_REGISTER_OP_FAMILY(broadcast_power, BroadcastBinaryFamily<binary::power>, "power");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_power, BroadcastBinaryBackwardFamily<binary::power>, "broadcast_power");
MXNET_REGISTER_OP_FAMILY(broadcast_maximum, BroadcastBinaryFamily<binary::maximum>, "maximum");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_maximum, BroadcastBinaryBackwardFamily<binary::maximum>,
                         "broadcast_maximum");
MXNET_REGISTER_OP_FAMILY(broadcast_minimum, BroadcastBinaryFamily<binary::minimum>, "minimum");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_minimum, BroadcastBinaryBackwardFamily<binary::minimum>,
                         "broadcast_minimum");
MXNET_REGISTER_OP_FAMILY(broadcast_hypot, BroadcastBinaryFamily<binary::hypot>, "hypot");
MXNET_REGISTER_OP_FAMILY(_backward_broadcast_hypot, BroadcastBinaryBackwardFamily<binary::hypot>, "broadcast_hypot");
MXNET_REGISTER_OP_FAMILY(broadcast_equal, BroadcastComparisonFamily<binary::equal>, "equal");
MXNET_REGISTER_OP_FAMILY(broadcast_not_equal, BroadcastComparisonFamily<binary::not_equal>, "not_equal");
MXNET_REGISTER_OP_FAMILY(broadcast_greater, BroadcastComparisonFamily<binary::greater>, "greater");
MXNET_REGISTER_OP_FAMILY(broadcast_greater_equal, BroadcastComparisonFamily<binary::greater_equal>, "greater_equal");
MXNET_REGISTER_OP_FAMILY(broadcast_lesser, BroadcastComparisonFamily<binary::lesser>, "lesser");
MXNET_REGISTER_OP_FAMILY(broadcast_lesser_equal, BroadcastComparisonFamily<binary::lesser_equal>, "lesser_equal");
MXNET_REGISTER_OP_FAMILY(broadcast_logical_and, BroadcastComparisonFamily<binary::logical_and>, "logical_and");
MXNET_REGISTER_OP_FAMILY(broadcast_logical_or, BroadcastComparisonFamily<binary::logical_or>, "logical_or");
MXNET_REGISTER_OP_FAMILY(broadcast_logical_xor, BroadcastComparisonFamily<binary::logical_xor>, "logical_xor");

}  // namespace
}  // namespace op
}  // namespace mxnet
