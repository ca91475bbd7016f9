/*!
 * \file stack_trace.h
 * \brief Native backtraces for error messages (DMLC_LOG_STACK_TRACE_DEPTH) and for
 *        the fatal-signal handler.
 */
#ifndef MXNET_COMMON_STACK_TRACE_H_
#define MXNET_COMMON_STACK_TRACE_H_

#include <string>

namespace mxnet {
namespace common {

/*!
 * \brief "Stack trace:" followed by up to DMLC_LOG_STACK_TRACE_DEPTH frames, each on a
 *        line indented by two spaces; empty when the depth is 0.
 * \param skip innermost frames to leave out (the error machinery itself).
 */
std::string StackTraceText(int skip);

/*! \brief Demangled frames, innermost first, at most max_depth of them. */
std::string FormatFrames(int skip, int max_depth);

/*! \brief Installs handlers for SIGSEGV, SIGBUS, SIGFPE that print a backtrace. */
void InstallFatalSignalHandlers();

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_STACK_TRACE_H_
