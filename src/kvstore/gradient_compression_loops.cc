/*!
 * \file gradient_compression_loops.cc
 * \brief The bit loops of 2-bit and 1-bit gradient compression. Each output word holds one
 *        block of values and is built from its 4 bytes in memory order, so the compressed form
 *        is the same on every host; blocks are independent, so they run in parallel and the
 *        result does not depend on the thread count.
 */
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kvstore/gradient_compression.h"
#include "mxnet/error.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace kvstore {
namespace {

constexpr int kTwoBitPerWord = 16;
constexpr int kOneBitPerWord = 32;
constexpr uint8_t kTwoBitPositive = 0x3;
constexpr uint8_t kTwoBitNegative = 0x2;

/*! \brief Calls fn(block, first value, values in block) for every block of per_word values. */
template <typename BlockFn>
void ForEachBlock(int64_t n, int per_word, BlockFn fn) {
  const int64_t blocks = (n + per_word - 1) / per_word;
#pragma omp parallel for schedule(static) if (op::UseParallel(n))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * per_word;
    fn(b, first, std::min<int64_t>(per_word, n - first));
  }
}

int TwoBitShift(int64_t j) { return 6 - 2 * static_cast<int>(j % 4); }
int OneBitShift(int64_t j) { return 7 - static_cast<int>(j % 8); }

void QuantizeTwoBit(const float* grad, float* residual, float* out, int64_t n, float t) {
  ForEachBlock(n, kTwoBitPerWord, [&](int64_t b, int64_t first, int64_t count) {
    uint8_t bytes[4] = {0, 0, 0, 0};  // unused trailing codes stay 00
    for (int64_t j = 0; j < count; ++j) {
      float& r = residual[first + j];
      r += grad[first + j];
      uint8_t code = 0;
      if (r >= t) {
        code = kTwoBitPositive;
        r -= t;
      } else if (r <= -t) {
        code = kTwoBitNegative;
        r += t;
      }
      bytes[j / 4] |= static_cast<uint8_t>(code << TwoBitShift(j));
    }
    std::memcpy(out + b, bytes, sizeof(bytes));
  });
}

void DequantizeTwoBit(const float* in, float* out, int64_t n, float t) {
  ForEachBlock(n, kTwoBitPerWord, [&](int64_t b, int64_t first, int64_t count) {
    uint8_t bytes[4];
    std::memcpy(bytes, in + b, sizeof(bytes));
    for (int64_t j = 0; j < count; ++j) {
      const int code = (bytes[j / 4] >> TwoBitShift(j)) & 0x3;
      out[first + j] = code == kTwoBitPositive ? t : code == kTwoBitNegative ? -t : 0.0f;
    }
  });
}

void QuantizeOneBit(const float* grad, float* residual, float* out, int64_t n, float t) {
  ForEachBlock(n, kOneBitPerWord, [&](int64_t b, int64_t first, int64_t count) {
    uint8_t bytes[4] = {0, 0, 0, 0};  // unused trailing bits stay 0
    for (int64_t j = 0; j < count; ++j) {
      float& r = residual[first + j];
      r += grad[first + j];
      if (r > t) {
        bytes[j / 8] |= static_cast<uint8_t>(1u << OneBitShift(j));
        r -= 1.0f;
      } else {
        r += 1.0f;
      }
    }
    std::memcpy(out + b, bytes, sizeof(bytes));
  });
}

void DequantizeOneBit(const float* in, float* out, int64_t n) {
  ForEachBlock(n, kOneBitPerWord, [&](int64_t b, int64_t first, int64_t count) {
    uint8_t bytes[4];
    std::memcpy(bytes, in + b, sizeof(bytes));
    for (int64_t j = 0; j < count; ++j) out[first + j] = (bytes[j / 8] >> OneBitShift(j)) & 1 ? 1.0f : -1.0f;
  });
}

}  // namespace

void GradientCompression::QuantizeRaw(const float* grad, float* residual, float* out, int64_t n) const {
  switch (type_) {
    case CompressionType::kTwoBit:
      QuantizeTwoBit(grad, residual, out, n, threshold_);
      break;
    case CompressionType::kOneBit:
      QuantizeOneBit(grad, residual, out, n, threshold_);
      break;
    default:
      MX_THROW("ValueError") << "gradient compression quantize: compression is not set";
  }
}

void GradientCompression::DequantizeRaw(const float* in, float* out, int64_t n) const {
  switch (type_) {
    case CompressionType::kTwoBit:
      DequantizeTwoBit(in, out, n, threshold_);
      break;
    case CompressionType::kOneBit:
      DequantizeOneBit(in, out, n);
      break;
    default:
      MX_THROW("ValueError") << "gradient compression dequantize: compression is not set";
  }
}

}  // namespace kvstore
}  // namespace mxnet
