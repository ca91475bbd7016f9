/*!
 * \file shutdown.h
 * \brief Ordered shutdown: lower layers (engine, storage) register what must happen when
 *        the process ends (MXNotifyShutdown), without the C API knowing their internals.
 */
#ifndef MXNET_COMMON_SHUTDOWN_H_
#define MXNET_COMMON_SHUTDOWN_H_

#include <functional>

namespace mxnet {
namespace common {

/*! \brief Handlers run once, in reverse order of registration (the last started stops first). */
void RegisterShutdownHandler(std::function<void()> handler);
void RunShutdownHandlers();

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_SHUTDOWN_H_
