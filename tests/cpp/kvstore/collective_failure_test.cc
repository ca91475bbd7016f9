// Failures of the collective group over thread-ranks: a rank that announces something else, a
// rank that never joins, a rank that dies. Every rank's pending and later collectives must
// fail with an error naming the rank at fault, within the timeout (or about a second for a
// dead rank), and nothing may hang.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "collective_test_util.h"
#include "kvstore/collective_group.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {
namespace {

using test::Outcome;
using test::Contains;
using test::Ranks;

TEST(CollectiveFailure, MismatchedKeyNamesTheRankAndBothCollectivesOnEveryRank) {
  for (int odd : {2, 0}) {  // a non-zero rank differs; rank 0 (the reference) differs
    const int n = 3;
    Ranks ranks(n);
    std::vector<std::string> errors(n), later(n);
    ranks.Run([&](int r, CollectiveGroup& g) {
      std::vector<float> a(8, 1.0f), b(1000, 1.0f);
      g.RunBlocking(test::Allreduce(1, 8, kFloat32), a.data());  // collective #0 agrees
      Outcome o;
      if (r == odd) {
        g.Start(g.Announce(test::Allreduce(7, 1000, kFloat32)), b.data(), o.Callback());
      } else {
        g.Start(g.Announce(test::Allreduce(5, 8, kFloat32)), a.data(), o.Callback());
      }
      errors[r] = o.Wait();
      Outcome after;  // the group stays failed
      g.Start(g.Announce(test::Barrier()), nullptr, after.Callback());
      later[r] = after.Wait(2);
    });
    for (int r = 0; r < n; ++r) {
      const std::string& e = errors[r];
      SCOPED_TRACE("rank " + std::to_string(r) + ": " + e);
      EXPECT_TRUE(Contains(e, "collective #1"));
      if (odd == 2) {
        EXPECT_TRUE(Contains(e, "rank 2 (thread-rank 2) announced allreduce of key 7 (1000 float32)"));
        EXPECT_TRUE(Contains(e, "where rank 0 announced allreduce of key 5 (8 float32)"));
      } else {
        // Both differ from rank 0; the error comes with the first report that shows it.
        EXPECT_TRUE(Contains(e, "1 (thread-rank 1)") || Contains(e, "2 (thread-rank 2)"));
        EXPECT_TRUE(Contains(
            e, "announced allreduce of key 5 (8 float32) where rank 0 announced allreduce of key 7 (1000 float32)"));
      }
      EXPECT_EQ(later[r], e);
      EXPECT_EQ(ranks[r].error(), e);
    }
  }
}

TEST(CollectiveFailure, KindMismatchIsCaughtToo) {
  Ranks ranks(2);
  std::vector<std::string> errors(2);
  ranks.Run([&](int r, CollectiveGroup& g) {
    std::vector<float> a(4, 1.0f);
    try {
      g.RunBlocking(r == 0 ? test::Barrier() : test::Broadcast(3, 4, kFloat32), r == 0 ? nullptr : a.data());
    } catch (const Error& e) {
      errors[r] = e.what();
    }
  });
  for (const std::string& e : errors) {
    EXPECT_TRUE(
        Contains(e, "rank 1 (thread-rank 1) announced broadcast of key 3 (4 float32) where rank 0 announced barrier"))
        << e;
  }
}

TEST(CollectiveFailure, ARankThatShutsDownWhileOthersContinueIsNamed) {
  Ranks ranks(2);
  std::string error;
  ranks.Run([&](int r, CollectiveGroup& g) {
    if (r == 0) {
      g.Shutdown();
      return;
    }
    try {
      g.RunBlocking(test::Barrier(), nullptr);
    } catch (const Error& e) {
      error = e.what();
    }
  });
  EXPECT_TRUE(Contains(error, "rank 1 (thread-rank 1) announced barrier where rank 0 announced its shutdown")) << error;
}

TEST(CollectiveFailure, ARankThatNeverJoinsIsNamedWithinTheTimeout) {
  for (int missing : {1, 0}) {
    const int n = 3;
    const double timeout = 1.0;
    Ranks ranks(n, timeout);
    std::vector<std::string> errors(n);
    const auto t0 = std::chrono::steady_clock::now();
    ranks.Run(
        [&](int r, CollectiveGroup& g) {
          std::vector<float> a(16, 1.0f);
          Outcome o;
          g.Start(g.Announce(test::Allreduce(11, 16, kFloat32)), a.data(), o.Callback());
          errors[r] = o.Wait();
        },
        missing == 1 ? std::vector<int>{0, 2} : std::vector<int>{1, 2});
    const double elapsed = test::SecondsSince(t0);
    EXPECT_GE(elapsed, timeout * 0.9);
    EXPECT_LT(elapsed, timeout + 3);
    const std::string name = "rank " + std::to_string(missing) + " (thread-rank " + std::to_string(missing) + ")";
    for (int r = 0; r < n; ++r) {
      if (r == missing) continue;
      EXPECT_TRUE(
          Contains(errors[r], name + " did not join collective #0 (allreduce of key 11 (16 float32)) within 1 s"))
          << errors[r];
      EXPECT_TRUE(Contains(errors[r], "MXNET_KVSTORE_TIMEOUT")) << errors[r];
    }
    // The idle rank heard it too (rank 0 tells everyone it can reach).
    for (int i = 0; i < 100 && ranks[missing].error().empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(Contains(ranks[missing].error(), name)) << ranks[missing].error();
  }
}

TEST(CollectiveFailure, AKilledRankIsNamedWithinAboutASecond) {
  for (int dead : {2, 0}) {  // a worker; the coordinator
    const int n = 4;
    Ranks ranks(n, /*timeout_sec=*/60);  // the liveness check, not the timeout, must find it
    ranks.Run([](int, CollectiveGroup& g) { g.RunBlocking(test::Barrier(), nullptr); });  // all met
    ranks.world->Kill(dead);
    std::vector<std::string> errors(n);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<int> alive;
    for (int r = 0; r < n; ++r) {
      if (r != dead) alive.push_back(r);
    }
    ranks.Run(
        [&](int r, CollectiveGroup& g) {
          std::vector<float> a(100000, 1.0f);
          Outcome o;
          g.Start(g.Announce(test::Allreduce(3, 100000, kFloat32)), a.data(), o.Callback());
          errors[r] = o.Wait();
        },
        alive);
    EXPECT_LT(test::SecondsSince(t0), 3.0);
    for (int r : alive) {
      EXPECT_TRUE(Contains(errors[r],
                           "rank " + std::to_string(dead) + " (thread-rank " + std::to_string(dead) + ") has exited"))
          << "rank " << r << ": " << errors[r];
    }
  }
}

// A rank that dies in the middle of the data phase: the survivors' allreduce fails, naming it.
TEST(CollectiveFailure, ARankKilledDuringTheDataPhaseIsNamed) {
  const int n = 3;
  Ranks ranks(n, 60);
  std::vector<std::string> errors(n);
  const auto t0 = std::chrono::steady_clock::now();
  ranks.Run([&](int r, CollectiveGroup& g) {
    std::vector<float> big(8 << 20, 1.0f);  // 32 MiB: many chunks, so the kill lands mid-way
    Outcome o;
    g.Start(g.Announce(test::Allreduce(8, big.size(), kFloat32)), big.data(), o.Callback());
    if (r == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ranks.world->Kill(1);
    }
    errors[r] = o.Wait(20);
  });
  EXPECT_LT(test::SecondsSince(t0), 10.0);
  for (int r : {0, 2}) {
    // If the allreduce won the race the rank saw no error; otherwise it must name rank 1.
    if (!errors[r].empty()) EXPECT_TRUE(Contains(errors[r], "rank 1 (thread-rank 1) has exited")) << errors[r];
  }
}

TEST(CollectiveFailure, AfterAFailureRunBlockingThrowsAndStartFailsAtOnce) {
  Ranks ranks(2, 60);
  ranks.world->Kill(1);
  Outcome o;
  std::vector<float> a(4, 1.0f);
  ranks[0].Start(ranks[0].Announce(test::Allreduce(1, 4, kFloat32)), a.data(), o.Callback());
  const std::string e = o.Wait();
  ASSERT_TRUE(Contains(e, "rank 1")) << e;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    ranks[0].RunBlocking(test::Barrier(), nullptr);
    ADD_FAILURE() << "RunBlocking did not throw";
  } catch (const Error& err) {
    EXPECT_EQ(std::string(err.what()), e);
  }
  EXPECT_LT(test::SecondsSince(t0), 0.5);
  // Destroying a failed group does not wait for the dead peer (ranks' destructors run here).
}

TEST(CollectiveFailure, DestroyingGroupsWithAFailedPeerDoesNotHang) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    Ranks ranks(3, 60);
    ranks.world->Kill(2);
    std::vector<float> a(4, 1.0f);
    Outcome o;
    ranks[0].Start(ranks[0].Announce(test::Allreduce(1, 4, kFloat32)), a.data(), o.Callback());
    EXPECT_FALSE(o.Wait().empty());
  }
  EXPECT_LT(test::SecondsSince(t0), 5.0);
}

}  // namespace
}  // namespace kvstore
}  // namespace mxnet
