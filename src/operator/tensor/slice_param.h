/*!
 * \file slice_param.h
 * \brief A tuple of optional integers, "(1, None, -2)", as slice's begin/end/step take them,
 *        parsed through dmlc::Parameter like the other field types.
 */
#ifndef MXNET_OPERATOR_TENSOR_SLICE_PARAM_H_
#define MXNET_OPERATOR_TENSOR_SLICE_PARAM_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace mxnet {
namespace op {

struct OptionalIntTuple {
  std::vector<dmlc::optional<int64_t>> v;
  size_t size() const { return v.size(); }
};

/*! \brief Reads "(1, None)", "[1,2]", "3", "()" (consumes the whole stream; failbit on junk). */
inline std::istream& operator>>(std::istream& is, OptionalIntTuple& t) {
  std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  t.v.clear();
  std::string tok;
  auto flush = [&](bool last) {
    size_t b = tok.find_first_not_of(" \t\n"), e = tok.find_last_not_of(" \t\n");
    const std::string s = b == std::string::npos ? "" : tok.substr(b, e - b + 1);
    tok.clear();
    if (s.empty()) return last;  // "()" or a trailing comma
    if (s == "None") {
      t.v.emplace_back();
      return true;
    }
    size_t used = 0;
    try {
      const long long x = std::stoll(s, &used);  // NOLINT(runtime/int)
      if (used != s.size()) return false;
      t.v.emplace_back(static_cast<int64_t>(x));
    } catch (...) {
      return false;
    }
    return true;
  };
  bool ok = true;
  for (char c : text) {
    if (c == '(' || c == ')' || c == '[' || c == ']') continue;
    if (c == ',') {
      ok = ok && flush(false);
    } else {
      tok += c;
    }
  }
  ok = ok && flush(true);
  if (!ok) is.setstate(std::ios::failbit);
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const OptionalIntTuple& t) {
  os << '(';
  for (size_t i = 0; i < t.v.size(); ++i) {
    if (i) os << ", ";
    if (t.v[i].has_value())
      os << t.v[i].value();
    else
      os << "None";
  }
  if (t.v.size() == 1) os << ',';
  return os << ')';
}

}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::OptionalIntTuple, "Shape(tuple)");
}  // namespace dmlc

#endif  // MXNET_OPERATOR_TENSOR_SLICE_PARAM_H_
