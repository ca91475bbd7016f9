/*!
 * \file spin_lock.h
 * \brief The pool's lock. Critical sections are a free-list pop or push and a few counter
 *        updates (device calls happen outside it), so a spin lock whose unlock is a plain
 *        store beats std::mutex, whose lock and unlock are both atomic read-modify-writes.
 *        After a short spin it yields, so a descheduled holder does not burn the waiter's CPU.
 */
#ifndef MXNET_STORAGE_SPIN_LOCK_H_
#define MXNET_STORAGE_SPIN_LOCK_H_

#include <atomic>
#include <thread>

namespace mxnet {
namespace storage {

class SpinLock {
 public:
  void lock() noexcept {
    int spins = 0;
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 64;
  std::atomic<bool> locked_{false};
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_SPIN_LOCK_H_
