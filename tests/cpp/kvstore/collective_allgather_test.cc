// The allgather kind over thread-ranks: every rank's part lands in every rank's buffer for
// several part sizes and dtypes (empty, one element, several 1 MiB chunks); allgathers mixed
// with allreduces, broadcasts and barriers in one round; and failures (a different count, a
// rank that never joins, a rank killed half-way through the data phase), each naming the rank.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "collective_test_util.h"
#include "kvstore/collective_data_phase.h"
#include "kvstore/collective_group.h"
#include "kvstore/collective_protocol.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {
namespace {

using test::Outcome;
using test::Contains;
using test::Ranks;

// Element i of rank r's part: differs between ranks in every dtype used here (uint8 included).
template <typename T>
T PartValue(int r, int64_t i) {
  return static_cast<T>((r + 1) * 1000003 + i * 7919);
}

// A buffer of n parts: rank r's own part filled in, the others' set to a marker.
template <typename T>
std::vector<T> Filled(int r, int n, int64_t count, bool every_part = false) {
  std::vector<T> v(n * count, static_cast<T>(-1));
  for (int q = 0; q < n; ++q) {
    if (q != r && !every_part) continue;
    for (int64_t i = 0; i < count; ++i) v[q * count + i] = PartValue<T>(q, i);
  }
  return v;
}

template <typename T>
void RunAllgather(int r, int n, CollectiveGroup& g, int64_t key, int64_t count) {
  std::vector<T> data = Filled<T>(r, n, count);
  const int dtype = DTypeOf<T>::value;
  g.RunBlocking(test::Allgather(key, count, dtype), count ? data.data() : nullptr);
  const std::vector<T> expected = Filled<T>(r, n, count, true);
  ASSERT_TRUE(count == 0 || std::memcmp(data.data(), expected.data(), data.size() * sizeof(T)) == 0)
      << DTypeName(dtype) << " part of " << count << " on rank " << r << " of " << n;
}

class AllgatherRanks : public ::testing::TestWithParam<int> {};

TEST_P(AllgatherRanks, EveryRankReceivesEveryPart) {
  const int n = GetParam();
  Ranks ranks(n);
  ranks.Run([&](int r, CollectiveGroup& g) {
    // Empty parts (data may be null), parts shorter than the ranks, and parts of 2 and of 5
    // 1 MiB chunks (more than the window of 4 outstanding per peer).
    int64_t key = 0;
    for (int64_t count : {0, 1, 5, 1000, 300001}) RunAllgather<float>(r, n, g, key++, count);
    RunAllgather<uint8_t>(r, n, g, key++, 7);
    RunAllgather<int64_t>(r, n, g, key++, 333);
    RunAllgather<int32_t>(r, n, g, key++, 1100003);
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, AllgatherRanks, ::testing::Values(1, 2, 3, 4, 7));

// Allgathers between allreduces (which would otherwise fuse), broadcasts and barriers, all
// ready in one round, then the same kinds one at a time.
TEST(CollectiveAllgather, MixedWithOtherKindsInOneSequence) {
  for (int n : {2, 4}) {
    Ranks ranks(n);
    ranks.Run([&](int r, CollectiveGroup& g) {
      std::vector<float> f1(10, r + 1.0f), f2(3, 2.0f * r);
      std::vector<int32_t> a1 = Filled<int32_t>(r, n, 3);
      std::vector<float> a2 = Filled<float>(r, n, 5);
      std::vector<uint8_t> a3 = Filled<uint8_t>(r, n, 300001);
      std::vector<int64_t> b1(4, r == 0 ? 42 : -1);
      std::vector<uint64_t> seqs = {
          g.Announce(test::Allreduce(0, 10, kFloat32)),   g.Announce(test::Allgather(1, 3, kInt32)),
          g.Announce(test::Allgather(2, 5, kFloat32)),    g.Announce(test::Broadcast(3, 4, kInt64)),
          g.Announce(test::Allgather(4, 0, kFloat32)),    g.Announce(test::Barrier()),
          g.Announce(test::Allgather(5, 300001, kUint8)), g.Announce(test::Allreduce(6, 3, kFloat32))};
      std::vector<void*> data = {f1.data(), a1.data(), a2.data(), b1.data(), nullptr, nullptr, a3.data(), f2.data()};
      std::vector<Outcome> outcomes(seqs.size());
      for (int k = static_cast<int>(seqs.size()) - 1; k >= 0; --k) g.Start(seqs[k], data[k], outcomes[k].Callback());
      for (auto& o : outcomes) ASSERT_EQ(o.Wait(), "");
      const float ranks_sum = n * (n + 1) / 2.0f;
      EXPECT_EQ(f1, std::vector<float>(10, ranks_sum));
      EXPECT_EQ(f2, std::vector<float>(3, 2.0f * (ranks_sum - n)));
      EXPECT_EQ(a1, Filled<int32_t>(r, n, 3, true));
      EXPECT_EQ(a2, Filled<float>(r, n, 5, true));
      EXPECT_EQ(a3, Filled<uint8_t>(r, n, 300001, true));
      EXPECT_EQ(b1, std::vector<int64_t>(4, 42));

      for (int round = 0; round < 3; ++round) {
        const int64_t key = 10 + round * 10;
        RunAllgather<float>(r, n, g, key, 17 + round);
        std::vector<double> s(6, r + 0.5);
        g.RunBlocking(test::Allreduce(key + 1, 6, kFloat64), s.data());
        EXPECT_EQ(s, std::vector<double>(6, ranks_sum - n / 2.0));
        g.RunBlocking(test::Barrier(), nullptr);
        std::vector<int32_t> b(5, r == 0 ? round : -1);
        g.RunBlocking(test::Broadcast(key + 2, 5, kInt32), b.data());
        EXPECT_EQ(b, std::vector<int32_t>(5, round));
        RunAllgather<int64_t>(r, n, g, key + 3, 2);
      }
    });
    EXPECT_EQ(ranks[0].error(), "");
  }
}

TEST(CollectiveAllgather, AnnounceChecksDTypeAndSize) {
  Ranks ranks(2);
  EXPECT_THROW(ranks[0].Announce(test::Allgather(1, 4, 99)), Error);
  EXPECT_THROW(ranks[0].Announce(test::Allgather(1, -1, kFloat32)), Error);
  try {
    ranks[0].Announce(test::Allgather(1, INT64_MAX / 8 + 1, kFloat32));  // 2 ranks * 4 bytes overflow
    ADD_FAILURE() << "an allgather too large for one buffer was announced";
  } catch (const Error& e) {
    EXPECT_TRUE(Contains(e.what(), "allgather of 1152921504606846976 float32 per rank over 2 ranks")) << e.what();
  }
  // Parts are moved as bytes, so dtypes the allreduce cannot sum are fine.
  ranks.Run([](int r, CollectiveGroup& g) {
    bool data[6] = {false, false, false, false, false, false};
    data[3 * r] = true;
    data[3 * r + 2] = r == 1;
    g.RunBlocking(test::Allgather(2, 3, kBool), data);
    const bool expected[6] = {true, false, false, true, false, true};
    EXPECT_EQ(std::memcmp(data, expected, sizeof(data)), 0) << "rank " << r;
  });
}

TEST(CollectiveAllgather, ADifferentCountNamesTheRankOnEveryRank) {
  for (int odd : {2, 0}) {
    const int n = 3;
    Ranks ranks(n);
    std::vector<std::string> errors(n);
    ranks.Run([&](int r, CollectiveGroup& g) {
      RunAllgather<int32_t>(r, n, g, 7, 12);  // collective #0 agrees
      std::vector<int32_t> data = Filled<int32_t>(r, n, 12);
      Outcome o;
      g.Start(g.Announce(test::Allgather(7, r == odd ? 10 : 12, kInt32)), data.data(), o.Callback());
      errors[r] = o.Wait();
    });
    const std::string odd_one = "allgather of key 7 (10 int32 per rank)",
                      usual = "allgather of key 7 (12 int32 per rank)";
    for (int r = 0; r < n; ++r) {
      const std::string& e = errors[r];
      SCOPED_TRACE("rank " + std::to_string(r) + ": " + e);
      EXPECT_TRUE(Contains(e, "at collective #1"));
      if (odd == 2) {
        EXPECT_TRUE(Contains(e, "rank 2 (thread-rank 2) announced " + odd_one + " where rank 0 announced " + usual));
      } else {
        EXPECT_TRUE(Contains(e, "1 (thread-rank 1)") || Contains(e, "2 (thread-rank 2)"));
        EXPECT_TRUE(Contains(e, "announced " + usual + " where rank 0 announced " + odd_one));
      }
      EXPECT_EQ(ranks[r].error(), e);
    }
  }
}

TEST(CollectiveAllgather, AnAllreduceWhereOthersAllgatherIsNamed) {
  const int n = 3;
  Ranks ranks(n);
  std::vector<std::string> errors(n);
  ranks.Run([&](int r, CollectiveGroup& g) {
    std::vector<float> data(n * 8, 1.0f);
    try {
      g.RunBlocking(r == 1 ? test::Allreduce(4, 8, kFloat32) : test::Allgather(4, 8, kFloat32), data.data());
    } catch (const Error& e) {
      errors[r] = e.what();
    }
  });
  for (const std::string& e : errors) {
    EXPECT_TRUE(Contains(e,
                         "rank 1 (thread-rank 1) announced allreduce of key 4 (8 float32) where rank 0 announced "
                         "allgather of key 4 (8 float32 per rank) at collective #0"))
        << e;
  }
}

TEST(CollectiveAllgather, ARankThatNeverJoinsIsNamedWithinTheTimeout) {
  const int n = 3;
  const double timeout = 1.0;
  Ranks ranks(n, timeout);
  std::vector<std::string> errors(n);
  const auto t0 = std::chrono::steady_clock::now();
  ranks.Run(
      [&](int r, CollectiveGroup& g) {
        std::vector<float> data = Filled<float>(r, n, 16);
        Outcome o;
        g.Start(g.Announce(test::Allgather(11, 16, kFloat32)), data.data(), o.Callback());
        errors[r] = o.Wait();
      },
      {0, 2});
  EXPECT_LT(test::SecondsSince(t0), timeout + 3);
  for (int r : {0, 2}) {
    EXPECT_TRUE(Contains(errors[r],
                         "rank 1 (thread-rank 1) did not join collective #0 (allgather of key 11 (16 float32 per "
                         "rank)) within 1 s"))
        << errors[r];
  }
}

// The in-process transport of one rank that dies as it is about to send a given chunk of its
// allgather part: the death lands in the middle of the data phase every time.
class DiesDuringAllgather : public Transport {
 public:
  DiesDuringAllgather(std::unique_ptr<Transport> inner, InProcWorld* world, int sends_before_death)
      : inner_(std::move(inner)), world_(world), sends_left_(sends_before_death) {}
  void Init() override { inner_->Init(); }
  int rank() const override { return inner_->rank(); }
  int size() const override { return inner_->size(); }
  std::unique_ptr<TransportRequest> ISend(const void* buf, size_t bytes, int dst, int tag) override {
    if (tag == protocol::kTagGatherParts && sends_left_-- == 0) world_->Kill(rank());
    return inner_->ISend(buf, bytes, dst, tag);  // throws once killed
  }
  std::unique_ptr<TransportRequest> IRecv(void* buf, size_t bytes, int src, int tag) override {
    return inner_->IRecv(buf, bytes, src, tag);
  }
  std::string Describe() const override { return inner_->Describe(); }
  bool PeerAlive(int rank) override { return inner_->PeerAlive(rank); }
  void Abort(int code) override { inner_->Abort(code); }
  void Finalize() override { inner_->Finalize(); }

 private:
  std::unique_ptr<Transport> inner_;
  InProcWorld* world_;
  int sends_left_;
};

TEST(CollectiveAllgather, ARankKilledDuringTheDataPhaseIsNamed) {
  for (int dead : {1, 0}) {  // a worker; the coordinator
    const int n = 4;
    // Parts of window + 2 chunks; a window of them to each peer is posted at once, so the next
    // send comes after some chunks have arrived and before any peer has the whole part.
    const int64_t count = (kReceiveWindow + 2) * kDefaultChunkBytes / 4 - 1000;
    const int sends_before_death = (n - 1) * kReceiveWindow;
    Ranks ranks(n, /*timeout_sec=*/60, 1 << 20, [&](InProcWorld* world, int r) -> std::unique_ptr<Transport> {
      std::unique_ptr<Transport> t = world->CreateTransport(r);
      if (r != dead) return t;
      return std::make_unique<DiesDuringAllgather>(std::move(t), world, sends_before_death);
    });
    std::vector<std::string> errors(n);
    const auto t0 = std::chrono::steady_clock::now();
    ranks.Run([&](int r, CollectiveGroup& g) {
      g.RunBlocking(test::Barrier(), nullptr);
      std::vector<float> data = Filled<float>(r, n, count);
      Outcome o;
      g.Start(g.Announce(test::Allgather(4, count, kFloat32)), data.data(), o.Callback());
      errors[r] = o.Wait(20);
    });
    EXPECT_LT(test::SecondsSince(t0), 5.0);
    const std::string name = "rank " + std::to_string(dead) + " (thread-rank " + std::to_string(dead) + ")";
    for (int r = 0; r < n; ++r) {
      SCOPED_TRACE("rank " + std::to_string(r) + ": " + errors[r]);
      if (r == dead) {
        EXPECT_TRUE(Contains(errors[r], "was killed"));
        continue;
      }
      EXPECT_TRUE(Contains(errors[r], name + " has exited; collective #1 (allgather of key 4 (" +
                                          std::to_string(count) + " float32 per rank))"));
    }
  }
}

}  // namespace
}  // namespace kvstore
}  // namespace mxnet
