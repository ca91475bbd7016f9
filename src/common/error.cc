#include "mxnet/error.h"

#include "common/stack_trace.h"

namespace mxnet {
namespace detail {

ErrorThrower::~ErrorThrower() noexcept(false) {
  std::string msg = stream_.str();
  std::string trace = common::StackTraceText(2);
  if (!trace.empty()) msg += "\n" + trace;
  throw Error(msg, kind_);
}

}  // namespace detail
}  // namespace mxnet
