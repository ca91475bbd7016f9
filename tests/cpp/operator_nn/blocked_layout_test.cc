/*!
 * \file blocked_layout_test.cc
 * \brief Blocked oneDNN layouts kept between ops, through the imperative layer and the engine:
 *        chains produce blocked outputs and the same values as plain-input runs, and many
 *        readers of one blocked array (oneDNN ones reading the layout, plain ones converting
 *        it) all see the same data.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "ndarray_patterns.h"
#if MXNET_USE_ONEDNN
#include "operator/onednn/onednn_concat.h"
#include "operator/onednn/onednn_layout.h"
#endif

namespace mxnet {
namespace {

#if MXNET_USE_ONEDNN

using test::Host;
using test::Pattern;

const std::unordered_map<std::string, std::string> kConv{
    {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "32"}, {"no_bias", "True"}};

class BlockedLayout : public ::testing::Test {
 protected:
  void SetUp() override { op::onednn::SetEnabledOverride(1); }
  void TearDown() override { op::onednn::SetEnabledOverride(-1); }
};

TEST_F(BlockedLayout, ChainLeavesBlockedOutputsAndMatchesPlainInputRun) {
  const NDArray x = Pattern({2, 16, 8, 8}, 1.f), w = Pattern({32, 16, 3, 3}, 0.2f);
  const uint64_t before = op::onednn::BlockedOutputsMade();
  NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray r = imperative::InvokeByName("Activation", {h}, {{"act_type", "relu"}})[0];
  NDArray p = imperative::InvokeByName("Pooling", {r}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}})[0];
  p.WaitToRead();
  // Whether conv prefers a non-plain format is oneDNN's choice; on AVX-512 CPUs it does.
  const uint64_t made = op::onednn::BlockedOutputsMade() - before;
  EXPECT_EQ(made, 3u);
  const std::vector<float> blocked = Host(p);

  // Same chain with every intermediate read plainly first (each op then gets plain input).
  NDArray h2 = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  Host(h2);
  NDArray r2 = imperative::InvokeByName("Activation", {h2}, {{"act_type", "relu"}})[0];
  Host(r2);
  NDArray p2 = imperative::InvokeByName("Pooling", {r2}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}})[0];
  EXPECT_EQ(blocked, Host(p2));
  EXPECT_EQ(Host(h), Host(h2));
  EXPECT_EQ(Host(r), Host(r2));
}

TEST_F(BlockedLayout, BatchNormInferenceReadsAndLeavesBlockedData) {
  const NDArray x = Pattern({2, 16, 6, 6}, 1.f), w = Pattern({32, 16, 3, 3}, 0.2f);
  const NDArray g = Pattern({32}, 1.f), b = Pattern({32}, 0.5f), m = Pattern({32}, 0.1f);
  NDArray v({32}, Context::CPU());
  std::vector<float> ones(32, 1.5f);
  v.SyncCopyFromCPU(ones.data(), ones.size());
  const std::unordered_map<std::string, std::string> bn{{"fix_gamma", "False"}};
  const uint64_t before = op::onednn::BlockedOutputsMade();
  NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray y = imperative::InvokeByName("BatchNorm", {h, g, b, m, v}, bn)[0];
  y.WaitToRead();
  EXPECT_EQ(op::onednn::BlockedOutputsMade() - before, 2u);
  NDArray h2 = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  Host(h2);
  NDArray y2 = imperative::InvokeByName("BatchNorm", {h2, g, b, m, v}, bn)[0];
  // Same math; the blocked kernel may round the last bit differently.
  const std::vector<float> a = Host(y), c = Host(y2);
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], c[i], 1e-5f * (1.f + std::fabs(c[i])));
}

TEST_F(BlockedLayout, ManyReadersOfOneBlockedArraySeeTheSameData) {
  const NDArray x = Pattern({1, 16, 6, 6}, 1.f), w = Pattern({32, 16, 3, 3}, 0.3f);
  NDArray plain_h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  const std::vector<float> want = Host(plain_h);
  std::vector<float> want_relu(want);
  for (float& v : want_relu) v = v > 0 ? v : 0;
  for (int round = 0; round < 4; ++round) {
    NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
    std::vector<NDArray> relus, copies;
    for (int i = 0; i < 6; ++i) {  // readers of the layout interleaved with readers converting it
      relus.push_back(imperative::InvokeByName("Activation", {h}, {{"act_type", "relu"}})[0]);
      copies.push_back(imperative::InvokeByName("_copy", {h})[0]);
    }
    for (const NDArray& c : copies) EXPECT_EQ(Host(c), want);
    for (const NDArray& r : relus) EXPECT_EQ(Host(r), want_relu);
    EXPECT_EQ(Host(h), want);
  }
}

TEST_F(BlockedLayout, ViewsAndPlainReadersOfABlockedArraySeePlainData) {
  const NDArray x = Pattern({2, 16, 5, 5}, 1.f), w = Pattern({32, 16, 3, 3}, 0.1f);
  NDArray ref = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  const std::vector<float> want = Host(ref);
  NDArray h = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray row = h.At(1);  // a view: converts the whole chunk
  const std::vector<float> got_row = Host(row);
  EXPECT_EQ(got_row, std::vector<float>(want.begin() + want.size() / 2, want.end()));
  NDArray h3 = imperative::InvokeByName("Convolution", {x, w}, kConv)[0];
  NDArray out = imperative::InvokeByName("negative", {h3})[0];  // a plain reader
  std::vector<float> negated(want);
  for (float& v : negated) v = -v;
  EXPECT_EQ(Host(out), negated);
}

using Tag = dnnl::memory::format_tag;

/*! \brief A copy of `plain` whose data is held in format `tag` (as a oneDNN op would leave it). */
NDArray InFormat(const NDArray& plain, Tag tag) {
  const TBlob b = plain.data();
  const auto plain_desc = op::onednn::PlainDesc(b);
  auto blocked = std::make_shared<op::onednn::BlockedData>(
      dnnl::memory::desc(plain_desc.dims(), plain_desc.data_type(), tag), plain_desc);
  dnnl::memory src(plain_desc, op::onednn::CpuEngine(), b.dptr_);
  dnnl::memory dst(blocked->desc(), op::onednn::CpuEngine(), blocked->ptr());
  dnnl::stream& s = op::onednn::ThreadStream();
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  NDArray a(plain.shape(), Context::CPU());
  a.WaitToWrite();
  a.set_opaque_layout(std::move(blocked));
  return a;
}

bool HoldsLayout(const NDArray& a) {
  a.WaitToRead();
  return a.opaque_layout() != nullptr;
}

std::vector<float> Sum(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> s(a);
  for (size_t i = 0; i < s.size(); ++i) s[i] += b[i];
  return s;
}

TEST_F(BlockedLayout, AddOfOneDenseFormatRunsOnTheBlockedBuffersAndStaysBlocked) {
  for (const auto& [shape, tag] :
       {std::make_pair(TShape{2, 20, 3, 3}, Tag::acdb), std::make_pair(TShape{2, 32, 3, 3}, Tag::nChw16c)}) {
    const NDArray a = Pattern(shape, 1.f), b = Pattern(shape, -0.5f);
    const std::vector<float> want = Sum(Host(a), Host(b));
    for (const char* name : {"broadcast_add", "elemwise_add", "_plus"}) {
      NDArray y = imperative::InvokeByName(name, {InFormat(a, tag), InFormat(b, tag)})[0];
      EXPECT_TRUE(HoldsLayout(y)) << name << " " << shape;
      EXPECT_EQ(Host(y), want) << name << " " << shape;
    }
    NDArray s = imperative::InvokeByName("_mul_scalar", {InFormat(a, tag)}, {{"scalar", "2"}})[0];
    EXPECT_TRUE(HoldsLayout(s));
    EXPECT_EQ(Host(s), Sum(Host(a), Host(a)));
  }
}

TEST_F(BlockedLayout, PaddedMixedOrDifferentFormatsTakeThePlainPath) {
  const TShape shape{2, 20, 3, 3};  // nChw16c pads 20 channels to 32
  const NDArray a = Pattern(shape, 1.f), b = Pattern(shape, 0.25f);
  const std::vector<float> want = Sum(Host(a), Host(b));
  const std::vector<std::pair<NDArray, NDArray>> cases{{InFormat(a, Tag::nChw16c), InFormat(b, Tag::nChw16c)},
                                                       {InFormat(a, Tag::acdb), InFormat(b, Tag::nChw16c)},
                                                       {InFormat(a, Tag::acdb), b}};
  for (const auto& [x, z] : cases) {
    NDArray y = imperative::InvokeByName("broadcast_add", {x, z})[0];
    EXPECT_FALSE(HoldsLayout(y));
    EXPECT_EQ(Host(y), want);
  }
  NDArray s = imperative::InvokeByName("_plus_scalar", {InFormat(a, Tag::nChw16c)}, {{"scalar", "1"}})[0];
  EXPECT_FALSE(HoldsLayout(s));  // the scalar would land in the padding
  std::vector<float> plus_one(Host(a));
  for (float& v : plus_one) v += 1;
  EXPECT_EQ(Host(s), plus_one);
}

TEST_F(BlockedLayout, InPlaceAddKeepsTheFormatOfItsOutput) {
  const TShape shape{1, 32, 4, 4};
  const NDArray a = Pattern(shape, 1.f), b = Pattern(shape, 0.75f);
  const std::vector<float> want = Sum(Host(a), Host(b));
  const op::NodeAttrs attrs = op::MakeAttrs(op::Op::Get("broadcast_add"), {});
  for (const NDArray& rhs : {InFormat(b, Tag::acdb), b}) {
    NDArray x = InFormat(a, Tag::acdb), out = x, y = rhs;  // out shares x's chunk: `x += y`
    imperative::Invoke(Context::CPU(), attrs, {&x, &y}, {&out});
    EXPECT_EQ(HoldsLayout(x), HoldsLayout(y));  // blocked only when both inputs were
    EXPECT_EQ(Host(x), want);
  }
}

TEST_F(BlockedLayout, ConcatOfBlockedInputsLeavesABlockedOutput) {
  const NDArray a = Pattern({2, 16, 3, 3}, 1.f), b = Pattern({2, 32, 3, 3}, -1.f), c = Pattern({2, 8, 3, 3}, 0.5f);
  const std::unordered_map<std::string, std::string> dim1{{"dim", "1"}};
  NDArray plain = imperative::InvokeByName("Concat", {a, c, b}, dim1)[0];
  EXPECT_FALSE(HoldsLayout(plain));
  NDArray blocked = imperative::InvokeByName("Concat", {InFormat(a, Tag::acdb), InFormat(b, Tag::acdb)}, dim1)[0];
  EXPECT_TRUE(HoldsLayout(blocked));
  NDArray want_ab = imperative::InvokeByName("Concat", {a, b}, dim1)[0];
  EXPECT_EQ(Host(blocked), Host(want_ab));
  NDArray mixed = imperative::InvokeByName("Concat", {InFormat(a, Tag::acdb), c, InFormat(b, Tag::nChw16c)}, dim1)[0];
  EXPECT_EQ(Host(mixed), Host(plain));
}

TEST_F(BlockedLayout, ConcatOfChannelLastInputsJoinsAnyChannelCounts) {
  // Channel-last inputs join pixel by pixel (no channel blocks to fill), so odd counts qualify too.
  const NDArray a = Pattern({2, 20, 3, 5}, 1.f), b = Pattern({2, 7, 3, 5}, -1.f), c = Pattern({2, 12, 3, 5}, 0.5f);
  const std::unordered_map<std::string, std::string> dim1{{"dim", "1"}};
  NDArray want = imperative::InvokeByName("Concat", {a, b, c}, dim1)[0];
  const uint64_t joins = op::onednn::RowCopyJoins();
  NDArray joined = imperative::InvokeByName(
      "Concat", {InFormat(a, Tag::acdb), InFormat(b, Tag::acdb), InFormat(c, Tag::acdb)}, dim1)[0];
  EXPECT_TRUE(HoldsLayout(joined));
  EXPECT_EQ(op::onednn::RowCopyJoins(), joins + 1);
  EXPECT_EQ(Host(joined), Host(want));
  // Along another axis the oneDNN concat runs; the values are the same either way.
  const std::unordered_map<std::string, std::string> dim2{{"dim", "2"}};
  NDArray rows = imperative::InvokeByName("Concat", {InFormat(a, Tag::acdb), InFormat(a, Tag::acdb)}, dim2)[0];
  EXPECT_EQ(Host(rows), Host(imperative::InvokeByName("Concat", {a, a}, dim2)[0]));
  EXPECT_EQ(op::onednn::RowCopyJoins(), joins + 1);
}

#endif  // MXNET_USE_ONEDNN

}  // namespace
}  // namespace mxnet
