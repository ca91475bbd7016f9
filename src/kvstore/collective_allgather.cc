// The data phase of an allgather: every rank sends its part straight to every other rank and
// receives theirs straight into place, so nothing is copied and no receive space is needed.
#include <algorithm>
#include <vector>

#include "kvstore/collective_data_phase.h"
#include "kvstore/collective_protocol.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {

namespace {

using Request = std::unique_ptr<TransportRequest>;

// One part's chunks in one direction with one peer. At most kReceiveWindow are outstanding:
// the receiver takes no more at once either, and the requests stay few for large parts.
struct Stream {
  std::vector<Request> requests;  // per chunk
  size_t posted = 0;
  size_t completed = 0;
  size_t oldest = 0;  // requests before it have all completed
  bool finished() const { return completed == requests.size(); }
};

class Allgather : public DataPhase {
 public:
  Allgather(Transport* t, char* data, size_t count, int dtype, size_t chunk_bytes)
      : t_(t), me_(t->rank()), n_(t->size()), data_(data), part_bytes_(count * DTypeSize(dtype)) {
    const size_t elem = DTypeSize(dtype);
    chunk_bytes_ = std::max<size_t>(1, chunk_bytes / elem) * elem;
    const size_t chunks = (part_bytes_ + chunk_bytes_ - 1) / chunk_bytes_;
    sends_.resize(n_);
    recvs_.resize(n_);
    for (int p = 0; p < n_; ++p) {
      if (p == me_) continue;
      sends_[p].requests.resize(chunks);
      recvs_[p].requests.resize(chunks);
    }
    // Receives first, so that the peers' first chunks find them posted.
    for (int p = 0; p < n_; ++p) Post(p, false);
    for (int p = 0; p < n_; ++p) Post(p, true);
  }

  bool Progress(bool* progressed) override {
    bool finished = true;
    for (int i = 0; i < 2 * n_; ++i) {
      const int p = i % n_;
      const bool send = i >= n_;
      Stream& s = send ? sends_[p] : recvs_[p];
      for (size_t c = s.oldest; c < s.posted; ++c) {
        Request& r = s.requests[c];
        if (r && RequestDone(&r, progressed)) ++s.completed;
      }
      while (s.oldest < s.posted && !s.requests[s.oldest]) ++s.oldest;
      Post(p, send);
      finished = finished && s.finished();
    }
    return finished;
  }

  std::vector<int> AwaitedPeers() const override {
    std::vector<int> awaited;
    for (int p = 0; p < n_; ++p) {
      if (!sends_[p].finished() || !recvs_[p].finished()) awaited.push_back(p);
    }
    return awaited;
  }

 private:
  void Post(int p, bool send) {
    Stream& s = send ? sends_[p] : recvs_[p];
    while (s.posted < s.requests.size() && s.posted - s.completed < kReceiveWindow) {
      const size_t at = s.posted * chunk_bytes_;
      const size_t len = std::min(chunk_bytes_, part_bytes_ - at);
      s.requests[s.posted] = send ? t_->ISend(data_ + me_ * part_bytes_ + at, len, p, protocol::kTagGatherParts)
                                  : t_->IRecv(data_ + p * part_bytes_ + at, len, p, protocol::kTagGatherParts);
      ++s.posted;
    }
  }

  Transport* t_;
  const int me_, n_;
  char* data_;
  const size_t part_bytes_;
  size_t chunk_bytes_ = 1;
  std::vector<Stream> sends_, recvs_;  // per peer (empty for this rank)
};

}  // namespace

std::unique_ptr<DataPhase> StartAllgather(Transport* transport, void* data, size_t count, int dtype,
                                          size_t chunk_bytes) {
  return std::make_unique<Allgather>(transport, static_cast<char*>(data), count, dtype, chunk_bytes);
}

}  // namespace kvstore
}  // namespace mxnet
