/*!
 * \file thread_buffer.h
 * \brief Per-thread event buffers. Each is single-producer (its thread) / single-consumer
 *        (the collector, serialized by its own mutex): the producer fills a fixed-size
 *        chunk and publishes the count with a release store, linking a new chunk when one
 *        is full; the consumer reads published records with acquire loads and frees chunks
 *        the producer has moved past. No lock and no allocation on the recording path
 *        except one chunk per kChunkRecords events.
 */
#ifndef MXNET_PROFILER_THREAD_BUFFER_H_
#define MXNET_PROFILER_THREAD_BUFFER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "profiler/record.h"

namespace mxnet {
namespace profiler {

class ThreadBuffer {
 public:
  static constexpr size_t kChunkRecords = 512;

  ThreadBuffer();
  ~ThreadBuffer();
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  /*! \brief Producer: the slot for the next record; fill it, then call Commit(). */
  Record* Reserve();
  void Commit() { tail_->count.store(tail_count_ + 1, std::memory_order_release); }

  /*! \brief Consumer: calls fn on every record published since the last drain. */
  void Drain(const std::function<void(const Record&)>& fn);

  /*! \brief Set by the owning thread when it exits; the buffer is then dropped once drained. */
  std::atomic<bool> orphaned{false};
  /*! \brief Consumer: true when nothing published is left unread. */
  bool Empty() const;

 private:
  struct Chunk {
    Record records[kChunkRecords];
    std::atomic<size_t> count{0};
    std::atomic<Chunk*> next{nullptr};
  };
  // Producer side.
  Chunk* tail_;
  size_t tail_count_{0};
  // Consumer side.
  Chunk* head_;
  size_t read_pos_{0};
};

/*! \brief The calling thread's buffer, created and registered on first use. */
ThreadBuffer* ThisThreadBuffer();
/*! \brief Hash of the calling thread's id, as trace "tid" values (cached per thread). */
uint64_t ThisThreadHash();
/*! \brief Consumer: drains every registered buffer; forgets drained buffers of exited threads. */
void DrainAllBuffers(const std::function<void(const Record&)>& fn);

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_THREAD_BUFFER_H_
