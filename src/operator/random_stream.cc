/*!
 * \file random_stream.cc
 * \brief Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"):
 *        counter-based, so element i of a launch is reproducible on any thread.
 */
#include <cmath>

#include "mxnet/op.h"

namespace mxnet {
namespace op {
namespace {
inline void Philox(uint32_t ctr[4], uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * ctr[2];
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ k1;
    ctr[0] = n0;
    ctr[1] = static_cast<uint32_t>(p1);
    ctr[2] = n2;
    ctr[3] = static_cast<uint32_t>(p0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}
}  // namespace

uint32_t RandomStream::Element::NextU32() {
  if (left_ == 0) {
    // Counter: (draw block, launch, element); key: the seed. Distinct elements never share blocks.
    buf_[0] = draw_;
    buf_[1] = launch_;
    buf_[2] = static_cast<uint32_t>(elem_);
    buf_[3] = static_cast<uint32_t>(elem_ >> 32);
    Philox(buf_, static_cast<uint32_t>(key_), static_cast<uint32_t>(key_ >> 32));
    ++draw_;
    left_ = 4;
  }
  return buf_[4 - left_--];
}

double RandomStream::Element::Normal() {
  double u1 = UniformD();
  while (u1 <= 0.0) u1 = UniformD();
  const double u2 = UniformD();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace op
}  // namespace mxnet
