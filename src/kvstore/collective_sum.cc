#include "kvstore/collective_sum.h"

#include <cstdint>
#include <type_traits>

#include "mxnet/error.h"
#include "mxnet/tensor.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace kvstore {

namespace {

// Elements per block: the accumulators of one block stay in L1 while every input streams
// through it, and the inner loops vectorise.
constexpr size_t kBlock = 1024;

// Integers add as unsigned, so overflow wraps instead of being undefined.
template <typename T, bool = std::is_integral_v<T>>
struct Accumulator {
  using type = T;
};
template <typename T>
struct Accumulator<T, true> {
  using type = std::make_unsigned_t<T>;
};

// Accumulator type and conversions per stored type.
template <typename T>
struct SumTraits {
  using Acc = typename Accumulator<T>::type;
  static Acc Load(T v) { return static_cast<Acc>(v); }
  static T Store(Acc v) { return static_cast<T>(v); }
};
template <>
struct SumTraits<half_t> {
  using Acc = float;
  static float Load(half_t v) { return static_cast<float>(v); }
  static half_t Store(float v) { return half_t(v); }
};
template <>
struct SumTraits<bf16_t> {
  using Acc = float;
  static float Load(bf16_t v) { return static_cast<float>(v); }
  static bf16_t Store(float v) { return bf16_t(v); }
};

template <typename T>
void Sum(const void* const* inputs, int n, void* out_raw, size_t count) {
  using Traits = SumTraits<T>;
  using Acc = typename Traits::Acc;
  T* out = static_cast<T*>(out_raw);
  Acc acc[kBlock];
  for (size_t start = 0; start < count; start += kBlock) {
    const size_t len = count - start < kBlock ? count - start : kBlock;
    const T* first = static_cast<const T*>(inputs[0]) + start;
    // Each element's sum is independent of its neighbours', so vectorising keeps the order.
    MXNET_SIMD
    for (size_t i = 0; i < len; ++i) acc[i] = Traits::Load(first[i]);
    for (int r = 1; r < n; ++r) {
      const T* in = static_cast<const T*>(inputs[r]) + start;
      MXNET_SIMD
      for (size_t i = 0; i < len; ++i) acc[i] += Traits::Load(in[i]);
    }
    MXNET_SIMD
    for (size_t i = 0; i < len; ++i) out[start + i] = Traits::Store(acc[i]);
  }
}

}  // namespace

bool SummableDType(int dtype) {
  switch (dtype) {
    case kFloat32:
    case kFloat64:
    case kFloat16:
    case kBfloat16:
    case kUint8:
    case kInt8:
    case kInt32:
    case kInt64:
      return true;
    default:
      return false;
  }
}

void SumInRankOrder(int dtype, const void* const* inputs, int num_inputs, void* out, size_t count) {
  switch (dtype) {
    case kFloat32:
      return Sum<float>(inputs, num_inputs, out, count);
    case kFloat64:
      return Sum<double>(inputs, num_inputs, out, count);
    case kFloat16:
      return Sum<half_t>(inputs, num_inputs, out, count);
    case kBfloat16:
      return Sum<bf16_t>(inputs, num_inputs, out, count);
    case kUint8:
      return Sum<uint8_t>(inputs, num_inputs, out, count);
    case kInt8:
      return Sum<int8_t>(inputs, num_inputs, out, count);
    case kInt32:
      return Sum<int32_t>(inputs, num_inputs, out, count);
    case kInt64:
      return Sum<int64_t>(inputs, num_inputs, out, count);
    default:
      MX_THROW("TypeError") << "the distributed allreduce does not sum " << DTypeName(dtype);
  }
}

}  // namespace kvstore
}  // namespace mxnet
