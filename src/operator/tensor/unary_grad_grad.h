/*!
 * \file unary_grad_grad.h
 * \brief Gradients of the unary ops' `_backward_<name>` ops (second and higher derivatives),
 *        as compositions of registered ops.
 */
#ifndef MXNET_OPERATOR_TENSOR_UNARY_GRAD_GRAD_H_
#define MXNET_OPERATOR_TENSOR_UNARY_GRAD_GRAD_H_

#include <string>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

/*!
 * \brief FGradient of `_backward_<unary_op>` (inputs: ograd g, data x; output g * f'(x)):
 *        with respect to g, `_backward_<unary_op>`(og, x); with respect to x, og * g * f''(x).
 *        Empty for ops MXNet 1.x gives no second derivative (degrees, erf, gamma, ...): a
 *        second backward through them then fails naming the op.
 */
FGradient UnaryBackwardGradient(const std::string& unary_op);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_UNARY_GRAD_GRAD_H_
