/*!
 * \file record_pool.h
 * \brief Per-thread free lists for the small records every pushed op needs (its Opr, its
 *        OprBlock, a queue block per written var).
 *
 * A tiny op's whole cost is a microsecond or two, and a heap allocation and free of each record
 * was a sizeable part of it. A record taken here comes from the calling thread's list (or the
 * heap) and goes back to the list of whichever thread releases it (or the heap when that list
 * is full), so lists are never shared and need no lock. Records must be reset by the caller.
 */
#ifndef MXNET_ENGINE_RECORD_POOL_H_
#define MXNET_ENGINE_RECORD_POOL_H_

#include <cstddef>
#include <vector>

namespace mxnet {
namespace engine {

template <typename T>
class RecordPool {
 public:
  /*! \brief A record from this thread's list, or a new one. */
  static T* Take() {
    Pool& pool = ThisThread();
    if (!pool.alive || pool.free.empty()) return new T();
    T* r = pool.free.back();
    pool.free.pop_back();
    return r;
  }
  /*! \brief Keeps r for reuse by this thread, or frees it when the list is full. */
  static void Give(T* r) {
    Pool& pool = ThisThread();
    if (pool.alive && pool.free.size() < kKept) {
      pool.free.push_back(r);
    } else {
      delete r;
    }
  }

 private:
  static constexpr size_t kKept = 64;
  struct Pool {
    std::vector<T*> free;
    /*! \brief Cleared when the thread's list is destroyed (thread or process exit): records
     *         released after that go back to the heap. */
    bool alive{true};
    ~Pool() {
      alive = false;
      for (T* r : free) delete r;
      free.clear();
    }
  };
  static Pool& ThisThread() {
    thread_local Pool pool;
    return pool;
  }
};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_RECORD_POOL_H_
