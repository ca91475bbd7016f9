/*!
 * \file float_list.h
 * \brief FloatList: an operator parameter holding a tuple of floats, written "0.5",
 *        "(0.5, 0.4)", "[0.5, 0.4]" or "()" (empty).
 */
#ifndef MXNET_OPERATOR_IMAGE_FLOAT_LIST_H_
#define MXNET_OPERATOR_IMAGE_FLOAT_LIST_H_

#include <dmlc/parameter.h>

#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace mxnet {
namespace op {
namespace image {

struct FloatList {
  std::vector<float> v;
};

inline std::istream& operator>>(std::istream& is, FloatList& f) {
  std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  bool bracketed = false;
  for (char& ch : text) {
    if (ch == '(' || ch == ')' || ch == '[' || ch == ']') bracketed = true;
    if (ch == '(' || ch == ')' || ch == '[' || ch == ']' || ch == ',') ch = ' ';
  }
  std::istringstream ss(text);
  f.v.clear();
  float x;
  while (ss >> x) f.v.push_back(x);
  if (!ss.eof()) is.setstate(std::ios::failbit);
  if (f.v.empty() && !bracketed) is.setstate(std::ios::failbit);  // "" is no value; "()" is empty
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const FloatList& f) {
  os << '(';
  for (size_t i = 0; i < f.v.size(); ++i) os << (i ? ", " : "") << f.v[i];
  return os << (f.v.size() == 1 ? ",)" : ")");
}

}  // namespace image
}  // namespace op
}  // namespace mxnet

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxnet::op::image::FloatList, "float or tuple of floats");
}

#endif  // MXNET_OPERATOR_IMAGE_FLOAT_LIST_H_
