/*!
 * \file logging.h
 * \brief Warnings and information for the user, on stderr, in one recognisable format.
 */
#ifndef MXNET_COMMON_LOGGING_H_
#define MXNET_COMMON_LOGGING_H_

#include <string>

namespace mxnet {
namespace common {

void LogWarning(const std::string& message);
void LogInfo(const std::string& message);

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_LOGGING_H_
