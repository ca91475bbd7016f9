/*!
 * \file cpu_load.h
 * \brief How many OpenMP threads an operator should use now, given how busy other processes
 *        keep the cores. A parallel region waits for its slowest thread: when another process
 *        holds a core, a second thread of ours only gets that core in time slices and every
 *        region stalls on it (a ResNet-18 batch-1 forward went from 19 to 117-132 ms beside
 *        one busy process; one thread per op took 31 ms). So ops run on the cores the other
 *        processes leave free (MXNET_CPU_LOAD_ADAPTIVE).
 */
#ifndef MXNET_ENGINE_CPU_LOAD_H_
#define MXNET_ENGINE_CPU_LOAD_H_

namespace mxnet {
namespace engine {

/*!
 * \brief Threads for the next op on a CPU worker, at most `configured`; `workers` CPU workers
 *        share the free cores. Samples /proc/stat and this process's CPU time at most every
 *        100 ms (a clock read per call otherwise); `configured` when adaptation is off or the
 *        load cannot be read.
 */
int AdaptiveOmpThreads(int configured, int workers);

/*! \brief Cores the other processes kept busy over the last sample (for tests and info). */
double OtherProcessesBusyCores();

/*! \brief Sets the calling thread's OpenMP threads to AdaptiveOmpThreads(...) when it changed. */
void ApplyAdaptiveOmpThreads(int configured, int workers);

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_CPU_LOAD_H_
