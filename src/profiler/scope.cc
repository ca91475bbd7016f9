#include "profiler/scope.h"

namespace mxnet {
namespace profiler {

namespace {
thread_local std::string tl_scope = "<unk>:";
}

void SetThreadScope(const std::string& scope) { tl_scope = scope.empty() ? "<unk>:" : scope; }
const std::string& ThreadScope() { return tl_scope; }

}  // namespace profiler
}  // namespace mxnet
