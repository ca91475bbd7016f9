// Gradient compression: parameters, the bit-exact compressed form against a per-element
// reference written here, the residual carry, and the engine ops on NDArrays.
#include "kvstore/gradient_compression.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "mxnet/ndarray.h"

using namespace mxnet;
using mxnet::kvstore::CompressionType;
using mxnet::kvstore::GradientCompression;

namespace {

using KWArgs = std::vector<std::pair<std::string, std::string>>;

GradientCompression Make(const std::string& type, const std::string& threshold) {
  GradientCompression gc;
  gc.SetParams({{"type", type}, {"threshold", threshold}});
  return gc;
}

// ---- reference: one value at a time, the compressed form as an MSB-first bit stream ----
// Value i owns bits [i*width, (i+1)*width) of the stream; stream bit k is bit 7 - k%8 of
// byte k/8. With 16 (or 32) values per 4-byte word this is exactly the documented layout.
struct Reference {
  int width;  // bits per value: 2 or 1
  float t;
  std::vector<uint8_t> bytes;  // whole words, unused bits 0
  std::vector<float> residual;
  std::vector<float> decoded;
};

void PutBits(std::vector<uint8_t>* stream, int64_t first_bit, int width, unsigned value) {
  for (int k = 0; k < width; ++k) {
    const unsigned bit = (value >> (width - 1 - k)) & 1u;
    const int64_t pos = first_bit + k;
    if (bit) (*stream)[pos / 8] |= static_cast<uint8_t>(0x80u >> (pos % 8));
  }
}

// One step of compression for every value: updates ref->residual, sets bytes and decoded.
void ReferenceStep(Reference* ref, const std::vector<float>& grad) {
  const int64_t n = static_cast<int64_t>(grad.size());
  const int64_t per_word = 32 / ref->width;
  ref->bytes.assign(((n + per_word - 1) / per_word) * 4, 0);
  ref->decoded.assign(n, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float r = ref->residual[i] + grad[i];
    unsigned code;
    float value;
    if (ref->width == 2) {
      if (r >= ref->t) {
        code = 3, value = ref->t, r = r - ref->t;
      } else if (r <= -ref->t) {
        code = 2, value = -ref->t, r = r + ref->t;
      } else {
        code = 0, value = 0.0f;
      }
    } else {
      if (r > ref->t) {
        code = 1, value = 1.0f, r = r - 1.0f;
      } else {
        code = 0, value = -1.0f, r = r + 1.0f;
      }
    }
    ref->residual[i] = r;
    ref->decoded[i] = value;
    PutBits(&ref->bytes, i * ref->width, ref->width, code);
  }
}

Reference MakeReference(const GradientCompression& gc, int64_t n) {
  Reference ref;
  ref.width = gc.type() == CompressionType::kTwoBit ? 2 : 1;
  ref.t = gc.threshold();
  ref.residual.assign(n, 0.0f);
  return ref;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<uint8_t> BytesOf(const std::vector<float>& words) {
  std::vector<uint8_t> out(words.size() * 4);
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}

/*! \brief The implementation's raw loops over several steps, checked against the reference at each. */
void CheckRawMatchesReference(const GradientCompression& gc, const std::vector<std::vector<float>>& steps) {
  const int64_t n = static_cast<int64_t>(steps.front().size());
  Reference ref = MakeReference(gc, n);
  std::vector<float> residual(n, 0.0f);
  for (size_t s = 0; s < steps.size(); ++s) {
    ReferenceStep(&ref, steps[s]);
    std::vector<float> compressed(gc.CompressedSize(n));
    std::memset(compressed.data(), 0xFF, compressed.size() * sizeof(float));  // unused bits must be cleared
    gc.QuantizeRaw(steps[s].data(), residual.data(), compressed.data(), n);
    std::vector<float> decoded(n + 3, 42.0f);  // values past n must stay untouched
    gc.DequantizeRaw(compressed.data(), decoded.data(), n);
    ASSERT_EQ(BytesOf(compressed), ref.bytes) << "n=" << n << " step " << s;
    ASSERT_TRUE(SameBits(residual, ref.residual)) << "n=" << n << " step " << s;
    for (int k = 0; k < 3; ++k) ASSERT_EQ(decoded[n + k], 42.0f) << "n=" << n;
    decoded.resize(n);
    ASSERT_TRUE(SameBits(decoded, ref.decoded)) << "n=" << n << " step " << s;
  }
}

std::vector<std::vector<float>> RandomSteps(int64_t n, int steps, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<std::vector<float>> out(steps, std::vector<float>(n));
  for (auto& step : out)
    for (float& v : step) v = dist(rng);
  return out;
}

void ExpectError(const std::string& kind, const std::string& text, const std::function<void()>& fn) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.kind()), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "message: " << e.what();
  }
}

NDArray FloatArray(const std::vector<float>& values) {
  NDArray a(TShape({static_cast<dim_t>(values.size())}), Context::CPU());
  a.SyncCopyFromCPU(values.data(), values.size());
  return a;
}

std::vector<float> ToVector(const NDArray& a) {
  std::vector<float> out(a.Size());
  a.SyncCopyToCPU(out.data(), out.size());
  return out;
}

}  // namespace

// ---- parameters ----

TEST(GradientCompressionParams, DefaultsAndTypes) {
  GradientCompression gc;
  EXPECT_FALSE(gc.active());
  EXPECT_EQ(gc.type(), CompressionType::kNone);
  gc.SetParams({{"type", "2bit"}});
  EXPECT_TRUE(gc.active());
  EXPECT_EQ(gc.type(), CompressionType::kTwoBit);
  EXPECT_EQ(gc.threshold(), 0.5f);
  gc.SetParams({{"type", "1BIT"}, {"threshold", "0.25"}});
  EXPECT_EQ(gc.type(), CompressionType::kOneBit);
  EXPECT_EQ(gc.threshold(), 0.25f);
  gc.SetParams({{"threshold", "2"}, {"type", "2Bit"}});
  EXPECT_EQ(gc.type(), CompressionType::kTwoBit);
  EXPECT_EQ(gc.threshold(), 2.0f);
  // 1bit takes any finite threshold.
  gc.SetParams({{"type", "1bit"}, {"threshold", "-0.5"}});
  EXPECT_EQ(gc.threshold(), -0.5f);
  gc.SetParams({{"type", "1bit"}, {"threshold", "0"}});
  EXPECT_EQ(gc.threshold(), 0.0f);
}

TEST(GradientCompressionParams, Errors) {
  GradientCompression gc;
  ExpectError("ValueError", "Unknown type for gradient compression: 3bit (use 2bit or 1bit)", [&] {
    gc.SetParams({{"type", "3bit"}});
  });
  ExpectError("ValueError", "Unknown type for gradient compression: none", [&] { gc.SetParams({{"type", "none"}}); });
  ExpectError("ValueError", "Gradient compression needs a type", [&] { gc.SetParams({{"threshold", "0.5"}}); });
  ExpectError("ValueError", "Gradient compression needs a type", [&] { gc.SetParams({}); });
  ExpectError("ValueError", "threshold must be greater than 0 for 2bit, got 0", [&] {
    gc.SetParams({{"type", "2bit"}, {"threshold", "0"}});
  });
  ExpectError("ValueError", "threshold must be greater than 0 for 2bit, got -0.25", [&] {
    gc.SetParams({{"type", "2bit"}, {"threshold", "-0.25"}});
  });
  ExpectError("ValueError", "threshold must be a finite number, got abc", [&] {
    gc.SetParams({{"type", "2bit"}, {"threshold", "abc"}});
  });
  ExpectError("ValueError", "threshold must be a finite number, got 0.5x", [&] {
    gc.SetParams({{"type", "1bit"}, {"threshold", "0.5x"}});
  });
  ExpectError("ValueError", "threshold must be a finite number, got nan", [&] {
    gc.SetParams({{"type", "1bit"}, {"threshold", "nan"}});
  });
  ExpectError("ValueError", "threshold must be a finite number, got 1e99", [&] {
    gc.SetParams({{"type", "1bit"}, {"threshold", "1e99"}});
  });
  ExpectError("ValueError", "threshold must be a finite number, got ", [&] {
    gc.SetParams({{"type", "1bit"}, {"threshold", ""}});
  });
  ExpectError("ValueError", "Unknown parameter for gradient compression: thresh", [&] {
    gc.SetParams({{"type", "2bit"}, {"thresh", "0.5"}});
  });
  // A rejected call leaves the earlier settings in place.
  gc.SetParams({{"type", "2bit"}, {"threshold", "0.75"}});
  EXPECT_THROW(gc.SetParams({{"type", "1bit"}, {"threshold", "abc"}}), Error);
  EXPECT_THROW(gc.SetParams({{"type", "1bit"}, {"bogus", "1"}}), Error);
  EXPECT_EQ(gc.type(), CompressionType::kTwoBit);
  EXPECT_EQ(gc.threshold(), 0.75f);
}

TEST(GradientCompressionParams, Sizes) {
  GradientCompression two = Make("2bit", "0.5"), one = Make("1bit", "0");
  EXPECT_EQ(two.CompressionFactor(), 16);
  EXPECT_EQ(one.CompressionFactor(), 32);
  const std::vector<std::pair<int64_t, int64_t>> two_sizes = {{0, 0}, {1, 1}, {16, 1}, {17, 2}, {32, 2}, {33, 3}};
  for (auto [n, words] : two_sizes) EXPECT_EQ(two.CompressedSize(n), words) << n;
  const std::vector<std::pair<int64_t, int64_t>> one_sizes = {{0, 0}, {1, 1}, {32, 1}, {33, 2}, {64, 2}, {65, 3}};
  for (auto [n, words] : one_sizes) EXPECT_EQ(one.CompressedSize(n), words) << n;
  EXPECT_EQ(two.CompressedSize(int64_t{1} << 40), int64_t{1} << 36);
  GradientCompression none;
  ExpectError("ValueError", "Gradient compression is not set", [&] { none.CompressionFactor(); });
  ExpectError("ValueError", "Gradient compression is not set", [&] { none.CompressedSize(10); });
}

TEST(GradientCompressionParams, EncodeDecodeRoundTrip) {
  EXPECT_EQ(Make("2bit", "0.5").EncodeParams(), "1,0.5");
  EXPECT_EQ(Make("1bit", "-2").EncodeParams(), "2,-2");
  EXPECT_EQ(GradientCompression().EncodeParams(), "0,0.5");
  for (const char* type : {"2bit", "1bit"}) {
    for (const char* t : {"0.5", "0.1", "3.3333333", "1e-7", "123456.789"}) {
      const GradientCompression sent = Make(type, t);
      GradientCompression received;
      received.DecodeParams(sent.EncodeParams());
      EXPECT_EQ(received.type(), sent.type()) << type << " " << t;
      EXPECT_EQ(received.threshold(), sent.threshold()) << type << " " << t;  // exact
    }
  }
  GradientCompression gc = Make("2bit", "0.5");
  gc.DecodeParams("0,0.5");
  EXPECT_FALSE(gc.active());
}

TEST(GradientCompressionParams, DecodeErrors) {
  GradientCompression gc = Make("1bit", "0.25");
  ExpectError("ValueError", "Malformed gradient compression parameters '2bit' (expected \"<type>,<threshold>\")",
              [&] { gc.DecodeParams("2bit"); });
  ExpectError("ValueError", "'3,0.5': unknown type 3", [&] { gc.DecodeParams("3,0.5"); });
  ExpectError("ValueError", "unknown type x", [&] { gc.DecodeParams("x,0.5"); });
  ExpectError("ValueError", "'1,abc': bad threshold abc", [&] { gc.DecodeParams("1,abc"); });
  ExpectError("ValueError", "bad threshold", [&] { gc.DecodeParams("1,"); });
  ExpectError("ValueError", "threshold must be greater than 0 for 2bit, got 0", [&] { gc.DecodeParams("1,0"); });
  ExpectError("ValueError", "threshold must be greater than 0 for 2bit, got -1", [&] { gc.DecodeParams("1,-1"); });
  EXPECT_EQ(gc.type(), CompressionType::kOneBit);
  EXPECT_EQ(gc.threshold(), 0.25f);
}

// ---- the compressed form ----

TEST(GradientCompressionRaw, TwoBitLayoutByHand) {
  const GradientCompression gc = Make("2bit", "0.5");
  // Codes 11, 10, 00, 11 | 00, 00, 10, 00 | ... value 15 is +, value 16 (next word) is -.
  std::vector<float> grad(17, 0.0f);
  grad[0] = 0.7f, grad[1] = -0.5f, grad[3] = 0.5f, grad[6] = -1.0f, grad[15] = 2.0f, grad[16] = -0.6f;
  std::vector<float> residual(17, 0.0f), out(2, 0.0f);
  gc.QuantizeRaw(grad.data(), residual.data(), out.data(), 17);
  const std::vector<uint8_t> expected = {0xE3, 0x08, 0x00, 0x03, 0x80, 0x00, 0x00, 0x00};
  EXPECT_EQ(BytesOf(out), expected);
  // r is reduced at most once per step: 2.0 sends +0.5 and keeps 1.5.
  EXPECT_EQ(residual[15], 1.5f);
  EXPECT_EQ(residual[0], 0.7f - 0.5f);
  EXPECT_EQ(residual[16], -0.6f + 0.5f);
  // Code 01 is not produced but decodes to 0 like 00.
  const uint8_t with_01[4] = {0x40, 0, 0, 0};
  float word;
  std::memcpy(&word, with_01, 4);
  std::vector<float> decoded(2, 9.0f);
  gc.DequantizeRaw(&word, decoded.data(), 2);
  EXPECT_EQ(decoded, (std::vector<float>{0.0f, 0.0f}));
}

TEST(GradientCompressionRaw, OneBitLayoutByHand) {
  const GradientCompression gc = Make("1bit", "0");
  std::vector<float> grad(33, -0.25f);
  grad[0] = 0.25f, grad[7] = 0.25f, grad[8] = 0.25f, grad[31] = 0.25f, grad[32] = 0.25f;
  std::vector<float> residual(33, 0.0f), out(2, 0.0f);
  gc.QuantizeRaw(grad.data(), residual.data(), out.data(), 33);
  const std::vector<uint8_t> expected = {0x81, 0x80, 0x00, 0x01, 0x80, 0x00, 0x00, 0x00};
  EXPECT_EQ(BytesOf(out), expected);
  EXPECT_EQ(residual[0], 0.25f - 1.0f);
  EXPECT_EQ(residual[1], -0.25f + 1.0f);
  std::vector<float> decoded(33);
  gc.DequantizeRaw(out.data(), decoded.data(), 33);
  EXPECT_EQ(decoded[0], 1.0f);
  EXPECT_EQ(decoded[1], -1.0f);
  EXPECT_EQ(decoded[32], 1.0f);
}

// The residual carry sequences of MXNet's kvstore tests (2bit, t = 0.5), on a size that is
// not a multiple of 16.
TEST(GradientCompressionRaw, TwoBitResidualCarry) {
  const GradientCompression gc = Make("2bit", "0.5");
  const int64_t n = 37;
  std::vector<float> residual(n, 0.0f), out(gc.CompressedSize(n)), decoded(n);
  auto push = [&](float g) {
    const std::vector<float> grad(n, g);
    gc.QuantizeRaw(grad.data(), residual.data(), out.data(), n);
    gc.DequantizeRaw(out.data(), decoded.data(), n);
  };
  auto expect_all = [&](float value, float carry) {
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(decoded[i], value) << i;
      ASSERT_EQ(residual[i], carry) << i;
    }
  };
  push(0.4f);
  expect_all(0.0f, 0.4f);
  push(0.1f);
  expect_all(0.5f, 0.0f);
  push(0.2f);
  expect_all(0.0f, 0.2f);
  push(0.3f);
  expect_all(0.5f, 0.0f);
  for (int k = 0; k < 4; ++k) {
    push(-0.5f);
    expect_all(-0.5f, 0.0f);
  }
  // Random +-0.6 pushes: +0.6 from r = 0 sends +0.5 and keeps 0.1, and so on.
  std::fill(residual.begin(), residual.end(), 0.0f);
  std::mt19937 rng(7);
  Reference ref = MakeReference(gc, n);
  for (int step = 0; step < 20; ++step) {
    std::vector<float> grad(n);
    for (float& v : grad) v = (rng() & 1) ? 0.6f : -0.6f;
    ReferenceStep(&ref, grad);
    gc.QuantizeRaw(grad.data(), residual.data(), out.data(), n);
    gc.DequantizeRaw(out.data(), decoded.data(), n);
    ASSERT_TRUE(SameBits(residual, ref.residual)) << step;
    ASSERT_TRUE(SameBits(decoded, ref.decoded)) << step;
    for (float v : decoded) ASSERT_TRUE(v == 0.5f || v == -0.5f || v == 0.0f);
  }
}

TEST(GradientCompressionRaw, TwoBitMatchesReference) {
  for (const char* t : {"0.5", "0.05", "1.5"}) {
    const GradientCompression gc = Make("2bit", t);
    for (int64_t n : {1, 2, 15, 16, 17, 31, 32, 33, 63, 1000, 4099}) {
      SCOPED_TRACE(std::string("t=") + t + " n=" + std::to_string(n));
      CheckRawMatchesReference(gc, RandomSteps(n, 6, -1.0f, 1.0f, static_cast<unsigned>(n)));
    }
  }
}

TEST(GradientCompressionRaw, OneBitMatchesReference) {
  for (const char* t : {"0", "0.3", "-0.4", "2"}) {
    const GradientCompression gc = Make("1bit", t);
    for (int64_t n : {1, 7, 8, 9, 31, 32, 33, 65, 1000, 4099}) {
      SCOPED_TRACE(std::string("t=") + t + " n=" + std::to_string(n));
      CheckRawMatchesReference(gc, RandomSteps(n, 6, -1.5f, 1.5f, static_cast<unsigned>(n) + 1));
    }
  }
}

// Large enough for the threaded loop; blocks are independent, so it must still match.
TEST(GradientCompressionRaw, LargeMatchesReference) {
  const int64_t n = (int64_t{1} << 20) + 21;
  CheckRawMatchesReference(Make("2bit", "0.5"), RandomSteps(n, 2, -1.0f, 1.0f, 11));
  CheckRawMatchesReference(Make("1bit", "0"), RandomSteps(n, 2, -1.0f, 1.0f, 12));
}

TEST(GradientCompressionRaw, EmptyAndUnset) {
  const GradientCompression gc = Make("2bit", "0.5");
  gc.QuantizeRaw(nullptr, nullptr, nullptr, 0);
  gc.DequantizeRaw(nullptr, nullptr, 0);
  GradientCompression none;
  float g = 1, r = 0, out = 0;
  ExpectError("ValueError", "gradient compression quantize: compression is not set",
              [&] { none.QuantizeRaw(&g, &r, &out, 1); });
  ExpectError("ValueError", "gradient compression dequantize: compression is not set",
              [&] { none.DequantizeRaw(&out, &g, 1); });
}

// ---- engine ops on NDArrays ----

TEST(GradientCompressionEngine, MatchesReferenceAcrossPushes) {
  for (const char* type : {"2bit", "1bit"}) {
    const GradientCompression gc = Make(type, "0.5");
    const int64_t n = 1001;
    const auto steps = RandomSteps(n, 4, -1.0f, 1.0f, 3);
    Reference ref = MakeReference(gc, n);
    NDArray residual = FloatArray(std::vector<float>(n, 0.0f));
    NDArray compressed(TShape({gc.CompressedSize(n)}), Context::CPU(), true);
    NDArray decoded(TShape({n}), Context::CPU(), true);
    for (const auto& grad : steps) {
      ReferenceStep(&ref, grad);
      // No waits between the pushes: the engine orders them through the arrays' vars.
      gc.Quantize(FloatArray(grad), &compressed, &residual, 0);
      gc.Dequantize(compressed, &decoded, 0);
      ASSERT_EQ(BytesOf(ToVector(compressed)), ref.bytes) << type;
      ASSERT_TRUE(SameBits(ToVector(residual), ref.residual)) << type;
      ASSERT_TRUE(SameBits(ToVector(decoded), ref.decoded)) << type;
    }
  }
}

TEST(GradientCompressionEngine, TwoBitCarryAccumulates) {
  const GradientCompression gc = Make("2bit", "0.5");
  const int64_t n = 20;
  NDArray residual = FloatArray(std::vector<float>(n, 0.0f));
  NDArray compressed(TShape({2}), Context::CPU(), true);
  NDArray decoded(TShape({n}), Context::CPU(), true);
  NDArray sum = FloatArray(std::vector<float>(n, 0.0f));
  // Each push is quantized, dequantized and accumulated before the next is read.
  for (float g : {0.4f, 0.1f, 0.2f, 0.3f, -0.5f}) {
    gc.Quantize(FloatArray(std::vector<float>(n, g)), &compressed, &residual, 0);
    gc.Dequantize(compressed, &decoded, 0);
    const std::vector<float> d = ToVector(decoded), s = ToVector(sum);
    std::vector<float> total(n);
    for (int64_t i = 0; i < n; ++i) total[i] = s[i] + d[i];
    sum.SyncCopyFromCPU(total.data(), n);
  }
  // 0.4 + 0.1 -> +0.5, 0.2 + 0.3 -> +0.5, -0.5 -> -0.5.
  EXPECT_EQ(ToVector(sum), std::vector<float>(n, 0.5f));
  EXPECT_EQ(ToVector(residual), std::vector<float>(n, 0.0f));
}

TEST(GradientCompressionEngine, Errors) {
  const GradientCompression gc = Make("2bit", "0.5");
  const int64_t n = 17;
  NDArray grad = FloatArray(std::vector<float>(n, 0.1f));
  NDArray residual = FloatArray(std::vector<float>(n, 0.0f));
  NDArray compressed(TShape({2}), Context::CPU(), true);
  NDArray decoded(TShape({n}), Context::CPU(), true);
  NDArray as_double(TShape({n}), Context::CPU(), true, kFloat64);
  NDArray two_doubles(TShape({2}), Context::CPU(), true, kFloat64);
  NDArray wrong_words(TShape({3}), Context::CPU(), true);
  NDArray wrong_count(TShape({n + 1}), Context::CPU(), true);
  NDArray none;

  ExpectError("TypeError", "gradient compression quantize: the gradient array must be float32, got float64",
              [&] { gc.Quantize(as_double, &compressed, &residual, 0); });
  ExpectError("TypeError", "quantize: the compressed array must be float32, got float64",
              [&] { gc.Quantize(grad, &two_doubles, &residual, 0); });
  ExpectError("TypeError", "quantize: the residual array must be float32, got float64",
              [&] { gc.Quantize(grad, &compressed, &as_double, 0); });
  ExpectError("ValueError", "quantize: residual has 18 values, the gradient 17",
              [&] { gc.Quantize(grad, &compressed, &wrong_count, 0); });
  ExpectError("ValueError", "quantize: compressed array has 3 values, 17 gradient values need 2",
              [&] { gc.Quantize(grad, &wrong_words, &residual, 0); });
  ExpectError("ValueError", "quantize: the gradient array is none",
              [&] { gc.Quantize(none, &compressed, &residual, 0); });
  ExpectError("TypeError", "gradient compression dequantize: the compressed array must be float32, got float64",
              [&] { gc.Dequantize(two_doubles, &decoded, 0); });
  ExpectError("TypeError", "dequantize: the output array must be float32, got float64",
              [&] { gc.Dequantize(compressed, &as_double, 0); });
  ExpectError("ValueError", "dequantize: compressed array has 3 values, 17 output values need 2",
              [&] { gc.Dequantize(wrong_words, &decoded, 0); });
  ExpectError("ValueError", "dequantize: the output array is none", [&] { gc.Dequantize(compressed, &none, 0); });
  const GradientCompression unset;
  ExpectError("ValueError", "gradient compression quantize: compression is not set",
              [&] { unset.Quantize(grad, &compressed, &residual, 0); });
  ExpectError("ValueError", "gradient compression dequantize: compression is not set",
              [&] { unset.Dequantize(compressed, &decoded, 0); });
  // Nothing was pushed by the rejected calls: the residual is unchanged.
  EXPECT_EQ(ToVector(residual), std::vector<float>(n, 0.0f));
}
