#include "kvstore/transport_inproc.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace mxnet {
namespace kvstore {

namespace {

class World;

// One side of a message; shared by the request object and the world's queues.
struct Operation {
  bool is_send = false;
  const void* send_buf = nullptr;
  void* recv_buf = nullptr;
  size_t bytes = 0;  // send: message size; receive: capacity
  bool completed = false;
  size_t received = 0;
  std::string error;  // a message longer than the receive buffer
};

using Channel = std::tuple<int, int, int>;  // src, dst, tag

class World : public InProcWorld, public std::enable_shared_from_this<World> {
 public:
  explicit World(int size) : size_(size), alive_(size, true) {}
  int size() const override { return size_; }
  std::unique_ptr<Transport> CreateTransport(int rank) override;

  void Kill(int rank) override {
    std::lock_guard<std::mutex> lock(mu_);
    alive_.at(rank) = false;
    // Queued operations involving the rank stay incomplete for ever.
    for (auto it = queues_.begin(); it != queues_.end();) {
      const auto& [src, dst, tag] = it->first;
      if (src == rank || dst == rank) {
        it = queues_.erase(it);
      } else {
        ++it;
      }
    }
  }

  bool Alive(int rank) {
    std::lock_guard<std::mutex> lock(mu_);
    return alive_.at(rank);
  }

  uint64_t delivered_messages() const override { return delivered_.load(); }

  void Post(const std::shared_ptr<Operation>& op, int src, int dst, int tag) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!alive_.at(src) || !alive_.at(dst)) return;  // never completes
    Queues& q = queues_[Channel(src, dst, tag)];
    auto& partners = op->is_send ? q.recvs : q.sends;
    if (partners.empty()) {
      (op->is_send ? q.sends : q.recvs).push_back(op);
      return;
    }
    std::shared_ptr<Operation> other = partners.front();
    partners.pop_front();
    Deliver(op->is_send ? *op : *other, op->is_send ? *other : *op);
  }

  void Abandon(const std::shared_ptr<Operation>& op, int src, int dst, int tag) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = queues_.find(Channel(src, dst, tag));
    if (it == queues_.end()) return;
    for (auto* list : {&it->second.sends, &it->second.recvs}) {
      for (auto e = list->begin(); e != list->end(); ++e) {
        if (*e == op) {
          list->erase(e);
          return;
        }
      }
    }
  }

  bool Completed(const Operation& op) {
    std::lock_guard<std::mutex> lock(mu_);
    return op.completed;
  }

 private:
  struct Queues {
    std::deque<std::shared_ptr<Operation>> sends, recvs;
  };

  void Deliver(Operation& send, Operation& recv) {
    if (send.bytes > recv.bytes) {
      recv.error = "message of " + std::to_string(send.bytes) + " bytes for a receive of " + std::to_string(recv.bytes);
    } else if (send.bytes > 0) {
      std::memcpy(recv.recv_buf, send.send_buf, send.bytes);
    }
    recv.received = send.bytes;
    send.completed = recv.completed = true;
    delivered_.fetch_add(1);
  }

  const int size_;
  std::mutex mu_;
  std::vector<bool> alive_;
  std::map<Channel, Queues> queues_;
  std::atomic<uint64_t> delivered_{0};
};

// A killed rank's own calls throw, so its group fails at once like a dead process's would end.
void CheckNotKilled(World& world, int rank) {
  if (!world.Alive(rank)) throw std::runtime_error("thread-rank " + std::to_string(rank) + " was killed");
}

class InProcRequest : public TransportRequest {
 public:
  InProcRequest(std::shared_ptr<World> world, std::shared_ptr<Operation> op, int src, int dst, int tag)
      : world_(std::move(world)), op_(std::move(op)), src_(src), dst_(dst), tag_(tag) {}
  ~InProcRequest() override {
    if (!done_) world_->Abandon(op_, src_, dst_, tag_);
  }
  bool Test() override {
    CheckNotKilled(*world_, op_->is_send ? src_ : dst_);
    if (!done_ && world_->Completed(*op_)) {
      done_ = true;
      if (!op_->error.empty()) throw std::runtime_error(op_->error);
    }
    return done_;
  }
  size_t received_bytes() const override { return op_->received; }

 private:
  std::shared_ptr<World> world_;
  std::shared_ptr<Operation> op_;
  int src_, dst_, tag_;
  bool done_ = false;
};

class InProcTransport : public Transport {
 public:
  InProcTransport(std::shared_ptr<World> world, int rank) : world_(std::move(world)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_->size(); }
  std::unique_ptr<TransportRequest> ISend(const void* buf, size_t bytes, int dst, int tag) override {
    CheckNotKilled(*world_, rank_);
    auto op = std::make_shared<Operation>();
    op->is_send = true;
    op->send_buf = buf;
    op->bytes = bytes;
    world_->Post(op, rank_, dst, tag);
    return std::make_unique<InProcRequest>(world_, op, rank_, dst, tag);
  }
  std::unique_ptr<TransportRequest> IRecv(void* buf, size_t bytes, int src, int tag) override {
    CheckNotKilled(*world_, rank_);
    auto op = std::make_shared<Operation>();
    op->recv_buf = buf;
    op->bytes = bytes;
    world_->Post(op, src, rank_, tag);
    return std::make_unique<InProcRequest>(world_, op, src, rank_, tag);
  }
  std::string Describe() const override { return "thread-rank " + std::to_string(rank_); }
  bool PeerAlive(int rank) override { return world_->Alive(rank); }
  void Abort(int code) override {}
  void Finalize() override {}

 private:
  std::shared_ptr<World> world_;
  int rank_;
};

std::unique_ptr<Transport> World::CreateTransport(int rank) {
  if (rank < 0 || rank >= size_) throw std::out_of_range("rank " + std::to_string(rank) + " outside the world");
  return std::make_unique<InProcTransport>(shared_from_this(), rank);
}

}  // namespace

std::shared_ptr<InProcWorld> InProcWorld::Create(int size) {
  if (size < 1) throw std::invalid_argument("an in-process world needs at least one rank");
  return std::make_shared<World>(size);
}

}  // namespace kvstore
}  // namespace mxnet
