/*!
 * \file same_format_copy_test.cc
 * \brief SameFormatCopy copies every byte (padding included) between equal formats and
 *        declines, touching nothing, any pair oneDNN's reorder must convert.
 */
#include <gtest/gtest.h>

#include <vector>

#if MXNET_USE_ONEDNN
#include "operator/onednn/onednn_base.h"
#endif

namespace mxnet {
namespace {

#if MXNET_USE_ONEDNN

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

class SameFormatCopyTest : public ::testing::TestWithParam<dnnl::memory::dims> {};

TEST_P(SameFormatCopyTest, CopiesEqualFormats) {
  for (tag t : {tag::abcd, tag::acdb, tag::aBcd16b}) {  // aBcd16b: padded channels copy too
    const md d(GetParam(), dt::f32, t);
    std::vector<float> src(d.get_size() / sizeof(float)), dst(src.size(), -1.f);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 1013) * 0.5f - 7.f;
    ASSERT_TRUE(op::onednn::SameFormatCopy(d, src.data(), d, dst.data()));
    EXPECT_EQ(dst, src);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SameFormatCopyTest,
                         ::testing::Values(dnnl::memory::dims{1, 3, 224, 224}, dnnl::memory::dims{2, 1, 5, 7},
                                           dnnl::memory::dims{3, 17, 6, 6}));

TEST(SameFormatCopy, DeclinesDifferentFormats) {
  const dnnl::memory::dims d{2, 3, 4, 5};
  std::vector<float> src(2 * 16 * 4 * 5), dst(src.size(), -1.f);
  const std::vector<float> untouched = dst;
  EXPECT_FALSE(
      op::onednn::SameFormatCopy(md(d, dt::f32, tag::abcd), src.data(), md(d, dt::f32, tag::acdb), dst.data()));
  EXPECT_FALSE(
      op::onednn::SameFormatCopy(md(d, dt::f32, tag::abcd), src.data(), md(d, dt::f32, tag::aBcd16b), dst.data()));
  EXPECT_FALSE(
      op::onednn::SameFormatCopy(md(d, dt::f32, tag::abcd), src.data(), md(d, dt::bf16, tag::abcd), dst.data()));
  EXPECT_EQ(dst, untouched);
}

#endif  // MXNET_USE_ONEDNN

}  // namespace
}  // namespace mxnet
