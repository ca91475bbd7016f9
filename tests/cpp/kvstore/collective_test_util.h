// Helpers for the collective group tests: N thread-ranks over one in-process world.
#ifndef MXNET_TESTS_CPP_KVSTORE_COLLECTIVE_TEST_UTIL_H_
#define MXNET_TESTS_CPP_KVSTORE_COLLECTIVE_TEST_UTIL_H_

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kvstore/collective_group.h"
#include "kvstore/transport_inproc.h"

namespace mxnet {
namespace kvstore {
namespace test {

/*! \brief Makes rank r's transport over the world (to wrap the in-process one). */
using TransportFactory = std::function<std::unique_ptr<Transport>(InProcWorld* world, int rank)>;

/*! \brief One group per rank over an in-process world. */
struct Ranks {
  std::shared_ptr<InProcWorld> world;
  std::vector<std::unique_ptr<CollectiveGroup>> groups;

  explicit Ranks(int n, double timeout_sec = 20, size_t fusion_bytes = 1 << 20, const TransportFactory& make = nullptr)
      : world(InProcWorld::Create(n)) {
    for (int r = 0; r < n; ++r) {
      std::unique_ptr<Transport> t = make ? make(world.get(), r) : world->CreateTransport(r);
      groups.push_back(std::make_unique<CollectiveGroup>(std::move(t), timeout_sec, fusion_bytes));
    }
  }
  // Each group's destructor ends with a barrier with its peers, so they close concurrently,
  // as the processes of a job do.
  ~Ranks() {
    std::vector<std::thread> closers;
    for (auto& g : groups) closers.emplace_back([&g] { g.reset(); });
    for (auto& t : closers) t.join();
  }
  int size() const { return static_cast<int>(groups.size()); }
  CollectiveGroup& operator[](int r) { return *groups[r]; }

  /*! \brief Runs body(rank, group) on one thread per rank (ranks in `only`, or all) and joins them. */
  void Run(const std::function<void(int, CollectiveGroup&)>& body, std::vector<int> only = {}) {
    if (only.empty()) {
      for (int r = 0; r < size(); ++r) only.push_back(r);
    }
    std::vector<std::thread> threads;
    for (int r : only) threads.emplace_back([&, r] { body(r, *groups[r]); });
    for (auto& t : threads) t.join();
  }
};

/*! \brief A done callback whose result can be waited for. */
struct Outcome {
  std::shared_ptr<std::promise<std::string>> promise = std::make_shared<std::promise<std::string>>();
  std::shared_future<std::string> future = promise->get_future().share();
  CollectiveDone Callback() const {
    auto p = promise;
    return [p](const std::string& error) { p->set_value(error); };
  }
  /*! \brief The error ("" on success); fails the test if done does not come within limit. */
  std::string Wait(double limit_sec = 30) const {
    if (future.wait_for(std::chrono::duration<double>(limit_sec)) != std::future_status::ready) {
      return "<<done was not called within the limit>>";
    }
    return future.get();
  }
};

/*! \brief Whether an error message mentions part. */
inline bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline CollectiveDesc Allreduce(int64_t key, int64_t count, int dtype) {
  CollectiveDesc d;
  d.kind = CollectiveKind::kAllreduceSum;
  d.key = key;
  d.count = count;
  d.dtype = dtype;
  return d;
}
inline CollectiveDesc Broadcast(int64_t key, int64_t count, int dtype) {
  CollectiveDesc d = Allreduce(key, count, dtype);
  d.kind = CollectiveKind::kBroadcast;
  return d;
}
inline CollectiveDesc Allgather(int64_t key, int64_t count, int dtype) {
  CollectiveDesc d = Allreduce(key, count, dtype);
  d.kind = CollectiveKind::kAllgather;
  return d;
}
inline CollectiveDesc Barrier() {
  CollectiveDesc d;
  d.kind = CollectiveKind::kBarrier;
  d.key = -1;
  return d;
}

inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace test
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_TESTS_CPP_KVSTORE_COLLECTIVE_TEST_UTIL_H_
