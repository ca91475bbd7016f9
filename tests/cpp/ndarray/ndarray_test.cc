// NDArray, tensor vocabulary and the .params format.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "mxnet/ndarray.h"

using namespace mxnet;

TEST(TShape, PrintAndParse) {
  EXPECT_EQ(TShape({2, 3}).ToString(), "(2, 3)");
  EXPECT_EQ(TShape({5}).ToString(), "(5,)");
  EXPECT_EQ(TShape(std::vector<dim_t>{}).ToString(), "()");
  EXPECT_EQ(TShape().ToString(), "None");
  EXPECT_EQ(TShape::Parse("(2, 3)"), TShape({2, 3}));
  EXPECT_EQ(TShape::Parse("[4,5,6]"), TShape({4, 5, 6}));
  EXPECT_EQ(TShape::Parse("(3L, None)"), TShape({3, -1}));
  EXPECT_THROW(TShape::Parse("(2, x)"), Error);
}

TEST(DType, HalfAndBfloat16Conversions) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f}) {
    EXPECT_EQ(static_cast<float>(half_t(f)), f) << f;
  }
  EXPECT_TRUE(std::isinf(static_cast<float>(half_t(1e6f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(half_t(NAN))));
  EXPECT_EQ(static_cast<float>(half_t(1.0f + 1.0f / 4096)), 1.0f);  // ties to even
  EXPECT_EQ(static_cast<float>(bf16_t(3.140625f)), 3.140625f);
  EXPECT_EQ(static_cast<float>(bf16_t(1.0f + 1.0f / 512)), 1.0f);  // ties to even
  EXPECT_EQ(DTypeSize(kBfloat16), 2u);
  EXPECT_STREQ(DTypeName(kInt64), "int64");
  EXPECT_EQ(DTypeFromName("bool"), kBool);
}

TEST(NDArray, ViewsShareMemory) {
  NDArray a(TShape({4, 3}), Context::CPU());
  std::vector<float> src(12);
  for (int i = 0; i < 12; ++i) src[i] = static_cast<float>(i);
  a.SyncCopyFromCPU(src.data(), 12);
  NDArray row = a.At(2);
  EXPECT_EQ(row.shape(), TShape({3}));
  std::vector<float> out(3);
  row.SyncCopyToCPU(out.data(), 3);
  EXPECT_EQ(out, (std::vector<float>{6, 7, 8}));
  NDArray sl = a.Slice(1, 3).Reshape(TShape({6}));
  std::vector<float> ones(6, 1.0f);
  sl.SyncCopyFromCPU(ones.data(), 6);
  a.SyncCopyToCPU(src.data(), 12);
  EXPECT_EQ(src[2], 2.0f);
  EXPECT_EQ(src[3], 1.0f);
  EXPECT_EQ(src[8], 1.0f);
  EXPECT_EQ(src[9], 9.0f);
  EXPECT_THROW(a.Slice(2, 5), Error);
  EXPECT_THROW(a.At(4), Error);
  EXPECT_THROW(a.Reshape(TShape({5})), Error);
}

TEST(NDArray, CopyConvertsDType) {
  NDArray a(TShape({3}), Context::CPU(), false, kInt32);
  int32_t v[3] = {1, -2, 3};
  a.SyncCopyFromCPU(v, 3);
  NDArray b(TShape({3}), Context::CPU(), true, kFloat64);
  CopyFromTo(a, b);
  double out[3];
  b.SyncCopyToCPU(out, 3);
  EXPECT_EQ(out[1], -2.0);
}

TEST(NDArray, TooLargeFailsCleanly) {
  EXPECT_THROW(NDArray(TShape({int64_t{1} << 62, 16}), Context::CPU(), true), Error);
}

TEST(Reshape, SpecialCodes) {
  EXPECT_EQ(InferReshape(TShape({4, 0, 2}), TShape({2, 3, 4}), false), TShape({4, 3, 2}));
  EXPECT_EQ(InferReshape(TShape({-4, 1, 2, -2}), TShape({2, 3, 4}), false), TShape({1, 2, 3, 4}));
  EXPECT_EQ(InferReshape(TShape({-1, 0}), TShape({10, 5, 4}), true), TShape({50, 4}));
  EXPECT_THROW(InferReshape(TShape({-1, -1}), TShape({2, 3}), false), Error);
}

TEST(ParamsFormat, RoundTripAndTruncation) {
  NDArray a(TShape({2, 2}), Context::CPU(), false, kFloat16);
  half_t v[4] = {half_t(1.0f), half_t(2.0f), half_t(-3.0f), half_t(0.5f)};
  a.SyncCopyFromCPU(v, 4);
  std::string buf;
  NDArraySaveList(&buf, {a, NDArray()}, {"a", "none"});
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  NDArrayLoadList(buf.data(), buf.size(), "mem", &arrays, &names);
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_TRUE(arrays[1].is_none());
  EXPECT_EQ(names[0], "a");
  half_t out[4];
  arrays[0].SyncCopyToCPU(out, 4);
  EXPECT_EQ(std::memcmp(out, v, sizeof(v)), 0);
  for (size_t cut = 0; cut < buf.size(); ++cut) {
    try {
      NDArrayLoadList(buf.data(), cut, "mem", &arrays, &names);
      ADD_FAILURE() << "truncated at " << cut << " loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("mem at offset"), std::string::npos) << e.what();
    }
  }
}
