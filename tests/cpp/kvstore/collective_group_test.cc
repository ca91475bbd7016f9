// The collective group over thread-ranks: sums against a float64 reference and the documented
// summation order, bit-identical on every rank; fusion; every supported dtype; broadcast;
// barrier; shutdown.
#include "kvstore/collective_group.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "collective_test_util.h"
#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {
namespace {

using test::Outcome;
using test::Ranks;

// Rank r's value at element i: a mix of magnitudes, so the summation order shows in the bits.
// Not inlined: the compiler may fuse its multiply into a caller's add (FMA), which would
// change the expected sums' bits.
__attribute__((noinline)) float Value(int r, int64_t i) {
  const uint32_t h = static_cast<uint32_t>((i + 1) * 2654435761u) ^ static_cast<uint32_t>((r + 1) * 40503u);
  const float unit = static_cast<float>(h % 100003) / 100003.0f - 0.5f;
  return unit * std::pow(10.0f, static_cast<float>(static_cast<int>((h >> 20) % 7) - 3));
}

class AllreduceSizes : public ::testing::TestWithParam<int> {};

TEST_P(AllreduceSizes, SumMatchesReferenceAndIsBitIdenticalOnEveryRank) {
  const int n = GetParam();
  Ranks ranks(n);
  // Sizes around the slice boundaries (count < n leaves some slices empty) and one that spans
  // several 1 MiB chunks per slice.
  const std::vector<int64_t> counts = {0, 1, 5, 1000, 12345, 700001};
  std::vector<std::vector<std::vector<float>>> results(n);
  ranks.Run([&](int r, CollectiveGroup& g) {
    for (size_t k = 0; k < counts.size(); ++k) {
      std::vector<float> data(counts[k]);
      for (int64_t i = 0; i < counts[k]; ++i) data[i] = Value(r, i);
      g.RunBlocking(test::Allreduce(static_cast<int64_t>(k), counts[k], kFloat32), data.data());
      results[r].push_back(std::move(data));
    }
  });
  for (size_t k = 0; k < counts.size(); ++k) {
    for (int64_t i = 0; i < counts[k]; ++i) {
      double reference = 0, magnitude = 0;
      float in_rank_order = Value(0, i);
      for (int r = 0; r < n; ++r) reference += Value(r, i), magnitude += std::fabs(Value(r, i));
      for (int r = 1; r < n; ++r) in_rank_order += Value(r, i);
      const float got = results[0][k][i];
      // n float32 roundings at most, each within half an ulp of the partial sum.
      ASSERT_NEAR(got, reference, n * magnitude * 6e-8) << "key " << k << " element " << i;
      ASSERT_EQ(std::memcmp(&got, &in_rank_order, 4), 0) << "not summed in rank order: key " << k << " element " << i;
    }
    for (int r = 1; r < n; ++r) {
      ASSERT_TRUE(counts[k] == 0 || std::memcmp(results[r][k].data(), results[0][k].data(), counts[k] * 4) == 0)
          << "rank " << r << " differs from rank 0 for key " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, AllreduceSizes, ::testing::Values(1, 2, 3, 4, 7));

// Expected sums per dtype, as collective_sum.h documents them.
template <typename T>
std::vector<T> Inputs(int r, int64_t count) {
  std::vector<T> v(count);
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>((i * 37 + r * 101 + 7) % 251 - (std::is_signed_v<T> ? 120 : 0));
    } else {
      v[i] = T(Value(r, i));
    }
  }
  return v;
}

template <typename T>
std::vector<T> Expected(int n, int64_t count) {
  std::vector<T> out(count);
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<T, half_t> || std::is_same_v<T, bf16_t>) {
      float acc = static_cast<float>(Inputs<T>(0, count)[i]);
      for (int r = 1; r < n; ++r) acc += static_cast<float>(Inputs<T>(r, count)[i]);
      out[i] = T(acc);
    } else if constexpr (std::is_integral_v<T>) {
      uint64_t acc = 0;
      for (int r = 0; r < n; ++r) acc += static_cast<uint64_t>(static_cast<int64_t>(Inputs<T>(r, count)[i]));
      out[i] = static_cast<T>(acc);  // wraps
    } else {
      T acc = Inputs<T>(0, count)[i];
      for (int r = 1; r < n; ++r) acc += Inputs<T>(r, count)[i];
      out[i] = acc;
    }
  }
  return out;
}

template <typename T>
void CheckDType(int n) {
  const int64_t count = 257;
  const int dtype = DTypeOf<T>::value;
  Ranks ranks(n);
  std::vector<std::vector<T>> got(n);
  ranks.Run([&](int r, CollectiveGroup& g) {
    got[r] = Inputs<T>(r, count);
    g.RunBlocking(test::Allreduce(1, count, dtype), got[r].data());
  });
  const std::vector<T> expected = Expected<T>(n, count);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(std::memcmp(got[r].data(), expected.data(), count * sizeof(T)), 0)
        << DTypeName(dtype) << " on rank " << r << " of " << n;
  }
}

TEST(CollectiveGroup, EverySupportedDTypeSumsAsDocumented) {
  for (int n : {2, 3, 7}) {
    CheckDType<float>(n);
    CheckDType<double>(n);
    CheckDType<half_t>(n);
    CheckDType<bf16_t>(n);
    CheckDType<int32_t>(n);
    CheckDType<int64_t>(n);
    CheckDType<uint8_t>(n);
    CheckDType<int8_t>(n);
  }
}

TEST(CollectiveGroup, UnsupportedDTypeIsRefusedAtAnnounce) {
  Ranks ranks(1);
  EXPECT_THROW(ranks[0].Announce(test::Allreduce(1, 4, kBool)), Error);
  EXPECT_THROW(ranks[0].Announce(test::Broadcast(1, 4, 99)), Error);
}

// Many small keys ready at once are fused: far fewer messages than one allreduce per key,
// with the same results.
TEST(CollectiveGroup, ManySmallKeysAreFusedAndStayCorrect) {
  const int n = 3, keys = 300;
  auto run = [&](size_t fusion_bytes, std::vector<std::vector<std::vector<float>>>* out) {
    Ranks ranks(n, 20, fusion_bytes);
    out->assign(n, {});
    ranks.Run([&](int r, CollectiveGroup& g) {
      std::vector<std::vector<float>> data(keys);
      std::vector<uint64_t> seqs;
      std::vector<Outcome> outcomes(keys);
      for (int k = 0; k < keys; ++k) {
        data[k].resize(1 + k % 17);
        for (size_t i = 0; i < data[k].size(); ++i) data[k][i] = Value(r, k * 100 + i);
        seqs.push_back(g.Announce(test::Allreduce(k, data[k].size(), kFloat32)));
      }
      // Started last to first: nothing is ready until all are.
      for (int k = keys - 1; k >= 0; --k) g.Start(seqs[k], data[k].data(), outcomes[k].Callback());
      for (auto& o : outcomes) ASSERT_EQ(o.Wait(), "");
      (*out)[r] = std::move(data);
    });
    return ranks.world->delivered_messages();
  };
  std::vector<std::vector<std::vector<float>>> fused, unfused;
  const uint64_t fused_messages = run(1 << 20, &fused);
  const uint64_t unfused_messages = run(0, &unfused);
  EXPECT_LT(fused_messages, 100u);
  EXPECT_GT(unfused_messages, static_cast<uint64_t>(keys) * n);
  for (int r = 0; r < n; ++r) {
    for (int k = 0; k < keys; ++k) {
      ASSERT_EQ(fused[r][k], unfused[r][k]) << "rank " << r << " key " << k;
      ASSERT_EQ(fused[r][k], fused[0][k]);
      float expected = Value(0, k * 100);
      for (int q = 1; q < n; ++q) expected += Value(q, k * 100);
      ASSERT_EQ(fused[r][k][0], expected);
    }
  }
}

// Consecutive allreduces of different dtypes, broadcasts and barriers interleaved: each fused
// run holds one dtype, and everything lands in its own buffer.
TEST(CollectiveGroup, MixedDTypesBroadcastsAndBarriersInOneRound) {
  const int n = 4;
  Ranks ranks(n);
  ranks.Run([&](int r, CollectiveGroup& g) {
    std::vector<float> f1(10, r + 1.0f), f2(3, 2.0f * r);
    std::vector<double> d1(7, r + 0.5);
    std::vector<int32_t> i1(5, r * 3);
    std::vector<half_t> h1(9, half_t(0.25f * r));
    std::vector<int64_t> b1(4, r == 0 ? 42 : -1);
    std::vector<uint64_t> seqs = {
        g.Announce(test::Allreduce(0, 10, kFloat32)), g.Announce(test::Allreduce(1, 3, kFloat32)),
        g.Announce(test::Allreduce(2, 7, kFloat64)),  g.Announce(test::Broadcast(3, 4, kInt64)),
        g.Announce(test::Allreduce(4, 5, kInt32)),    g.Announce(test::Barrier()),
        g.Announce(test::Allreduce(5, 9, kFloat16))};
    std::vector<void*> data = {f1.data(), f2.data(), d1.data(), b1.data(), i1.data(), nullptr, h1.data()};
    std::vector<Outcome> outcomes(seqs.size());
    for (int k = static_cast<int>(seqs.size()) - 1; k >= 0; --k) g.Start(seqs[k], data[k], outcomes[k].Callback());
    for (auto& o : outcomes) ASSERT_EQ(o.Wait(), "");
    EXPECT_EQ(f1, std::vector<float>(10, 10.0f));  // 1+2+3+4
    EXPECT_EQ(f2, std::vector<float>(3, 12.0f));   // 2*(0+1+2+3)
    EXPECT_EQ(d1, std::vector<double>(7, 8.0));    // 0.5+1.5+2.5+3.5
    EXPECT_EQ(b1, std::vector<int64_t>(4, 42));
    EXPECT_EQ(i1, std::vector<int32_t>(5, 18));  // 3*(0+1+2+3)
    for (const half_t& h : h1) EXPECT_EQ(static_cast<float>(h), 1.5f);
  });
}

TEST(CollectiveGroup, BroadcastCopiesRankZeroToEveryRank) {
  for (int n : {1, 2, 3, 7}) {
    Ranks ranks(n);
    ranks.Run([&](int r, CollectiveGroup& g) {
      for (int64_t count : {0, 1, 1000, 600000}) {
        std::vector<int32_t> data(count);
        for (int64_t i = 0; i < count; ++i) data[i] = r == 0 ? static_cast<int32_t>(i * 7 + 1) : -1;
        g.RunBlocking(test::Broadcast(count, count, kInt32), data.data());
        for (int64_t i = 0; i < count; ++i) ASSERT_EQ(data[i], i * 7 + 1) << "rank " << r << " of " << n;
      }
    });
  }
}

TEST(CollectiveGroup, NoRankLeavesABarrierBeforeTheLastOneEntered) {
  const int n = 4;
  Ranks ranks(n);
  std::vector<std::chrono::steady_clock::time_point> entered(n), left(n);
  ranks.Run([&](int r, CollectiveGroup& g) {
    std::this_thread::sleep_for(std::chrono::milliseconds(40 * r));
    entered[r] = std::chrono::steady_clock::now();
    g.RunBlocking(test::Barrier(), nullptr);
    left[r] = std::chrono::steady_clock::now();
  });
  const auto last_entry = *std::max_element(entered.begin(), entered.end());
  for (int r = 0; r < n; ++r) EXPECT_GE(left[r], last_entry) << "rank " << r;
}

// The same inputs started in a different order on each run (and rank) give the same bits.
TEST(CollectiveGroup, ResultsDoNotDependOnStartOrderOrTiming) {
  const int n = 7, keys = 12;
  std::vector<std::vector<float>> first_run;
  for (int run = 0; run < 3; ++run) {
    Ranks ranks(n, 20, run == 2 ? 0 : 4096);
    std::vector<std::vector<float>> rank0(keys);
    ranks.Run([&](int r, CollectiveGroup& g) {
      std::mt19937 rng(run * 100 + r);
      std::vector<std::vector<float>> data(keys);
      std::vector<uint64_t> seqs;
      for (int k = 0; k < keys; ++k) {
        data[k].resize(100 + 50 * k);
        for (size_t i = 0; i < data[k].size(); ++i) data[k][i] = Value(r, k * 10000 + i);
        seqs.push_back(g.Announce(test::Allreduce(k, data[k].size(), kFloat32)));
      }
      std::vector<int> order(keys);
      for (int k = 0; k < keys; ++k) order[k] = k;
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<Outcome> outcomes(keys);
      for (int k : order) {
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 500));
        g.Start(seqs[k], data[k].data(), outcomes[k].Callback());
      }
      for (auto& o : outcomes) ASSERT_EQ(o.Wait(), "");
      if (r == 0) rank0 = data;
    });
    if (run == 0) {
      first_run = rank0;
    } else {
      for (int k = 0; k < keys; ++k)
        ASSERT_EQ(std::memcmp(rank0[k].data(), first_run[k].data(), rank0[k].size() * 4), 0);
    }
  }
}

TEST(CollectiveGroup, DestructionRunsWhatWasStarted) {
  const int n = 3;
  std::vector<Outcome> outcomes(n);
  std::vector<std::vector<float>> data(n, std::vector<float>(100, 1.0f));
  {
    Ranks ranks(n);
    ranks.Run([&](int r, CollectiveGroup& g) {
      const uint64_t seq = g.Announce(test::Allreduce(9, 100, kFloat32));
      g.Start(seq, data[r].data(), outcomes[r].Callback());
      ranks.groups[r].reset();  // each rank closes its group right away
    });
  }
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(outcomes[r].Wait(0), "");
    EXPECT_EQ(data[r], std::vector<float>(100, 3.0f));
  }
}

// A rank that shuts down without starting what it announced cancels it on every rank; the
// group stays healthy and closes without waiting for a timeout.
TEST(CollectiveGroup, ShutdownCancelsAnnouncedButUnstartedCollectivesEverywhere) {
  const int n = 3;
  Ranks ranks(n);
  std::vector<Outcome> outcomes(n);
  std::vector<std::vector<float>> data(n, std::vector<float>(10, 1.0f));
  const auto t0 = std::chrono::steady_clock::now();
  ranks.Run([&](int r, CollectiveGroup& g) {
    const uint64_t seq = g.Announce(test::Allreduce(4, 10, kFloat32));
    if (r != 1) g.Start(seq, data[r].data(), outcomes[r].Callback());
    g.Shutdown();
    if (r == 1) {
      g.Start(seq, data[r].data(), outcomes[r].Callback());  // too late: fails at once
    }
  });
  EXPECT_LT(test::SecondsSince(t0), 5.0);
  for (int r = 0; r < n; ++r) {
    const std::string e = outcomes[r].Wait(1);
    EXPECT_NE(e.find(r == 1 ? "shut down" : "cancelled"), std::string::npos) << e;
    if (r != 1) EXPECT_NE(e.find("rank 1"), std::string::npos) << e;
    EXPECT_EQ(ranks[r].error(), "");
  }
}

// A data loader worker forked from a training process inherits the group but not its thread:
// there every call must fail at once, and closing the group must not wait for that thread.
TEST(CollectiveGroup, AForkedChildFailsAtOnceAndLeavesTheParentAlone) {
  Ranks ranks(2);
  ranks.Run([](int, CollectiveGroup& g) { g.RunBlocking(test::Barrier(), nullptr); });
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(20);  // a hang fails the test instead of blocking it
    int code = 0;
    if (ranks[0].error().find("forked child") == std::string::npos) code = 1;
    try {
      ranks[0].RunBlocking(test::Barrier(), nullptr);
      code = 2;
    } catch (const Error& e) {
      if (std::string(e.what()).find("forked child") == std::string::npos) code = 3;
    }
    ranks.groups[0].reset();
    ranks.groups[1].reset();
    _exit(code);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  ranks.Run([](int, CollectiveGroup& g) { g.RunBlocking(test::Barrier(), nullptr); });  // the parent goes on
  EXPECT_EQ(ranks[0].error(), "");
}

TEST(CollectiveGroup, RankAndSizeComeFromTheTransport) {
  Ranks ranks(3);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(ranks[r].rank(), r);
    EXPECT_EQ(ranks[r].size(), 3);
  }
}

}  // namespace
}  // namespace kvstore
}  // namespace mxnet
