/*!
 * \file opr_error.h
 * \brief Errors raised inside ops are reported with the op's name, so a failure that
 *        surfaces at a later wait still points at its cause.
 */
#ifndef MXNET_ENGINE_OPR_ERROR_H_
#define MXNET_ENGINE_OPR_ERROR_H_

#include <exception>
#include <string>

namespace mxnet {
namespace engine {

/*! \brief mxnet::Error naming the op, keeping the original kind; wraps only once. */
std::exception_ptr WrapOprError(const std::string& opr_name, std::exception_ptr error);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_OPR_ERROR_H_
