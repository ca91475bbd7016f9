/*!
 * \file worker_pool.h
 * \brief A task queue with the threads that serve it: the unit the threaded engines
 *        schedule onto (one per device and kind of work).
 */
#ifndef MXNET_ENGINE_WORKER_POOL_H_
#define MXNET_ENGINE_WORKER_POOL_H_

#include <functional>
#include <memory>

#include "engine/engine_var.h"
#include "engine/task_queue.h"
#include "engine/thread_pool.h"

namespace mxnet {
namespace engine {

struct WorkerPool {
  /*! \brief worker(index, queue) runs on each thread until the queue is killed. */
  WorkerPool(int threads, bool by_priority, const std::function<void(int, TaskQueue<OprBlock*>*)>& worker)
      : queue(by_priority), pool(threads, [this, worker](int i) { worker(i, &queue); }) {}
  ~WorkerPool() {
    queue.Kill();
    // ThreadPool's destructor then joins the threads.
  }
  void Push(OprBlock* block) {
    // Deletions go first: they free memory the queued ops may be waiting for.
    queue.Push(block, block->priority, block->opr->prop == FnProperty::kDeleteVar);
  }

  TaskQueue<OprBlock*> queue;
  ThreadPool pool;
};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_WORKER_POOL_H_
