/*!
 * \file onednn_tensor_kernels.cc
 * \brief The oneDNN-build entries of the tensor ops' kernel lists, for inputs held in blocked
 *        layouts (left by a preceding oneDNN op):
 *          elemwise_*, _mod ... _logical_xor, broadcast_*, the array-scalar ops, clip
 *                                                        same_layout, reference
 *          _backward_broadcast_add, _backward_broadcast_sub   share_ograd, reference
 *          Concat                                        onednn, reference
 *        Every entry reads blocked inputs itself (KernelLayouts::kAny) and is tagged "onednn"
 *        (MXNET_ONEDNN_ENABLED=0 skips them). The predicates read layouts, shapes, dtypes and
 *        requests only, and reject plain inputs first: element-wise calls are latency-critical.
 */
#if MXNET_USE_ONEDNN

#include <string>
#include <vector>

#include "operator/onednn/onednn_concat.h"
#include "operator/onednn/onednn_same_layout.h"
#include "operator/tensor/concat_param.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief The same_layout kernel of the position-wise op `op_name`. */
#define MXNET_REGISTER_SAME_LAYOUT_KERNEL(op_name)  \
  MXNET_REGISTER_KERNEL(op_name, kCPU, same_layout) \
      .add_tag("onednn")                            \
      .set_layouts(KernelLayouts::kAny)             \
      .set_accepts(SameDenseLayout, /*cheap=*/true) \
      .set_compute(RunOnSameLayout)

// ---- _backward_broadcast_add / _sub of equal shapes: the gradients are +-ograd -----------

/*! \brief Some input blocked and every shape ograd's (inputs ograd, lhs, rhs). */
bool EqualShapesWithLayout(const KernelProblem& p) {
  if (!p.input_layouts[0] && !p.input_layouts[1] && !p.input_layouts[2]) return false;
  return p.inputs[1].shape_ == p.inputs[0].shape_ && p.inputs[2].shape_ == p.inputs[0].shape_;
}

/*!
 * \brief Hands a blocked ograd on to each gradient that equals it (lhs's, and rhs's for add) as
 *        the same immutable layout, without a copy and without reading lhs or rhs (which would
 *        reorder their layouts); the gradients left over take the reference on plain ograd.
 */
FCompute ShareOgrad(bool rhs_negated) {
  return [rhs_negated](const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
    std::vector<OpReqType> rest = req;
    if (auto g = BlockedInput(0, in[0])) {
      for (size_t side = 0; side < 2; ++side) {
        if ((side == 1 && rhs_negated) || req[side] != kWriteTo || !CanLeaveBlocked(side, out[side])) continue;
        SetBlockedOutput(side, g);
        rest[side] = kNullOp;
      }
    }
    if (rest[0] == kNullOp && rest[1] == kNullOp) return;
    PlainInput(0);  // the reference's equal-shape path reads ograd only
    (*attrs.op->GetCompute(Context::kCPU))(attrs, ctx, in, rest, out);
  };
}

// ---- Concat -------------------------------------------------------------------------------

/*! \brief Some input blocked, all non-empty in the output's (oneDNN-supported) dtype, overwritten. */
bool ConcatTakes(const KernelProblem& p) {
  const TBlob& out = p.outputs[0];
  if (p.req[0] != kWriteTo || out.Size() == 0 || !SupportedType(out.type_flag_)) return false;
  bool any_blocked = false;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (p.inputs[i].Size() == 0 || p.inputs[i].type_flag_ != out.type_flag_) return false;
    any_blocked = any_blocked || p.input_layouts[i] != nullptr;
  }
  return any_blocked;  // all plain: the plain join is a memcpy per row, nothing to gain
}

void ConcatCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MX_CHECK(ConcatForward(in, out[0], ConcatAxis(attrs, out[0].shape_), req[0]))
      << attrs.op->name << ": oneDNN concat refused a call its predicate accepted";
}

// The position-wise ops of each row of MXNET_BINARY_MATH_OPS, in its order: same-shape,
// broadcasting, array-scalar and the reversed f(scalar, x) forms.
MXNET_REGISTER_SAME_LAYOUT_KERNEL(elemwise_add);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_add);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_plus_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(elemwise_sub);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_sub);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_minus_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_rminus_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(elemwise_mul);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_mul);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_mul_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(elemwise_div);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_div);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_div_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_rdiv_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_mod);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_mod);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_mod_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_rmod_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_power);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_power);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_power_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_rpower_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_maximum);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_maximum);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_maximum_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_minimum);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_minimum);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_minimum_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_hypot);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_hypot);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_hypot_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_equal_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_not_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_not_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_not_equal_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_greater);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_greater);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_greater_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_greater_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_greater_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_greater_equal_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_lesser);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_lesser);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_lesser_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_lesser_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_lesser_equal);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_lesser_equal_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_logical_and);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_logical_and);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_logical_and_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_logical_or);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_logical_or);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_logical_or_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_logical_xor);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(broadcast_logical_xor);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(_logical_xor_scalar);
MXNET_REGISTER_SAME_LAYOUT_KERNEL(clip);

MXNET_REGISTER_KERNEL(_backward_broadcast_add, kCPU, share_ograd)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(EqualShapesWithLayout, /*cheap=*/true)
    .set_compute(ShareOgrad(/*rhs_negated=*/false));
MXNET_REGISTER_KERNEL(_backward_broadcast_sub, kCPU, share_ograd)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(EqualShapesWithLayout, /*cheap=*/true)
    .set_compute(ShareOgrad(/*rhs_negated=*/true));

MXNET_REGISTER_KERNEL(Concat, kCPU, onednn)
    .add_tag("onednn")
    .set_layouts(KernelLayouts::kAny)
    .set_accepts(ConcatTakes, /*cheap=*/true)
    .set_compute(ConcatCompute);

}  // namespace
}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
