/*!
 * \file scope.h
 * \brief The calling thread's profiler scope (mx.profiler.scope), a name prefix that the
 *        layer pushing operators may prepend to their names ("<unk>:" when none is set).
 */
#ifndef MXNET_PROFILER_SCOPE_H_
#define MXNET_PROFILER_SCOPE_H_

#include <string>

namespace mxnet {
namespace profiler {

void SetThreadScope(const std::string& scope);
const std::string& ThreadScope();

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_SCOPE_H_
