/*!
 * \file iter_image_recordio_threads.h
 * \brief How many threads decode images for ImageRecordIter.
 *        - preprocess_threads given: exactly that many;
 *        - in a process forked after the library loaded (a DataLoader worker): the engine's
 *          per-worker budget, MXNET_MP_WORKER_NTHREADS, so N workers do not each start 4;
 *        - ctx='cpu': the OpenMP threads one engine worker would use (OMP_NUM_THREADS, else
 *          cores / MXNET_CPU_WORKER_NTHREADS), since the batches feed CPU compute that needs the rest;
 *        - ctx='gpu' (the default): min(preprocess_threads default 4, max(1, cores / 2)).
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_THREADS_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_THREADS_H_

namespace mxnet {
namespace io {

int PreprocessThreads(bool user_set, int requested, bool ctx_cpu);
/*! \brief Whether this process was forked from the one that loaded the library. */
bool InForkedChild();

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_THREADS_H_
