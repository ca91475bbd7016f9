/*!
 * \file gradient_compression.h
 * \brief MXNet's 2-bit and 1-bit gradient compression with error-feedback residuals.
 *
 * 2bit (threshold t > 0): per element r += g; r >= t -> code 11 (decodes to +t), r -= t;
 * r <= -t -> code 10 (decodes to -t), r += t; else 00 (0). 16 values per 32-bit word: value j
 * of a block of 16 uses byte j/4 of the word, bits 7-6 / 5-4 / 3-2 / 1-0 for j%4 = 0..3.
 * 1bit (any t): r += g; r > t -> bit 1 (decodes to +1), r -= 1; else bit 0 (-1), r += 1;
 * 32 values per word, value j uses byte j/8, bit 7 - j%8.
 * Only float32 values are compressed.
 */
#ifndef MXNET_KVSTORE_GRADIENT_COMPRESSION_H_
#define MXNET_KVSTORE_GRADIENT_COMPRESSION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {

enum class CompressionType : int { kNone = 0, kTwoBit = 1, kOneBit = 2 };

class GradientCompression {
 public:
  /*!
   * \brief kwargs as given to set_gradient_compression: "type" ("2bit" or "1bit", required),
   *        "threshold" (float; 2bit needs > 0; default 0.5). Throws dmlc::Error naming the bad key/value.
   */
  void SetParams(const std::vector<std::pair<std::string, std::string>>& kwargs);
  CompressionType type() const { return type_; }
  float threshold() const { return threshold_; }
  bool active() const { return type_ != CompressionType::kNone; }
  /*! \brief Values per 32-bit word of the compressed form (16 or 32). */
  int CompressionFactor() const;
  /*! \brief float32 words needed for n original values. */
  int64_t CompressedSize(int64_t n) const;
  /*! \brief "type,threshold" for sending to other ranks; DecodeParams reverses it. */
  std::string EncodeParams() const;
  void DecodeParams(const std::string& s);

  /*! \brief Raw loops (no engine), for the engine functions below and for tests. */
  void QuantizeRaw(const float* grad, float* residual, float* out, int64_t n) const;
  void DequantizeRaw(const float* in, float* out, int64_t n) const;

  /*!
   * \brief Pushes an engine op: reads from (float32, n values), updates residual (float32, n, in
   *        place) and writes to (float32, CompressedSize(n) values).
   */
  void Quantize(const NDArray& from, NDArray* to, NDArray* residual, int priority) const;
  /*! \brief Pushes an engine op: reads from (compressed), writes to (n float32 values). */
  void Dequantize(const NDArray& from, NDArray* to, int priority) const;

 private:
  CompressionType type_{CompressionType::kNone};
  float threshold_{0.5f};
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_GRADIENT_COMPRESSION_H_
