#include "kvstore/collective_data_phase.h"

#include <algorithm>
#include <set>
#include <utility>

#include "kvstore/collective_protocol.h"
#include "kvstore/collective_sum.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {

char* ScratchSpace::Get(size_t bytes) {
  if (bytes > size_) {
    data_.reset();  // release first: the old and new buffers need not coexist
    data_.reset(new char[bytes]);
    size_ = bytes;
  }
  return data_.get();
}

bool RequestDone(std::unique_ptr<TransportRequest>* request, bool* progressed) {
  if (!*request) return true;
  if (!(*request)->Test()) return false;
  request->reset();
  *progressed = true;
  return true;
}

namespace {

using Request = std::unique_ptr<TransportRequest>;

struct Range {
  size_t begin = 0;  // elements
  size_t size = 0;
};

class Allreduce : public DataPhase {
 public:
  Allreduce(Transport* t, char* data, size_t count, int dtype, size_t chunk_bytes, ScratchSpace* scratch)
      : t_(t), me_(t->rank()), n_(t->size()), data_(data), dtype_(dtype), elem_(DTypeSize(dtype)) {
    chunk_elems_ = std::max<size_t>(1, chunk_bytes / elem_);
    const size_t base = count / n_, extra = count % n_;
    size_t at = 0;
    for (int j = 0; j < n_; ++j) {
      const size_t len = base + (static_cast<size_t>(j) < extra ? 1 : 0);
      slices_.push_back(Range{at, len});
      at += len;
    }
    my_chunks_ = NumChunks(me_);
    window_ = std::min(kReceiveWindow, my_chunks_);
    slot_bytes_ = std::min(chunk_elems_, slices_[me_].size) * elem_;
    scratch_ = scratch->Get(std::max<size_t>(1, window_ * (n_ - 1) * slot_bytes_));
    recv_.resize(window_ * n_);
    peers_.resize(n_);
    for (int p = 0; p < n_; ++p) {
      if (p == me_) continue;
      peers_[p].rs_send.resize(NumChunks(p));
      peers_[p].ag_recv.resize(NumChunks(p));
    }
    // Receives first, so that the peers' first chunks find them posted.
    PostReceives();
    for (int p = 0; p < n_; ++p) {
      if (p == me_) continue;
      for (size_t c = 0; c < peers_[p].rs_send.size(); ++c) {
        const Range r = Chunk(p, c);
        peers_[p].rs_send[c] = t_->ISend(data_ + r.begin * elem_, r.size * elem_, p, protocol::kTagReduceScatter);
      }
    }
  }

  bool Progress(bool* progressed) override {
    PostReceives();
    // Sum every chunk whose contributions are all in, in chunk order.
    while (summed_ < my_chunks_ && AllArrived(summed_, progressed)) {
      SumChunk(summed_);
      ++summed_;
      *progressed = true;
      PostReceives();
    }
    bool finished = summed_ == my_chunks_;
    for (int p = 0; p < n_; ++p) {
      if (p == me_) continue;
      Peer& peer = peers_[p];
      // The gathered chunk lands where our reduce-scatter chunk left from: only once that send
      // has completed.
      for (size_t c = 0; c < peer.rs_send.size(); ++c) RequestDone(&peer.rs_send[c], progressed);
      while (peer.ag_posted < peer.ag_recv.size() && !peer.rs_send[peer.ag_posted]) {
        const Range r = Chunk(p, peer.ag_posted);
        peer.ag_recv[peer.ag_posted] = t_->IRecv(data_ + r.begin * elem_, r.size * elem_, p, protocol::kTagAllgather);
        ++peer.ag_posted;
      }
      finished = finished && peer.ag_posted == peer.ag_recv.size();
      for (auto& req : peer.ag_recv) finished = RequestDone(&req, progressed) && finished;
      for (auto& req : peer.ag_send) finished = RequestDone(&req, progressed) && finished;
      for (auto& req : peer.rs_send) finished = !req && finished;
    }
    return finished;
  }

  std::vector<int> AwaitedPeers() const override {
    std::set<int> awaited;
    for (size_t i = 0; i < recv_.size(); ++i) {
      if (recv_[i]) awaited.insert(static_cast<int>(i % n_));
    }
    for (int p = 0; p < n_; ++p) {
      if (p == me_) continue;
      const Peer& peer = peers_[p];
      auto pending = [](const std::vector<Request>& v) {
        return std::any_of(v.begin(), v.end(), [](const Request& r) { return static_cast<bool>(r); });
      };
      if (pending(peer.rs_send) || pending(peer.ag_send) || pending(peer.ag_recv) ||
          peer.ag_posted < peer.ag_recv.size()) {
        awaited.insert(p);
      }
    }
    return {awaited.begin(), awaited.end()};
  }

 private:
  struct Peer {
    std::vector<Request> rs_send;  // our chunks of the peer's slice
    std::vector<Request> ag_recv;  // the peer's summed chunks, into our buffer
    size_t ag_posted = 0;
    std::vector<Request> ag_send;  // our summed chunks to the peer
  };

  size_t NumChunks(int rank) const { return (slices_[rank].size + chunk_elems_ - 1) / chunk_elems_; }
  Range Chunk(int rank, size_t c) const {
    const Range& s = slices_[rank];
    const size_t begin = c * chunk_elems_;
    return Range{s.begin + begin, std::min(chunk_elems_, s.size - begin)};
  }
  // Receive space of chunk c from peer p: window_ slots per peer.
  char* Slot(int p, size_t c) const {
    const size_t peer_index = p < me_ ? p : p - 1;
    return scratch_ + (peer_index * window_ + c % window_) * slot_bytes_;
  }
  Request& Recv(int p, size_t c) { return recv_[(c % window_) * n_ + p]; }

  void PostReceives() {
    while (posted_ < my_chunks_ && posted_ < summed_ + window_) {
      const Range r = Chunk(me_, posted_);
      for (int p = 0; p < n_; ++p) {
        if (p != me_) Recv(p, posted_) = t_->IRecv(Slot(p, posted_), r.size * elem_, p, protocol::kTagReduceScatter);
      }
      ++posted_;
    }
  }

  bool AllArrived(size_t c, bool* progressed) {
    if (c >= posted_) return false;
    bool all = true;
    for (int p = 0; p < n_; ++p) {
      if (p != me_) all = RequestDone(&Recv(p, c), progressed) && all;
    }
    return all;
  }

  void SumChunk(size_t c) {
    const Range r = Chunk(me_, c);
    char* mine = data_ + r.begin * elem_;
    std::vector<const void*> inputs(n_);
    for (int p = 0; p < n_; ++p) inputs[p] = p == me_ ? mine : Slot(p, c);
    SumInRankOrder(dtype_, inputs.data(), n_, mine, r.size);
    for (int p = 0; p < n_; ++p) {
      if (p != me_) peers_[p].ag_send.push_back(t_->ISend(mine, r.size * elem_, p, protocol::kTagAllgather));
    }
  }

  Transport* t_;
  const int me_, n_;
  char* data_;
  const int dtype_;
  const size_t elem_;
  size_t chunk_elems_ = 1;
  std::vector<Range> slices_;
  size_t my_chunks_ = 0, window_ = 0, slot_bytes_ = 0;
  char* scratch_ = nullptr;
  std::vector<Request> recv_;  // reduce-scatter receives: [slot][peer]
  size_t posted_ = 0;          // chunks of our slice whose receives are posted
  size_t summed_ = 0;
  std::vector<Peer> peers_;
};

class Broadcast : public DataPhase {
 public:
  Broadcast(Transport* t, char* data, size_t bytes, size_t chunk_bytes) : n_(t->size()) {
    // Root to each peer directly: broadcasts run at initialisation, where simplicity beats a
    // pipelined tree.
    const bool root = t->rank() == 0;
    for (size_t at = 0; at < bytes; at += chunk_bytes) {
      const size_t len = std::min(chunk_bytes, bytes - at);
      if (root) {
        for (int p = 1; p < n_; ++p) requests_.emplace_back(p, t->ISend(data + at, len, p, protocol::kTagBroadcast));
      } else {
        requests_.emplace_back(0, t->IRecv(data + at, len, 0, protocol::kTagBroadcast));
      }
    }
  }
  bool Progress(bool* progressed) override {
    bool finished = true;
    for (auto& [peer, req] : requests_) finished = RequestDone(&req, progressed) && finished;
    return finished;
  }
  std::vector<int> AwaitedPeers() const override {
    std::set<int> awaited;
    for (const auto& [peer, req] : requests_) {
      if (req) awaited.insert(peer);
    }
    return {awaited.begin(), awaited.end()};
  }

 private:
  const int n_;
  std::vector<std::pair<int, Request>> requests_;
};

}  // namespace

std::unique_ptr<DataPhase> StartAllreduce(Transport* transport, void* data, size_t count, int dtype, size_t chunk_bytes,
                                          ScratchSpace* scratch) {
  return std::make_unique<Allreduce>(transport, static_cast<char*>(data), count, dtype, chunk_bytes, scratch);
}

std::unique_ptr<DataPhase> StartBroadcast(Transport* transport, void* data, size_t bytes, size_t chunk_bytes) {
  return std::make_unique<Broadcast>(transport, static_cast<char*>(data), bytes, chunk_bytes);
}

}  // namespace kvstore
}  // namespace mxnet
