// The data-iterator framework: registry, strict kwargs, BatchLoader, PrefetcherIter, and the
// C iterators built on them (CSVIter, MNISTIter) on small files.
#include "io/data_iter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "io/batch_loader.h"
#include "io/prefetcher_iter.h"

using namespace mxnet;
using namespace mxnet::io;
using namespace std::chrono_literals;

namespace {

/*! \brief Runs f on its own thread; a hang fails the test and ends the process (no stuck ctest). */
void ExpectFinishes(std::function<void()> f, std::chrono::seconds limit = 20s) {
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  std::thread([f, done] {
    try {
      f();
      done->set_value();
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }).detach();
  if (fut.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << "did not finish within " << limit.count() << " s";
    std::fflush(nullptr);
    std::_Exit(1);
  }
  fut.get();
}

std::string ErrorText(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.kind()) + ": " + e.what();
  }
  return "no error";
}

float FirstValue(const NDArray& a) {
  a.WaitToRead();
  return static_cast<const float*>(a.data().dptr_)[0];
}

/*! \brief Batches 0..n-1, each a (2,) float array holding its number; optionally slow or failing. */
class CountingIter : public DataIter {
 public:
  CountingIter(int n, int throw_at = -1, std::chrono::milliseconds delay = 0ms)
      : n_(n), throw_at_(throw_at), delay_(delay) {}
  void Init(const IterKwargs& kwargs) override {
    for (const auto& kv : kwargs) init_keys.push_back(kv.first);
  }
  void BeforeFirst() override { pos_ = 0; }
  bool Next() override {
    ++next_calls;
    if (delay_.count()) std::this_thread::sleep_for(delay_);
    if (pos_ == throw_at_) {
      ++pos_;
      MX_THROW("ValueError") << "batch " << throw_at_ << " is broken";
    }
    if (pos_ >= n_) return false;
    NDArray a(TShape{2}, Context::CPU());
    float* p = static_cast<float*>(a.data().dptr_);
    p[0] = p[1] = static_cast<float>(pos_);
    out_ = DataBatch();
    out_.data.push_back(a);
    out_.label.push_back(a);
    ++pos_;
    return true;
  }
  const DataBatch& Value() const override { return out_; }

  std::vector<std::string> init_keys;
  std::atomic<int> next_calls{0};

 private:
  int n_, throw_at_;
  std::chrono::milliseconds delay_;
  int pos_ = 0;
  DataBatch out_;
};

std::unique_ptr<PrefetcherIter> MakePrefetcher(CountingIter* inner, int buffer) {
  auto it = std::make_unique<PrefetcherIter>(inner);
  PrefetcherParam p;
  p.Init(IterKwargs{{"prefetch_buffer", std::to_string(buffer)}});
  it->Configure(p);
  return it;
}

std::vector<float> Drain(DataIter* it) {
  std::vector<float> seen;
  while (it->Next()) seen.push_back(FirstValue(it->Value().data[0]));
  return seen;
}

/*! \brief Instances 0..n-1: data a (3,) float row {i, i, i}, label a scalar int32 i. */
class RowsInst : public InstIter {
 public:
  explicit RowsInst(int n) : n_(n) {
    inst_.fields = {TBlob(row_, TShape{3}, kFloat32, Context::CPU()),
                    TBlob(&label_, TShape(0), kInt32, Context::CPU())};
  }
  void BeforeFirst() override { pos_ = 0; }
  bool Next() override {
    if (pos_ >= n_) return false;
    row_[0] = row_[1] = row_[2] = static_cast<float>(pos_);
    label_ = pos_;
    inst_.index = static_cast<uint64_t>(pos_++);
    return true;
  }
  const DataInst& Value() const override { return inst_; }

 private:
  int n_, pos_ = 0;
  float row_[3];
  int32_t label_ = 0;
  DataInst inst_;
};

std::unique_ptr<BatchLoader> MakeLoader(int n, int batch, bool round) {
  auto loader = std::make_unique<BatchLoader>(std::make_unique<RowsInst>(n));
  loader->Init(IterKwargs{{"batch_size", std::to_string(batch)}, {"round_batch", round ? "True" : "False"}});
  return loader;
}

std::vector<uint64_t> Epoch(DataIter* it, std::vector<int>* pads) {
  std::vector<uint64_t> idx;
  while (it->Next()) {
    idx.insert(idx.end(), it->Value().index.begin(), it->Value().index.end());
    pads->push_back(it->Value().num_batch_padd);
  }
  return idx;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mx_data_iter_test_" + name)).string();
}

}  // namespace

// ---- registry and kwargs ----

TEST(DataIterRegistry, ListsTheIteratorsWithTheirArguments) {
  const auto* csv = DataIterRegistry::Get()->Find("CSVIter");
  const auto* mnist = DataIterRegistry::Get()->Find("MNISTIter");
  ASSERT_NE(csv, nullptr);
  ASSERT_NE(mnist, nullptr);
  const auto* libsvm = DataIterRegistry::Get()->Find("LibSVMIter");
  ASSERT_NE(libsvm, nullptr);
  auto names = [](const DataIterReg* r) {
    std::vector<std::string> out;
    for (const auto& a : r->arguments) out.push_back(a.name);
    return out;
  };
  for (const char* key :
       {"data_csv", "data_shape", "label_csv", "label_shape", "dtype", "batch_size", "round_batch", "prefetch_buffer"})
    EXPECT_TRUE(io::detail::Contains(names(csv), key)) << key;
  for (const char* key : {"image", "label", "batch_size", "shuffle", "flat", "seed", "silent", "num_parts",
                          "part_index", "prefetch_buffer"})
    EXPECT_TRUE(io::detail::Contains(names(mnist), key)) << key;
  for (const char* key : {"data_libsvm", "data_shape", "label_libsvm", "label_shape", "num_parts", "part_index",
                          "batch_size", "round_batch", "prefetch_buffer", "dtype", "ctx"})
    EXPECT_TRUE(io::detail::Contains(names(libsvm), key)) << key;
  EXPECT_FALSE(csv->description.empty());
  auto all = DataIterRegistry::Get()->List();
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1]->name, all[i]->name);
}

TEST(DataIterParams, UnknownInvalidAndMissingKeysAreNamed) {
  BatchParam batch;
  PrefetcherParam prefetch;
  ParseIterParams("TestIter", {{"batch_size", "8"}, {"prefetch_buffer", "2"}}, &batch, &prefetch);
  EXPECT_EQ(batch.batch_size, 8u);
  EXPECT_TRUE(batch.round_batch);
  EXPECT_EQ(prefetch.prefetch_buffer, 2);

  std::string msg = ErrorText([&] { ParseIterParams("TestIter", {{"batch_size", "8"}, {"bach_size", "8"}}, &batch); });
  EXPECT_NE(msg.find("ValueError: TestIter: unknown argument 'bach_size'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("batch_size, round_batch"), std::string::npos) << msg;

  msg = ErrorText([&] { ParseIterParams("TestIter", {{"batch_size", "eight"}}, &batch); });
  EXPECT_NE(msg.find("TestIter: invalid value 'eight' for argument 'batch_size'"), std::string::npos) << msg;
  msg = ErrorText([&] { ParseIterParams("TestIter", {{"batch_size", "2"}, {"round_batch", "maybe"}}, &batch); });
  EXPECT_NE(msg.find("'round_batch'"), std::string::npos) << msg;
  msg = ErrorText([&] { ParseIterParams("TestIter", {{"batch_size", "0"}}, &batch); });
  EXPECT_NE(msg.find("'batch_size'"), std::string::npos) << msg;
  msg = ErrorText([&] { ParseIterParams("TestIter", {{"round_batch", "1"}}, &batch); });
  EXPECT_NE(msg.find("TestIter"), std::string::npos) << msg;
  EXPECT_NE(msg.find("batch_size"), std::string::npos) << msg;
}

TEST(DataIterRegistry, CreateRejectsUnknownKeysListingEveryArgument) {
  const auto* csv = DataIterRegistry::Get()->Find("CSVIter");
  std::string msg = ErrorText([&] { csv->Create({{"data_csv", "x.csv"}, {"shufle", "1"}}); });
  EXPECT_NE(msg.find("CSVIter: unknown argument 'shufle'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("prefetch_buffer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("data_csv"), std::string::npos) << msg;
}

// ---- BatchLoader ----

TEST(BatchLoader, RoundBatchWrapsAndTheFollowingResetContinues) {
  auto loader = MakeLoader(10, 4, true);
  std::vector<int> pads;
  EXPECT_EQ(Epoch(loader.get(), &pads), (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}));
  EXPECT_EQ(pads, (std::vector<int>{0, 0, 2}));
  EXPECT_FALSE(loader->Next());  // stays at the end until BeforeFirst
  loader->BeforeFirst();         // ignored: the wrap rewound the source already
  pads.clear();
  EXPECT_EQ(Epoch(loader.get(), &pads), (std::vector<uint64_t>{2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(pads, (std::vector<int>{0, 0}));
  loader->BeforeFirst();  // a real rewind
  pads.clear();
  EXPECT_EQ(Epoch(loader.get(), &pads).front(), 0u);
}

TEST(BatchLoader, NoRoundBatchZeroFillsAndCountsThePad) {
  auto loader = MakeLoader(10, 4, false);
  std::vector<int> pads;
  Epoch(loader.get(), &pads);
  EXPECT_EQ(pads, (std::vector<int>{0, 0, 2}));
  const DataBatch& b = loader->Value();
  ASSERT_EQ(b.data[0].shape(), (TShape{4, 3}));
  ASSERT_EQ(b.label[0].shape(), (TShape{4}));
  EXPECT_EQ(b.label[0].dtype(), kInt32);
  const float* d = static_cast<const float*>(b.data[0].data().dptr_);
  const int32_t* l = static_cast<const int32_t*>(b.label[0].data().dptr_);
  EXPECT_EQ(d[0], 8.0f);
  EXPECT_EQ(d[3], 9.0f);
  EXPECT_EQ(d[6], 0.0f);
  EXPECT_EQ(d[11], 0.0f);
  EXPECT_EQ(l[1], 9);
  EXPECT_EQ(l[3], 0);
  loader->BeforeFirst();
  pads.clear();
  EXPECT_EQ(Epoch(loader.get(), &pads).front(), 0u);
}

TEST(BatchLoader, EveryBatchHasItsOwnArrays) {
  auto loader = MakeLoader(8, 4, true);
  ASSERT_TRUE(loader->Next());
  DataBatch first = loader->Value();
  ASSERT_TRUE(loader->Next());
  EXPECT_FALSE(first.data[0].SameChunk(loader->Value().data[0]));
  EXPECT_EQ(FirstValue(first.data[0]), 0.0f);
  EXPECT_EQ(FirstValue(loader->Value().data[0]), 4.0f);
}

TEST(BatchLoader, FewerInstancesThanABatchIsAnError) {
  auto loader = MakeLoader(3, 8, true);
  std::string msg = ErrorText([&] { loader->Next(); });
  EXPECT_NE(msg.find("3 instances, fewer than batch_size 8"), std::string::npos) << msg;
}

// ---- PrefetcherIter ----

TEST(PrefetcherIter, DeliversEveryBatchInOrderOverEpochs) {
  auto it = MakePrefetcher(new CountingIter(7), 2);
  EXPECT_EQ(Drain(it.get()), (std::vector<float>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(it->Next());
  it->BeforeFirst();
  EXPECT_EQ(Drain(it.get()).size(), 7u);
}

TEST(PrefetcherIter, ProducerExceptionReachesNext) {
  auto it = MakePrefetcher(new CountingIter(10, 3), 4);
  std::vector<float> seen;
  std::string msg = ErrorText([&] {
    while (it->Next()) seen.push_back(FirstValue(it->Value().data[0]));
  });
  EXPECT_EQ(seen, (std::vector<float>{0, 1, 2}));  // the batches before the failure arrive first
  EXPECT_NE(msg.find("ValueError: batch 3 is broken"), std::string::npos) << msg;
  EXPECT_NE(ErrorText([&] { it->Next(); }).find("batch 3 is broken"), std::string::npos);  // sticky
  it->BeforeFirst();
  EXPECT_TRUE(it->Next());
  EXPECT_EQ(FirstValue(it->Value().data[0]), 0.0f);
}

TEST(PrefetcherIter, BeforeFirstMidEpochStartsOver) {
  auto it = MakePrefetcher(new CountingIter(6), 3);
  ASSERT_TRUE(it->Next());
  ASSERT_TRUE(it->Next());
  EXPECT_EQ(FirstValue(it->Value().data[0]), 1.0f);
  it->BeforeFirst();
  EXPECT_EQ(Drain(it.get()), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(PrefetcherIter, ReadsAheadNoMoreThanTheBuffer) {
  auto* inner = new CountingIter(100);
  auto it = MakePrefetcher(inner, 3);
  ASSERT_TRUE(it->Next());
  std::this_thread::sleep_for(200ms);
  // One consumed, three queued, at most one more read in flight while waiting for space.
  EXPECT_LE(inner->next_calls.load(), 5);
  EXPECT_GE(inner->next_calls.load(), 4);
}

TEST(PrefetcherIter, DestructionMidEpochDoesNotHang) {
  ExpectFinishes([] {
    auto it = MakePrefetcher(new CountingIter(1000), 1);  // producer blocked on a full queue
    ASSERT_TRUE(it->Next());
    std::this_thread::sleep_for(50ms);
  });
  ExpectFinishes([] {
    auto it = MakePrefetcher(new CountingIter(1000, -1, 30ms), 2);  // producer inside a slow Next
    ASSERT_TRUE(it->Next());
  });
  ExpectFinishes([] {
    auto it = MakePrefetcher(new CountingIter(2), 4);  // producer idle at the end of the epoch
    Drain(it.get());
  });
  ExpectFinishes([] { PrefetcherIter it(new CountingIter(5)); });  // never started
}

TEST(PrefetcherIter, RepeatedBeforeFirstDoesNotHang) {
  ExpectFinishes([] {
    auto it = MakePrefetcher(new CountingIter(50, -1, 1ms), 2);
    for (int i = 0; i < 20; ++i) {
      it->BeforeFirst();
      ASSERT_TRUE(it->Next());
      EXPECT_EQ(FirstValue(it->Value().data[0]), 0.0f);
    }
  });
}

TEST(PrefetcherIter, InitTakesPrefetchBufferAndPassesTheRest) {
  auto* inner = new CountingIter(3);
  PrefetcherIter it(inner);
  it.Init({{"prefetch_buffer", "2"}, {"something", "1"}});
  EXPECT_EQ(inner->init_keys, (std::vector<std::string>{"something"}));
  EXPECT_EQ(Drain(&it).size(), 3u);
  PrefetcherIter bad(new CountingIter(3));
  EXPECT_NE(ErrorText([&] { bad.Init({{"prefetch_buffer", "0"}}); }).find("'prefetch_buffer'"), std::string::npos);
}

// ---- CSVIter and MNISTIter through the registry ----

TEST(CSVIter, BatchesAFileAndNamesTheBadLine) {
  const std::string data = TempPath("data.csv"), label = TempPath("label.csv"), bad = TempPath("bad.csv");
  {
    std::ofstream d(data), l(label), b(bad);
    for (int i = 0; i < 5; ++i) {
      d << i << "," << i + 0.5 << ", " << -i << "\n";
      l << i * 10 << "\n";
    }
    b << "1,2,3\n\n4,x,6\n";
  }
  auto it = DataIterRegistry::Get()->Find("CSVIter")->Create(
      {{"data_csv", data}, {"data_shape", "(3,)"}, {"label_csv", label}, {"batch_size", "2"}});
  std::vector<float> labels;
  std::vector<int> pads;
  while (it->Next()) {
    const DataBatch& b = it->Value();
    ASSERT_EQ(b.data[0].shape(), (TShape{2, 3}));
    ASSERT_EQ(b.label[0].shape(), (TShape{2}));
    b.label[0].WaitToRead();
    const float* l = static_cast<const float*>(b.label[0].data().dptr_);
    labels.insert(labels.end(), l, l + 2);
    pads.push_back(b.num_batch_padd);
  }
  EXPECT_EQ(labels, (std::vector<float>{0, 10, 20, 30, 40, 0}));
  EXPECT_EQ(pads, (std::vector<int>{0, 0, 1}));

  auto bad_it = DataIterRegistry::Get()->Find("CSVIter")->Create(
      {{"data_csv", bad}, {"data_shape", "(3,)"}, {"batch_size", "1"}});
  EXPECT_TRUE(bad_it->Next());
  std::string msg = ErrorText([&] { bad_it->Next(); });
  EXPECT_NE(msg.find(bad + ":3, field 2: cannot read 'x' as float32"), std::string::npos) << msg;
  std::remove(data.c_str());
  std::remove(label.c_str());
  std::remove(bad.c_str());
}

TEST(MNISTIter, BadMagicAndTruncatedFilesAreNamed) {
  const std::string img = TempPath("img.idx"), lab = TempPath("lab.idx");
  auto be32 = [](std::ofstream& f, uint32_t v) {
    const unsigned char b[4] = {static_cast<unsigned char>(v >> 24), static_cast<unsigned char>(v >> 16),
                                static_cast<unsigned char>(v >> 8), static_cast<unsigned char>(v)};
    f.write(reinterpret_cast<const char*>(b), 4);
  };
  {
    std::ofstream f(img, std::ios::binary), g(lab, std::ios::binary);
    be32(f, 2051), be32(f, 4), be32(f, 2), be32(f, 2);
    f.write(std::string(16, '\x80').data(), 16);
    be32(g, 2049), be32(g, 4);
    g.write("\x01\x02\x03\x04", 4);
  }
  const auto* reg = DataIterRegistry::Get()->Find("MNISTIter");
  auto it = reg->Create({{"image", img}, {"label", lab}, {"batch_size", "2"}, {"shuffle", "0"}, {"silent", "1"}});
  ASSERT_TRUE(it->Next());
  EXPECT_EQ(it->Value().data[0].shape(), (TShape{2, 1, 2, 2}));
  EXPECT_EQ(FirstValue(it->Value().data[0]), 0.5f);
  ASSERT_TRUE(it->Next());
  EXPECT_FALSE(it->Next());

  std::string msg = ErrorText([&] { reg->Create({{"image", lab}, {"label", lab}, {"silent", "1"}}); });
  EXPECT_NE(msg.find("image file '" + lab + "' has magic number 2049, expected 2051"), std::string::npos) << msg;
  {
    std::ofstream f(img, std::ios::binary);
    be32(f, 2051), be32(f, 60000), be32(f, 28), be32(f, 28);
    f.write("\x00\x00", 2);
  }
  msg = ErrorText([&] { reg->Create({{"image", img}, {"label", lab}, {"silent", "1"}}); });
  EXPECT_NE(msg.find("image file '" + img + "' is truncated"), std::string::npos) << msg;
  msg = ErrorText([&] { reg->Create({{"image", img + ".missing"}, {"label", lab}}); });
  EXPECT_NE(msg.find("IOError: MNISTIter: image file"), std::string::npos) << msg;
  std::remove(img.c_str());
  std::remove(lab.c_str());
}
