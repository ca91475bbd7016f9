/*!
 * \file autostart.h
 * \brief MXNET_PROFILER_AUTOSTART: running from library load, profile.json written at exit.
 */
#ifndef MXNET_PROFILER_AUTOSTART_H_
#define MXNET_PROFILER_AUTOSTART_H_

namespace mxnet {
namespace profiler {

/*! \brief Called once the env registry is loaded; starts the profiler if asked to. */
void StartFromEnvironment();
/*! \brief Makes sure the trace is closed at exit, by MXNotifyShutdown or by exit() itself. */
void EnsureWrittenAtExit();

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_AUTOSTART_H_
