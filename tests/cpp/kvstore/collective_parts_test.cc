// The parts under the collective group: the data phases with tiny chunks (many chunks, the
// receive window wrapping), the deterministic sum, fusion planning, and the control messages.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "kvstore/collective_data_phase.h"
#include "kvstore/collective_protocol.h"
#include "kvstore/collective_sum.h"
#include "kvstore/transport_inproc.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {
namespace {

// Runs one data phase per rank to completion on its own thread.
template <typename MakePhase>
void RunPhase(int n, MakePhase make) {
  auto world = InProcWorld::Create(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      std::unique_ptr<Transport> t = world->CreateTransport(r);
      ScratchSpace scratch;
      std::unique_ptr<DataPhase> phase = make(t.get(), r, &scratch);
      bool progressed = false;
      while (!phase->Progress(&progressed)) std::this_thread::yield();
      EXPECT_TRUE(phase->AwaitedPeers().empty());
    });
  }
  for (auto& t : threads) t.join();
}

TEST(CollectiveDataPhase, AllreduceWithTinyChunksSumsInRankOrder) {
  for (int n : {2, 3, 5}) {
    for (size_t count : {size_t{0}, size_t{3}, size_t{97}, size_t{5000}}) {
      std::vector<std::vector<double>> data(n, std::vector<double>(count));
      for (int r = 0; r < n; ++r) {
        for (size_t i = 0; i < count; ++i) data[r][i] = 1.0 / (1 + i + r) * (r % 2 ? -1e8 : 1.0);
      }
      std::vector<double> expected(count);
      for (size_t i = 0; i < count; ++i) {
        expected[i] = data[0][i];
        for (int r = 1; r < n; ++r) expected[i] += data[r][i];
      }
      // 24-byte chunks: 3 doubles, so a slice of 1000 has hundreds of chunks through a window of 4.
      RunPhase(n, [&](Transport* t, int r, ScratchSpace* s) {
        return StartAllreduce(t, data[r].data(), count, kFloat64, 24, s);
      });
      for (int r = 0; r < n; ++r) {
        ASSERT_EQ(data[r], expected) << "n=" << n << " count=" << count << " rank " << r;  // exact
      }
    }
  }
}

TEST(CollectiveDataPhase, BroadcastWithTinyChunks) {
  const int n = 4;
  const size_t bytes = 1001;
  std::vector<std::vector<char>> data(n, std::vector<char>(bytes, 0));
  for (size_t i = 0; i < bytes; ++i) data[0][i] = static_cast<char>(i * 13);
  RunPhase(n, [&](Transport* t, int r, ScratchSpace*) { return StartBroadcast(t, data[r].data(), bytes, 64); });
  for (int r = 1; r < n; ++r) EXPECT_EQ(data[r], data[0]);
}

TEST(CollectiveDataPhase, AllgatherWithTinyChunksPlacesEveryPart) {
  for (int n : {1, 2, 3, 5}) {
    for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
      // 24-byte chunks hold 3 doubles (a part of 1000 passes hundreds through the window of 4);
      // 5 bytes are less than one double: chunks then hold one element.
      for (size_t chunk_bytes : {size_t{24}, size_t{5}}) {
        std::vector<std::vector<double>> data(n, std::vector<double>(n * count, -1.0));
        std::vector<double> expected(n * count);
        for (int r = 0; r < n; ++r) {
          for (size_t i = 0; i < count; ++i) expected[r * count + i] = data[r][r * count + i] = r * 1e6 + i + 0.5;
        }
        RunPhase(n, [&](Transport* t, int r, ScratchSpace*) {
          return StartAllgather(t, data[r].data(), count, kFloat64, chunk_bytes);
        });
        for (int r = 0; r < n; ++r) {
          ASSERT_EQ(data[r], expected) << "n=" << n << " count=" << count << " chunk " << chunk_bytes << " rank " << r;
        }
      }
    }
  }
}

TEST(CollectiveSum, HalfPrecisionRoundsOnceAtTheEnd) {
  // 2048 + 1 + 1 in float16: per-step rounding gives 2048 (2049 is not representable, ties to
  // even), one rounding at the end gives 2050.
  const half_t a(2048.0f), b(1.0f), c(1.0f);
  const void* inputs[] = {&a, &b, &c};
  half_t out;
  SumInRankOrder(kFloat16, inputs, 3, &out, 1);
  EXPECT_EQ(static_cast<float>(out), 2050.0f);
  const bf16_t x(256.0f), y(1.0f), z(1.0f);
  const void* bf_inputs[] = {&x, &y, &z};
  bf16_t bf_out;
  SumInRankOrder(kBfloat16, bf_inputs, 3, &bf_out, 1);
  EXPECT_EQ(static_cast<float>(bf_out), 258.0f);
}

TEST(CollectiveSum, OutputMayAliasAnyInputAndIntegersWrap) {
  std::vector<int8_t> a = {100, -100, 5}, b = {100, -100, 6}, c = {1, 1, 1};
  const void* inputs[] = {a.data(), b.data(), c.data()};
  SumInRankOrder(kInt8, inputs, 3, b.data(), 3);  // out is the middle input
  EXPECT_EQ(b, (std::vector<int8_t>{-55, 57, 12}));
  EXPECT_FALSE(SummableDType(kBool));
  EXPECT_THROW(SumInRankOrder(kBool, inputs, 3, b.data(), 3), std::exception);
}

using protocol::PlanGroups;
using protocol::PlannedGroup;

CollectiveDesc Desc(CollectiveKind kind, int64_t count, int dtype = kFloat32) {
  CollectiveDesc d;
  d.kind = kind;
  d.count = count;
  d.dtype = dtype;
  return d;
}

std::vector<uint32_t> Lengths(const std::vector<PlannedGroup>& groups) {
  std::vector<uint32_t> out;
  for (const auto& g : groups) out.push_back(g.length);
  return out;
}

TEST(CollectivePlan, FusesConsecutiveAllreducesOfOneDTypeUpToTheLimit) {
  const auto ar = CollectiveKind::kAllreduceSum;
  std::vector<CollectiveDesc> d = {Desc(ar, 10),
                                   Desc(ar, 10),
                                   Desc(ar, 10),            // 120 bytes
                                   Desc(ar, 10, kFloat64),  // dtype changes
                                   Desc(ar, 1000),          // larger than the limit
                                   Desc(ar, 5),
                                   Desc(CollectiveKind::kBroadcast, 5),  // a broadcast cuts
                                   Desc(ar, 5),
                                   Desc(CollectiveKind::kBarrier, 0),
                                   Desc(ar, 5)};
  std::vector<int> none(d.size(), -1);
  EXPECT_EQ(Lengths(PlanGroups(d, none, 100)), (std::vector<uint32_t>{2, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(Lengths(PlanGroups(d, none, 120)), (std::vector<uint32_t>{3, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(Lengths(PlanGroups(d, none, 0)), std::vector<uint32_t>(d.size(), 1));
  // Allgathers run alone and end a fused run.
  const auto ag = CollectiveKind::kAllgather;
  std::vector<CollectiveDesc> g = {Desc(ar, 5), Desc(ag, 5), Desc(ag, 5), Desc(ar, 5), Desc(ar, 5)};
  EXPECT_EQ(Lengths(PlanGroups(g, std::vector<int>(g.size(), -1), 100)), (std::vector<uint32_t>{1, 1, 1, 2}));
  std::vector<int> cancelled = none;
  cancelled[1] = 2;
  const auto groups = PlanGroups(d, cancelled, 120);
  EXPECT_EQ(Lengths(groups), (std::vector<uint32_t>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(groups[1].cancelled_by, 2);
}

TEST(CollectiveProtocol, ControlMessagesRoundTrip) {
  protocol::PeerIdentity id{"host:12", "host", "pid:[4026531836]", 12};
  auto hello = protocol::DecodeControl(protocol::EncodeHello(id).data(), protocol::EncodeHello(id).size());
  EXPECT_EQ(hello.type, protocol::MessageType::kHello);
  EXPECT_EQ(hello.hello.description, "host:12");
  EXPECT_EQ(hello.hello.pid, 12);

  std::vector<protocol::ReportedDesc> descs = {{Desc(CollectiveKind::kAllreduceSum, 9, kFloat16), false},
                                               {Desc(CollectiveKind::kBarrier, 0), true}};
  descs[0].desc.key = -7;
  const auto report_bytes = protocol::EncodeReport(41, descs);
  auto report = protocol::DecodeControl(report_bytes.data(), report_bytes.size());
  ASSERT_EQ(report.descs.size(), 2u);
  EXPECT_EQ(report.first_seq, 41u);
  EXPECT_TRUE(protocol::SameCollective(report.descs[0].desc, descs[0].desc));
  EXPECT_EQ(report.descs[0].desc.key, -7);
  EXPECT_TRUE(report.descs[1].abandoned);
  EXPECT_LE(protocol::EncodeReport(0, std::vector<protocol::ReportedDesc>(protocol::kMaxDescsPerReport)).size(),
            protocol::kMaxControlBytes);

  protocol::Plan plan{99, {{3, -1}, {1, 4}}};
  const auto plan_bytes = protocol::EncodePlan(plan);
  auto decoded = protocol::DecodeControl(plan_bytes.data(), plan_bytes.size());
  EXPECT_EQ(decoded.plan.first_seq, 99u);
  EXPECT_EQ(Lengths(decoded.plan.groups), (std::vector<uint32_t>{3, 1}));
  EXPECT_EQ(decoded.plan.groups[1].cancelled_by, 4);

  const auto error_bytes = protocol::EncodeError("rank 3 has exited");
  EXPECT_EQ(protocol::DecodeControl(error_bytes.data(), error_bytes.size()).error, "rank 3 has exited");
  EXPECT_THROW(protocol::DecodeControl(error_bytes.data(), 5), std::runtime_error);
}

TEST(CollectiveProtocol, DescriptionsNameKindKeyCountAndDType) {
  CollectiveDesc d = Desc(CollectiveKind::kAllreduceSum, 1000);
  d.key = 7;
  EXPECT_EQ(protocol::DescribeCollective(d), "allreduce of key 7 (1000 float32)");
  d.kind = CollectiveKind::kBroadcast;
  d.dtype = kInt64;
  EXPECT_EQ(protocol::DescribeCollective(d), "broadcast of key 7 (1000 int64)");
  d.kind = CollectiveKind::kAllgather;
  d.dtype = kUint8;
  EXPECT_EQ(protocol::DescribeCollective(d), "allgather of key 7 (1000 uint8 per rank)");
  EXPECT_EQ(protocol::DescribeCollective(Desc(CollectiveKind::kBarrier, 0)), "barrier");
}

}  // namespace
}  // namespace kvstore
}  // namespace mxnet
