// ImageRecordIter's batch plan (sharding, order, round_batch) and its worker pipeline, driven by
// a fake slot filler so thread timing, errors and shutdown can be checked without images.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/iter_image_recordio_pipeline.h"
#include "io/iter_image_recordio_plan.h"
#include "io/recordio.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {
namespace {

RecordShard Shard(size_t n) {
  RecordShard s;
  for (size_t i = 0; i < n; ++i) s.offsets.push_back(i * 100);
  s.file_records = n;
  return s;
}

std::vector<uint64_t> Positions(const PlannedBatch& b) {
  std::vector<uint64_t> out;
  for (const auto& i : b.images) out.push_back(i.position);
  return out;
}

TEST(BatchPlanner, RoundBatchWrapsAndTheNextPassContinues) {
  RecordShard shard = Shard(5);
  BatchPlanner p(&shard, 2, true, false, 0);
  PlannedBatch b;
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{0, 1}));
  ASSERT_TRUE(p.Plan(&b));
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{4, 0}));
  EXPECT_EQ(b.pad, 1);
  EXPECT_EQ(b.images[1].epoch, 1u);  // the wrapped image belongs to the next epoch
  EXPECT_FALSE(p.Plan(&b));
  p.BeforeFirst(true);
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{1, 2}));
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{3, 4}));
  EXPECT_EQ(b.pad, 0);
  EXPECT_FALSE(p.Plan(&b));
  p.BeforeFirst(true);
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{0, 1}));
}

TEST(BatchPlanner, WithoutRoundBatchTheLastBatchIsShort) {
  RecordShard shard = Shard(5);
  BatchPlanner p(&shard, 2, false, false, 0);
  PlannedBatch b;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{4}));
  EXPECT_EQ(b.pad, 1);
  EXPECT_FALSE(p.Plan(&b));
  p.BeforeFirst(true);
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{0, 1}));
}

TEST(BatchPlanner, ResetMidPassStartsOver) {
  RecordShard shard = Shard(5);
  BatchPlanner p(&shard, 2, true, false, 0);
  PlannedBatch b;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p.Plan(&b));  // planned the wrap, but not consumed
  p.BeforeFirst(false);
  ASSERT_TRUE(p.Plan(&b));
  EXPECT_EQ(Positions(b), (std::vector<uint64_t>{0, 1}));
}

TEST(BatchPlanner, ShuffleIsASeededPermutationPerEpoch) {
  RecordShard shard = Shard(50);
  auto epoch_order = [&](uint64_t seed, int epochs) {
    BatchPlanner p(&shard, 10, true, true, seed);
    std::vector<std::vector<uint64_t>> out;
    for (int e = 0; e < epochs; ++e) {
      std::vector<uint64_t> order;
      PlannedBatch b;
      while (p.Plan(&b))
        for (uint64_t x : Positions(b)) order.push_back(x);
      out.push_back(order);
      p.BeforeFirst(true);
    }
    return out;
  };
  const auto a = epoch_order(3, 2), again = epoch_order(3, 2), other = epoch_order(4, 2);
  EXPECT_EQ(a, again);
  EXPECT_NE(a[0], other[0]);
  EXPECT_NE(a[0], a[1]);
  for (const auto& order : a) {
    std::set<uint64_t> seen(order.begin(), order.end());
    EXPECT_EQ(order.size(), 50u);
    EXPECT_EQ(seen.size(), 50u);
  }
}

class TempRec {
 public:
  explicit TempRec(size_t n) : path_("/tmp/image_record_plan_test_" + std::to_string(getpid()) + ".rec") {
    RecordIOWriter w(path_);
    for (size_t i = 0; i < n; ++i) {
      offsets_.push_back(w.Tell());
      std::string rec(7 + i, char('a' + i % 26));
      w.Write(rec.data(), rec.size());
    }
    w.Close();
  }
  ~TempRec() {
    std::remove(path_.c_str());
    std::remove((path_ + ".idx").c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<size_t> offsets_;

 private:
  std::string path_;
};

TEST(RecordShard, PartsCoverEveryRecordOnceWithAndWithoutIdx) {
  TempRec rec(11);
  {
    std::ofstream idx(rec.path() + ".idx");
    // Keys in another order than the offsets: the shard follows file order.
    for (size_t i = rec.offsets_.size(); i-- > 0;) idx << (100 + i) << "\t" << rec.offsets_[i] << "\n";
  }
  for (const std::string idx : {std::string(), rec.path() + ".idx"}) {
    std::vector<uint64_t> all;
    std::vector<size_t> sizes;
    for (int k = 0; k < 3; ++k) {
      RecordShard s = LoadRecordShard(rec.path(), idx, 3, k);
      EXPECT_EQ(s.file_records, 11u);
      EXPECT_EQ(s.first_position, all.size());
      sizes.push_back(s.offsets.size());
      all.insert(all.end(), s.offsets.begin(), s.offsets.end());
    }
    EXPECT_EQ(sizes, (std::vector<size_t>{4, 4, 3}));
    EXPECT_EQ(all, std::vector<uint64_t>(rec.offsets_.begin(), rec.offsets_.end()));
  }
}

TEST(RecordShard, BadIdxLinesAreNamed) {
  TempRec rec(3);
  {
    std::ofstream idx(rec.path() + ".idx");
    idx << "0\t0\n1\tbanana\n";
  }
  try {
    LoadRecordShard(rec.path(), rec.path() + ".idx", 1, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  {
    std::ofstream idx(rec.path() + ".idx");
    idx << "0\t999999\n";
  }
  EXPECT_THROW(LoadRecordShard(rec.path(), rec.path() + ".idx", 1, 0), Error);
  EXPECT_THROW(LoadRecordShard(rec.path(), "", 2, 2), Error);
}

// ---- pipeline

// Writes position * 1000 + slot-independent pattern; fails on a chosen position.
class FakeFiller : public SlotFiller {
 public:
  FakeFiller(int64_t fail_at, std::atomic<int>* live, int sleep_us) : fail_at_(fail_at), live_(live), sleep_us_(sleep_us) {
    ++*live_;
  }
  ~FakeFiller() override { --*live_; }
  void Fill(const PlannedImage& image, void* data, float* label) override {
    if (sleep_us_) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_ * (image.position % 3)));
    if (static_cast<int64_t>(image.position) == fail_at_) MX_THROW("MXNetError") << "bad record " << image.position;
    float* d = static_cast<float*>(data);
    for (int i = 0; i < 4; ++i) d[i] = static_cast<float>(image.position * 10 + i + image.epoch * 1000);
    label[0] = static_cast<float>(image.position);
  }

 private:
  int64_t fail_at_;
  std::atomic<int>* live_;
  int sleep_us_;
};

BatchLayout Layout(int batch) {
  BatchLayout l;
  l.data_shape = TShape{batch, 4};
  l.dtype = kFloat32;
  l.label_shape = TShape{batch};
  l.ctx = Context::CPU(0);
  return l;
}

std::vector<float> Epoch(ImageBatchPipeline* p, std::vector<int>* pads = nullptr) {
  std::vector<float> out;
  DataBatch b;
  while (p->Next(&b)) {
    std::vector<float> d(b.data[0].Size());
    b.data[0].SyncCopyToCPU(d.data(), d.size());
    out.insert(out.end(), d.begin(), d.end());
    if (pads) pads->push_back(b.num_batch_padd);
  }
  return out;
}

TEST(ImageBatchPipeline, SameBatchesForAnyThreadCount) {
  RecordShard shard = Shard(23);
  std::atomic<int> live{0};
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 4, 7}) {
    BatchPlanner planner(&shard, 5, true, true, 9);
    ImageBatchPipeline p(Layout(5), &planner, threads, 3, [&] { return std::make_unique<FakeFiller>(-1, &live, 50); });
    std::vector<float> two;
    std::vector<int> pads;
    for (int e = 0; e < 2; ++e) {
      auto ep = Epoch(&p, &pads);
      two.insert(two.end(), ep.begin(), ep.end());
      p.BeforeFirst();
    }
    EXPECT_EQ(pads, (std::vector<int>{0, 0, 0, 0, 2, 0, 0, 0, 0, 4}));
    results.push_back(two);
  }
  for (size_t i = 1; i < results.size(); ++i) EXPECT_EQ(results[i], results[0]);
  EXPECT_EQ(live.load(), 0);  // every worker's filler is gone
}

TEST(ImageBatchPipeline, ShortLastBatchIsZeroFilled) {
  RecordShard shard = Shard(5);
  BatchPlanner planner(&shard, 3, false, false, 0);
  std::atomic<int> live{0};
  ImageBatchPipeline p(Layout(3), &planner, 2, 2, [&] { return std::make_unique<FakeFiller>(-1, &live, 0); });
  std::vector<int> pads;
  std::vector<float> all = Epoch(&p, &pads);
  EXPECT_EQ(pads, (std::vector<int>{0, 1}));
  ASSERT_EQ(all.size(), 24u);
  for (size_t i = 20; i < 24; ++i) EXPECT_EQ(all[i], 0.0f);
}

TEST(ImageBatchPipeline, ErrorSurfacesOnItsBatchThenIterationGoesOn) {
  RecordShard shard = Shard(12);
  BatchPlanner planner(&shard, 4, true, false, 0);
  std::atomic<int> live{0};
  ImageBatchPipeline p(Layout(4), &planner, 3, 4, [&] { return std::make_unique<FakeFiller>(6, &live, 20); });
  DataBatch b;
  ASSERT_TRUE(p.Next(&b));
  try {
    p.Next(&b);
    FAIL() << "expected the error of position 6";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad record 6"), std::string::npos);
  }
  EXPECT_TRUE(p.Next(&b));
  EXPECT_FALSE(p.Next(&b));
}

TEST(ImageBatchPipeline, DestroyAndResetMidEpochNeverHang) {
  RecordShard shard = Shard(40);
  std::atomic<int> live{0};
  for (int i = 0; i < 30; ++i) {
    BatchPlanner planner(&shard, 4, true, false, 0);
    ImageBatchPipeline p(Layout(4), &planner, 1 + i % 4, 2, [&] { return std::make_unique<FakeFiller>(-1, &live, 30); });
    DataBatch b;
    for (int k = 0; k < i % 3; ++k) ASSERT_TRUE(p.Next(&b));
    if (i % 2) {
      p.BeforeFirst();
      ASSERT_TRUE(p.Next(&b));
      std::vector<float> d(16);
      b.data[0].SyncCopyToCPU(d.data(), d.size());
      EXPECT_EQ(d[0], 1000.0f);  // position 0 of epoch 1: a reset mid-pass starts over
    }
  }
  EXPECT_EQ(live.load(), 0);
}

}  // namespace
}  // namespace io
}  // namespace mxnet
