/*!
 * \file param_text.h
 * \brief Parameter values quoted back in error messages as the user wrote them.
 */
#ifndef MXNET_OPERATOR_COMMON_PARAM_TEXT_H_
#define MXNET_OPERATOR_COMMON_PARAM_TEXT_H_

#include <sstream>
#include <string>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

/*!
 * \brief A shape-like parameter (shape, reps, pad_width) as a Python tuple with its literal
 *        values: "(-1, 2)". TShape's own printing shows a negative dim as None (an unknown
 *        dim), which misquotes parameters where -1 is a value the user gave.
 */
inline std::string ParamTuple(const TShape& s) {
  if (s.ndim() < 0) return "None";
  std::ostringstream os;
  os << '(';
  for (int i = 0; i < s.ndim(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.ndim() == 1 ? ",)" : ")");
  return os.str();
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_COMMON_PARAM_TEXT_H_
