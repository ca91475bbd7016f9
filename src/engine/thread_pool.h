/*!
 * \file thread_pool.h
 * \brief A fixed set of threads running one loop each; joined on destruction.
 */
#ifndef MXNET_ENGINE_THREAD_POOL_H_
#define MXNET_ENGINE_THREAD_POOL_H_

#include <functional>
#include <thread>
#include <vector>

namespace mxnet {
namespace engine {

class ThreadPool {
 public:
  /*! \brief Starts `size` threads running worker(i). */
  ThreadPool(int size, const std::function<void(int)>& worker) {
    threads_.reserve(size);
    for (int i = 0; i < size; ++i) threads_.emplace_back(worker, i);
  }
  /*! \brief The loops must already have been told to end (their queue killed). */
  ~ThreadPool() {
    for (auto& t : threads_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  int size() const { return static_cast<int>(threads_.size()); }

 private:
  std::vector<std::thread> threads_;
};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_THREAD_POOL_H_
