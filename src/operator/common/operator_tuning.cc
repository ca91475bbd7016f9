/*!
 * \file operator_tuning.cc
 * \brief MXNET_USE_OPERATOR_TUNING: "0" off, "1" on, or the dtypes to tune (parsed once).
 */
#include <chrono>
#include <sstream>

#include "mxnet/tensor.h"
#include "operator/common/parallel.h"

namespace mxnet {
namespace op {

TuningSetting::TuningSetting(const std::string& v) {
  if (v == "0" || v == "false" || v == "False") {
    none = true;
    all = false;
    return;
  }
  if (v.empty() || v == "1" || v == "true" || v == "True") return;
  all = false;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const int t = DTypeFromName(item);
    if (t >= 0) dtypes.insert(t);  // a name that is no dtype tunes nothing
  }
}

bool TuningSetting::Enabled(int dtype) const {
  if (none) return false;
  if (all || dtype < 0) return true;
  return dtypes.count(dtype) > 0;
}

bool TuningEnabledFor(int dtype) {
  // The variable is fixed at process start.
  static const TuningSetting s(env::GetString(env::Var::MXNET_USE_OPERATOR_TUNING));
  return s.Enabled(dtype);
}

int64_t TuningClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace op
}  // namespace mxnet
