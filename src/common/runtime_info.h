/*!
 * \file runtime_info.h
 * \brief Facts the runtime decided at start-up (thread counts, BLAS variant, engine),
 *        recorded by the module that decided them and reported by mx.runtime.
 */
#ifndef MXNET_COMMON_RUNTIME_INFO_H_
#define MXNET_COMMON_RUNTIME_INFO_H_

#include <string>
#include <utility>
#include <vector>

namespace mxnet {
namespace common {

void SetRuntimeInfo(const std::string& key, const std::string& value);
/*! \brief All recorded facts, in the order they were first recorded. */
std::vector<std::pair<std::string, std::string>> RuntimeInfo();

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_RUNTIME_INFO_H_
