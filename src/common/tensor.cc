/*!
 * \file tensor.cc
 * \brief dtype tables and TShape printing/parsing.
 */
#include "mxnet/tensor.h"

#include <cctype>
#include <sstream>

namespace mxnet {
namespace {
struct DTypeInfo {
  int flag;
  const char* name;
  size_t size;
};
// Every flag MXNet defines; kernels exist for the first nine (see DTypeSupported).
constexpr DTypeInfo kDTypes[] = {{kFloat32, "float32", 4}, {kFloat64, "float64", 8}, {kFloat16, "float16", 2},
                                 {kUint8, "uint8", 1},     {kInt32, "int32", 4},     {kInt8, "int8", 1},
                                 {kInt64, "int64", 8},     {kBool, "bool", 1},       {kInt16, "int16", 2},
                                 {kUint16, "uint16", 2},   {kUint32, "uint32", 4},   {kUint64, "uint64", 8},
                                 {kBfloat16, "bfloat16", 2}};
}  // namespace

size_t DTypeSize(int dtype) {
  if (dtype >= 0 && dtype <= kBfloat16) return kDTypes[dtype].size;
  MX_THROW("TypeError") << "unknown dtype flag " << dtype;
  return 0;
}

const char* DTypeName(int dtype) {
  if (dtype >= 0 && dtype <= kBfloat16) return kDTypes[dtype].name;
  MX_THROW("TypeError") << "unknown dtype flag " << dtype;
  return "";
}

int DTypeFromName(const std::string& name) {
  for (const auto& d : kDTypes)
    if (name == d.name) return d.flag;
  return kUnknownType;
}

bool DTypeSupported(int dtype) {
  return (dtype >= kFloat32 && dtype <= kBool) || dtype == kBfloat16;
}

std::string TShape::ToString() const {
  if (ndim_ < 0) return "None";
  std::ostringstream os;
  os << '(';
  for (int i = 0; i < ndim_; ++i) {
    if (i) os << ", ";
    if ((*this)[i] < 0) os << "None"; else os << (*this)[i];
  }
  if (ndim_ == 1) os << ',';
  os << ')';
  return os.str();
}

TShape TShape::Parse(const std::string& text) {
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip();
  if (text.compare(i, 4, "None") == 0) return TShape();
  char close = 0;
  if (i < text.size() && (text[i] == '(' || text[i] == '[')) {
    close = text[i] == '(' ? ')' : ']';
    ++i;
  }
  std::vector<dim_t> dims;
  for (;;) {
    skip();
    if (i >= text.size()) break;
    if (close && text[i] == close) {
      ++i;
      close = 0;
      break;
    }
    if (text.compare(i, 4, "None") == 0) {
      dims.push_back(-1);
      i += 4;
    } else {
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(text.substr(i), &used);
      } catch (const std::exception&) {
        used = 0;
      }
      // "2L" is how Python 2 printed longs; still found in old saved JSON.
      MX_CHECK_KIND(used > 0, "ValueError") << "invalid shape '" << text << "'";
      dims.push_back(v);
      i += used;
      if (i < text.size() && (text[i] == 'L' || text[i] == 'l')) ++i;
    }
    skip();
    if (i < text.size() && text[i] == ',') ++i;
  }
  skip();
  MX_CHECK_KIND(close == 0 && i == text.size(), "ValueError") << "invalid shape '" << text << "'";
  return TShape(dims);
}

}  // namespace mxnet
