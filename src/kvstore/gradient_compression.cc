/*!
 * \file gradient_compression.cc
 * \brief Gradient compression parameters (parsing, sizes, the form sent to other ranks) and the
 *        engine ops that quantize and dequantize NDArrays. The bit loops are in
 *        gradient_compression_loops.cc.
 */
#include "kvstore/gradient_compression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "mxnet/engine.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {
namespace {

std::string ToLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

/*! \brief Whole-string float parse; false on empty text, trailing junk, overflow, inf or NaN. */
bool ParseFiniteFloat(const std::string& raw, float* out) {
  const std::string s = Trim(raw);
  if (s.empty()) return false;
  char* end = nullptr;
  const float v = std::strtof(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

/*! \brief A threshold the type can work with; 2bit divides values into +-t steps, so t > 0. */
void CheckThreshold(CompressionType type, float threshold, const std::string& text) {
  MX_CHECK_KIND(type != CompressionType::kTwoBit || threshold > 0, "ValueError")
      << "Gradient compression threshold must be greater than 0 for 2bit, got " << text;
}

void CheckCompressible(const NDArray& a, const char* role, const char* op) {
  MX_CHECK_KIND(!a.is_none(), "ValueError") << "gradient compression " << op << ": the " << role << " array is none";
  MX_CHECK_KIND(a.dtype() == kFloat32, "TypeError")
      << "gradient compression " << op << ": the " << role << " array must be float32, got " << DTypeName(a.dtype());
  MX_CHECK_KIND(a.ctx().IsHostMemory(), "ValueError")
      << "gradient compression " << op << ": the " << role << " array is on " << a.ctx().ToString()
      << ", which needs a CUDA build";
}

}  // namespace

void GradientCompression::SetParams(const std::vector<std::pair<std::string, std::string>>& kwargs) {
  // Parse into locals so a rejected call leaves the current settings untouched.
  CompressionType type = CompressionType::kNone;
  float threshold = 0.5f;
  std::string threshold_text = "0.5";
  bool has_type = false;
  for (const auto& kv : kwargs) {
    if (kv.first == "type") {
      const std::string name = ToLower(Trim(kv.second));
      if (name == "2bit") {
        type = CompressionType::kTwoBit;
      } else if (name == "1bit") {
        type = CompressionType::kOneBit;
      } else {
        MX_THROW("ValueError") << "Unknown type for gradient compression: " << kv.second << " (use 2bit or 1bit)";
      }
      has_type = true;
    } else if (kv.first == "threshold") {
      MX_CHECK_KIND(ParseFiniteFloat(kv.second, &threshold), "ValueError")
          << "Gradient compression threshold must be a finite number, got " << kv.second;
      threshold_text = kv.second;
    } else {
      MX_THROW("ValueError") << "Unknown parameter for gradient compression: " << kv.first
                             << " (accepted: type, threshold)";
    }
  }
  MX_CHECK_KIND(has_type, "ValueError") << "Gradient compression needs a type (2bit or 1bit)";
  CheckThreshold(type, threshold, threshold_text);
  type_ = type;
  threshold_ = threshold;
}

int GradientCompression::CompressionFactor() const {
  switch (type_) {
    case CompressionType::kTwoBit:
      return 16;
    case CompressionType::kOneBit:
      return 32;
    default:
      MX_THROW("ValueError") << "Gradient compression is not set";
      return 1;
  }
}

int64_t GradientCompression::CompressedSize(int64_t n) const {
  const int64_t factor = CompressionFactor();
  return (n + factor - 1) / factor;
}

std::string GradientCompression::EncodeParams() const {
  std::ostringstream os;
  // 9 significant digits bring every float back exactly.
  os << static_cast<int>(type_) << ',' << std::setprecision(9) << threshold_;
  return os.str();
}

void GradientCompression::DecodeParams(const std::string& s) {
  const size_t comma = s.find(',');
  MX_CHECK_KIND(comma != std::string::npos, "ValueError")
      << "Malformed gradient compression parameters '" << s << "' (expected \"<type>,<threshold>\")";
  const std::string type_text = Trim(s.substr(0, comma));
  const std::string threshold_text = s.substr(comma + 1);
  CompressionType type = CompressionType::kNone;
  if (type_text == "0") {
    type = CompressionType::kNone;
  } else if (type_text == "1") {
    type = CompressionType::kTwoBit;
  } else if (type_text == "2") {
    type = CompressionType::kOneBit;
  } else {
    MX_THROW("ValueError") << "Malformed gradient compression parameters '" << s << "': unknown type " << type_text;
  }
  float threshold = 0;
  MX_CHECK_KIND(ParseFiniteFloat(threshold_text, &threshold), "ValueError")
      << "Malformed gradient compression parameters '" << s << "': bad threshold " << threshold_text;
  CheckThreshold(type, threshold, threshold_text);
  type_ = type;
  threshold_ = threshold;
}

void GradientCompression::Quantize(const NDArray& from, NDArray* to, NDArray* residual, int priority) const {
  const char* op = "quantize";
  MX_CHECK_KIND(active(), "ValueError") << "gradient compression " << op << ": compression is not set";
  CheckCompressible(from, "gradient", op);
  CheckCompressible(*to, "compressed", op);
  CheckCompressible(*residual, "residual", op);
  const int64_t n = from.Size();
  MX_CHECK_KIND(residual->Size() == n, "ValueError")
      << "gradient compression " << op << ": residual has " << residual->Size() << " values, the gradient " << n;
  MX_CHECK_KIND(to->Size() == CompressedSize(n), "ValueError")
      << "gradient compression " << op << ": compressed array has " << to->Size() << " values, " << n
      << " gradient values need " << CompressedSize(n);
  from.CheckAndAlloc();
  to->CheckAndAlloc();
  residual->CheckAndAlloc();
  to->BumpVersion();
  residual->BumpVersion();
  // Copies: the op runs later, and a SetParams meanwhile must not change what it does.
  const GradientCompression params = *this;
  const NDArray in = from.Detach(), out = to->Detach(), res = residual->Detach();
  Engine::Get()->PushSync(
      [params, in, out, res, n](RunContext) {
        params.QuantizeRaw(in.data_for_read().dptr<float>(), res.data().dptr<float>(), out.data().dptr<float>(), n);
      },
      out.ctx(), {in.var()}, {out.var(), res.var()}, FnProperty::kNormal, priority, "GradientCompressionQuantize");
}

void GradientCompression::Dequantize(const NDArray& from, NDArray* to, int priority) const {
  const char* op = "dequantize";
  MX_CHECK_KIND(active(), "ValueError") << "gradient compression " << op << ": compression is not set";
  CheckCompressible(from, "compressed", op);
  CheckCompressible(*to, "output", op);
  const int64_t n = to->Size();
  MX_CHECK_KIND(from.Size() == CompressedSize(n), "ValueError")
      << "gradient compression " << op << ": compressed array has " << from.Size() << " values, " << n
      << " output values need " << CompressedSize(n);
  from.CheckAndAlloc();
  to->CheckAndAlloc();
  to->BumpVersion();
  const GradientCompression params = *this;
  const NDArray in = from.Detach(), out = to->Detach();
  Engine::Get()->PushSync(
      [params, in, out, n](RunContext) {
        params.DequantizeRaw(in.data_for_read().dptr<float>(), out.data().dptr<float>(), n);
      },
      out.ctx(), {in.var()}, {out.var()}, FnProperty::kNormal, priority, "GradientCompressionDequantize");
}

}  // namespace kvstore
}  // namespace mxnet
