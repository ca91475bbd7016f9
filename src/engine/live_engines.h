/*!
 * \file live_engines.h
 * \brief Every threaded engine alive in the process, so fork() can stop and restart all
 *        of their workers and a thread's leftover bulk is never flushed into a dead engine.
 */
#ifndef MXNET_ENGINE_LIVE_ENGINES_H_
#define MXNET_ENGINE_LIVE_ENGINES_H_

namespace mxnet {
namespace engine {

class ThreadedEngine;

/*! \brief Also installs the pthread_atfork handlers on first use. */
void RegisterLiveEngine(ThreadedEngine* engine);
void UnregisterLiveEngine(ThreadedEngine* engine);
bool IsLiveEngine(ThreadedEngine* engine);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_LIVE_ENGINES_H_
