#include "profiler/thread_buffer.h"

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mxnet {
namespace profiler {

ThreadBuffer::ThreadBuffer() : tail_(new Chunk), head_(tail_) {}

ThreadBuffer::~ThreadBuffer() {
  Chunk* c = head_;
  while (c != nullptr) {
    Chunk* next = c->next.load(std::memory_order_acquire);
    delete c;
    c = next;
  }
}

Record* ThreadBuffer::Reserve() {
  tail_count_ = tail_->count.load(std::memory_order_relaxed);
  if (tail_count_ == kChunkRecords) {
    Chunk* fresh = new Chunk;
    // Once `next` is visible the consumer may free the full chunk: never touch it again.
    tail_->next.store(fresh, std::memory_order_release);
    tail_ = fresh;
    tail_count_ = 0;
  }
  return &tail_->records[tail_count_];
}

void ThreadBuffer::Drain(const std::function<void(const Record&)>& fn) {
  for (;;) {
    size_t published = head_->count.load(std::memory_order_acquire);
    for (; read_pos_ < published; ++read_pos_) fn(head_->records[read_pos_]);
    if (published < kChunkRecords) return;
    Chunk* next = head_->next.load(std::memory_order_acquire);
    if (next == nullptr) return;  // full, but the producer has not linked the next chunk yet
    delete head_;
    head_ = next;
    read_pos_ = 0;
  }
}

bool ThreadBuffer::Empty() const {
  return read_pos_ == head_->count.load(std::memory_order_acquire) &&
         head_->next.load(std::memory_order_acquire) == nullptr;
}

namespace {
struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};
// Never destroyed: threads may record and the collector may drain during process exit.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// Owned jointly by the thread and the registry, so a thread that exits with events
// still buffered loses none of them.
struct ThreadSlot {
  std::shared_ptr<ThreadBuffer> buffer;
  ~ThreadSlot() {
    if (buffer) buffer->orphaned.store(true, std::memory_order_release);
  }
};
}  // namespace

ThreadBuffer* ThisThreadBuffer() {
  thread_local ThreadSlot slot;
  if (!slot.buffer) {
    auto buffer = std::make_shared<ThreadBuffer>();
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.buffers.push_back(buffer);
    slot.buffer = std::move(buffer);
  }
  return slot.buffer.get();
}

uint64_t ThisThreadHash() {
  thread_local uint64_t hash = std::hash<std::thread::id>()(std::this_thread::get_id());
  return hash;
}

void DrainAllBuffers(const std::function<void(const Record&)>& fn) {
  Registry& r = GetRegistry();
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    buffers = r.buffers;
  }
  std::vector<ThreadBuffer*> finished;
  for (auto& b : buffers) {
    // Read the flag first: if it is set, the thread wrote its last record before setting it.
    bool orphaned = b->orphaned.load(std::memory_order_acquire);
    b->Drain(fn);
    if (orphaned && b->Empty()) finished.push_back(b.get());
  }
  if (finished.empty()) return;
  std::lock_guard<std::mutex> lock(r.mu);
  for (ThreadBuffer* dead : finished) {
    for (auto it = r.buffers.begin(); it != r.buffers.end(); ++it) {
      if (it->get() == dead) {
        r.buffers.erase(it);
        break;
      }
    }
  }
}

}  // namespace profiler
}  // namespace mxnet
