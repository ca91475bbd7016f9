/*!
 * \file scratch_vector.h
 * \brief Per-thread reusable vectors for the per-operation lists of the invoke path.
 *
 * A tiny operator's call builds a dozen short lists (shapes, dtypes, blobs, handles); a fresh
 * heap block for each was a large part of its cost. A ScratchVector borrows a cleared vector
 * from the calling thread's pool and returns it, capacity kept, when it goes out of scope.
 * Nested calls (an op that runs ops inline, a custom op's callback) simply borrow another.
 */
#ifndef MXNET_COMMON_SCRATCH_VECTOR_H_
#define MXNET_COMMON_SCRATCH_VECTOR_H_

#include <memory>
#include <vector>

namespace mxnet {
namespace common {

template <typename T>
class ScratchVector {
 public:
  ScratchVector() : v_(Acquire()) {}
  ~ScratchVector() { Release(v_); }
  ScratchVector(const ScratchVector&) = delete;
  ScratchVector& operator=(const ScratchVector&) = delete;

  std::vector<T>& operator*() { return *v_; }
  std::vector<T>* operator->() { return v_; }
  std::vector<T>* get() { return v_; }

 private:
  /*! \brief Vectors kept per thread and type; larger ones go back to the heap. */
  static constexpr size_t kPoolSize = 16, kMaxKeptCapacity = 256;

  struct Pool {
    std::vector<std::unique_ptr<std::vector<T>>> items;
    /*! \brief Cleared when the thread's pool is destroyed (at thread or process exit): a call
     *         made after that (from a later destructor) uses the heap. */
    bool alive{true};
    ~Pool() { alive = false; }
  };
  static Pool& ThisThreadPool() {
    thread_local Pool pool;
    return pool;
  }
  static std::vector<T>* Acquire() {
    Pool& pool = ThisThreadPool();
    if (!pool.alive || pool.items.empty()) return new std::vector<T>();
    std::vector<T>* v = pool.items.back().release();
    pool.items.pop_back();
    return v;
  }
  static void Release(std::vector<T>* v) {
    v->clear();
    Pool& pool = ThisThreadPool();
    if (pool.alive && pool.items.size() < kPoolSize && v->capacity() <= kMaxKeptCapacity) {
      pool.items.emplace_back(v);
    } else {
      delete v;
    }
  }

  std::vector<T>* v_;
};

}  // namespace common
}  // namespace mxnet

#endif  // MXNET_COMMON_SCRATCH_VECTOR_H_
