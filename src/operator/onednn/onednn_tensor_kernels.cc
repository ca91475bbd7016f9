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

#include "operator/common/binary_functors.h"
#include "operator/onednn/onednn_concat.h"
#include "operator/onednn/onednn_same_layout.h"
#include "operator/tensor/concat_param.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief The registered names of the position-wise ops of one row of MXNET_BINARY_MATH_OPS. */
std::vector<std::string> PositionWiseOps(const std::string& row) {
  const bool arith = row == "add" || row == "sub" || row == "mul" || row == "div";
  std::vector<std::string> names{arith ? "elemwise_" + row : "_" + row, "broadcast_" + row};
  const char* scalar = row == "add" ? "plus" : row == "sub" ? "minus" : nullptr;
  names.push_back("_" + std::string(scalar ? scalar : row.c_str()) + "_scalar");
  if (row == "sub" || row == "div" || row == "mod" || row == "power")  // the reversed f(scalar, x) forms
    names.push_back("_r" + std::string(scalar ? scalar : row.c_str()) + "_scalar");
  return names;
}

void RegisterSameLayout(const std::string& op_name) {
  RegisterKernel(op_name, Context::kCPU, "same_layout")
      .add_tag("onednn")
      .set_layouts(KernelLayouts::kAny)
      .set_accepts(SameDenseLayout, /*cheap=*/true)
      .set_compute(RunOnSameLayout);
}

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

struct Registrar {
  Registrar() {
#define MXNET_SAME_LAYOUT_ROW(name, fwd, lg, rg) \
  for (const std::string& op_name : PositionWiseOps(#name)) RegisterSameLayout(op_name);
    MXNET_BINARY_MATH_OPS(MXNET_SAME_LAYOUT_ROW)
#undef MXNET_SAME_LAYOUT_ROW
    RegisterSameLayout("clip");
    for (const char* op_name : {"_backward_broadcast_add", "_backward_broadcast_sub"})
      RegisterKernel(op_name, Context::kCPU, "share_ograd")
          .add_tag("onednn")
          .set_layouts(KernelLayouts::kAny)
          .set_accepts(EqualShapesWithLayout, /*cheap=*/true)
          .set_compute(ShareOgrad(std::string(op_name) == "_backward_broadcast_sub"));
    RegisterKernel("Concat", Context::kCPU, "onednn")
        .add_tag("onednn")
        .set_layouts(KernelLayouts::kAny)
        .set_accepts(ConcatTakes, /*cheap=*/true)
        .set_compute(ConcatCompute);
  }
};
const Registrar registrar;

}  // namespace
}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
