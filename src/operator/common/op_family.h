/*!
 * \file op_family.h
 * \brief MXNET_REGISTER_OP_FAMILY: registers an op by its literal name, as MXNET_REGISTER_OP,
 *        and hands the builder to a function that sets what the ops of one family share.
 *
 *   Op& SortFamily(Op& op) { return op.set_num_inputs(1)...; }
 *   MXNET_REGISTER_OP_FAMILY(argsort, SortFamily).describe("...");
 *
 * The op's name stays the macro's first argument, so `grep 'MXNET_REGISTER_OP_FAMILY(argsort'`
 * finds its registration (tests/python/test_op_registration_grep.py checks every op).
 */
#ifndef MXNET_OPERATOR_COMMON_OP_FAMILY_H_
#define MXNET_OPERATOR_COMMON_OP_FAMILY_H_

#include <utility>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

/*! \brief family(op, args...): the builder the family function returns. */
template <typename F, typename... A>
Op& ApplyOpFamily(Op& op, F&& family, A&&... args) {
  return std::forward<F>(family)(op, std::forward<A>(args)...);
}

}  // namespace op
}  // namespace mxnet

/*!
 * \brief Registers op `name` (an identifier spelling the op's name) and returns
 *        family(op, args...), a function (Op&, args...) -> Op& applied to its builder.
 */
#define MXNET_REGISTER_OP_FAMILY(name, ...)                                                        \
  static ::mxnet::op::Op& MXNET_OP_CONCAT(mxnet_op_reg_##name##_, __COUNTER__) [[maybe_unused]] = \
      ::mxnet::op::ApplyOpFamily(::mxnet::op::OpRegistry::Get()->Register(#name), __VA_ARGS__)

#endif  // MXNET_OPERATOR_COMMON_OP_FAMILY_H_
