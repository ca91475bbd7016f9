/*!
 * \file fast_reorder_test.cc
 * \brief FastReorder's own loops (equal-format copy, float32 NCHW -> NHWC) give exactly what
 *        oneDNN's reorder gives, and it declines every other pair.
 */
#include <gtest/gtest.h>

#include <vector>

#if MXNET_USE_ONEDNN
#include "operator/nn/onednn/onednn_base.h"
#endif

namespace mxnet {
namespace {

#if MXNET_USE_ONEDNN

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

std::vector<float> Numbered(size_t bytes) {
  std::vector<float> v(bytes / sizeof(float));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1013) * 0.5f - 7.f;
  return v;
}

/*! \brief dst of oneDNN's own reorder from -> to on src. */
std::vector<float> OneDNNReorder(const md& from, std::vector<float>& src, const md& to) {
  std::vector<float> dst(to.get_size() / sizeof(float), -1.f);
  dnnl::memory in(from, op::onednn::CpuEngine(), src.data()), out(to, op::onednn::CpuEngine(), dst.data());
  dnnl::stream& s = op::onednn::ThreadStream();
  dnnl::reorder(in, out).execute(s, in, out);
  s.wait();
  return dst;
}

class FastReorderTest : public ::testing::TestWithParam<dnnl::memory::dims> {};

TEST_P(FastReorderTest, NchwToNhwcMatchesOneDNN) {
  const md from(GetParam(), dt::f32, tag::abcd), to(GetParam(), dt::f32, tag::acdb);
  std::vector<float> src = Numbered(from.get_size());
  std::vector<float> ours(to.get_size() / sizeof(float), -1.f);
  ASSERT_TRUE(op::onednn::FastReorder(from, src.data(), to, ours.data()));
  EXPECT_EQ(ours, OneDNNReorder(from, src, to));
}

TEST_P(FastReorderTest, EqualFormatsCopy) {
  const md blocked(GetParam(), dt::f32, tag::aBcd16b);  // padded channels copy as they are
  std::vector<float> src = Numbered(blocked.get_size());
  std::vector<float> ours(src.size(), -1.f);
  ASSERT_TRUE(op::onednn::FastReorder(blocked, src.data(), blocked, ours.data()));
  EXPECT_EQ(ours, src);
}

INSTANTIATE_TEST_SUITE_P(Shapes, FastReorderTest,
                         ::testing::Values(dnnl::memory::dims{1, 3, 224, 224}, dnnl::memory::dims{2, 1, 5, 7},
                                           dnnl::memory::dims{3, 5, 1, 9}, dnnl::memory::dims{2, 17, 6, 6}));

TEST(FastReorder, DeclinesOtherPairs) {
  const dnnl::memory::dims d{2, 3, 4, 5};
  std::vector<float> src(2 * 16 * 4 * 5), dst(src.size(), -1.f);
  const std::vector<float> untouched = dst;
  // Other formats, other dtypes and other ranks are oneDNN's.
  EXPECT_FALSE(
      op::onednn::FastReorder(md(d, dt::f32, tag::abcd), src.data(), md(d, dt::f32, tag::aBcd16b), dst.data()));
  EXPECT_FALSE(op::onednn::FastReorder(md(d, dt::f32, tag::acdb), src.data(), md(d, dt::f32, tag::abcd), dst.data()));
  EXPECT_FALSE(op::onednn::FastReorder(md(d, dt::bf16, tag::abcd), src.data(), md(d, dt::bf16, tag::acdb), dst.data()));
  EXPECT_FALSE(op::onednn::FastReorder(md({2, 3, 4, 5, 6}, dt::f32, tag::abcde), src.data(),
                                       md({2, 3, 4, 5, 6}, dt::f32, tag::acdeb), dst.data()));
  EXPECT_EQ(dst, untouched);
}

#endif  // MXNET_USE_ONEDNN

}  // namespace
}  // namespace mxnet
