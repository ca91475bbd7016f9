/*!
 * \file fork_hooks.h
 * \brief Callbacks run in a child process right after fork(), for modules above the engine
 *        (the image codec resets OpenCV's threads there) that must not be known to it.
 */
#ifndef MXNET_COMMON_FORK_HOOKS_H_
#define MXNET_COMMON_FORK_HOOKS_H_

namespace mxnet {
namespace common {

/*!
 * \brief Runs `fn` in every child forked after this call, on the forking thread, before
 *        fork() returns there. Hooks run in registration order. `fn` must only do what is
 *        safe between fork and exec in a process that had threads (no locks others may hold).
 */
void AddAfterForkChildHook(void (*fn)());

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_FORK_HOOKS_H_
