/*!
 * \file task_queue.h
 * \brief The blocking queue a worker pool pops from: FIFO (with push-front for deletions)
 *        or by priority (larger first, FIFO among equals). Kill wakes every waiter.
 */
#ifndef MXNET_ENGINE_TASK_QUEUE_H_
#define MXNET_ENGINE_TASK_QUEUE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <queue>
#include <vector>

namespace mxnet {
namespace engine {

template <typename T>
class TaskQueue {
 public:
  explicit TaskQueue(bool by_priority) : by_priority_(by_priority) {}

  void Push(T item, int priority = 0, bool front = false) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (by_priority_) {
        heap_.push(Entry{priority, seq_++, item});
      } else if (front) {
        fifo_.push_front(item);
      } else {
        fifo_.push_back(item);
      }
      // Waking costs a futex call: skip it while every worker is busy.
      if (num_waiting_ == 0) return;
    }
    cv_.notify_one();
  }

  /*! \brief Blocks for the next item; false once killed (remaining items are dropped). */
  bool Pop(T* out) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!killed_ && Empty()) {
      ++num_waiting_;
      cv_.wait(lock);
      --num_waiting_;
    }
    if (killed_) return false;
    if (by_priority_) {
      *out = heap_.top().item;
      heap_.pop();
    } else {
      *out = fifo_.front();
      fifo_.pop_front();
    }
    return true;
  }

  void Kill() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      killed_ = true;
    }
    cv_.notify_all();
  }

 private:
  struct Entry {
    int priority;
    uint64_t seq;
    T item;
    bool operator<(const Entry& o) const {
      // std::priority_queue pops the largest: higher priority, then earlier push.
      return priority != o.priority ? priority < o.priority : seq > o.seq;
    }
  };
  bool Empty() const { return by_priority_ ? heap_.empty() : fifo_.empty(); }

  const bool by_priority_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> fifo_;
  std::priority_queue<Entry> heap_;
  uint64_t seq_{0};
  int num_waiting_{0};
  bool killed_{false};
};

}  // namespace engine
}  // namespace mxnet

#endif  // MXNET_ENGINE_TASK_QUEUE_H_
