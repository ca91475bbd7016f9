/*!
 * \file thread_policy.h
 * \brief How many threads run ops and how many OpenMP threads each op may use, so that
 *        workers x OpenMP threads does not oversubscribe the cores by default.
 */
#ifndef MXNET_ENGINE_THREAD_POLICY_H_
#define MXNET_ENGINE_THREAD_POLICY_H_

namespace mxnet {
namespace engine {

/*! \brief Cores this process may run on (its affinity mask), at least 1. */
int NumCores();
/*! \brief OMP_NUM_THREADS when set, else cores / cpu_workers (at least 1). */
int DefaultOmpThreadsPerWorker(int cpu_workers);
/*! \brief Sets the calling thread's OpenMP thread count (no-op without OpenMP). */
void SetOmpThreadsForThisThread(int n);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_THREAD_POLICY_H_
