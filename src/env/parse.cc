// Parsing and validation of one variable's text against its row in the table.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace env {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::string();
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream is(s);
  while (std::getline(is, item, sep)) out.push_back(item);
  return out;
}

bool ParseInt(const std::string& raw, int64_t* out) {
  std::string s = Trim(raw);
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == 0 && *end == '\0') {
    *out = v;
    return true;
  }
  // Integral values written in scientific notation, e.g. 1e6, as the docs write them.
  double d = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e18) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

bool ParseFloat(const std::string& raw, double* out) {
  std::string s = Trim(raw);
  if (s.empty()) return false;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

bool ParseBool(const std::string& raw, bool* out) {
  std::string s = Lower(Trim(raw));
  if (s == "1" || s == "true" || s == "yes" || s == "on") {
    *out = true;
  } else if (s == "0" || s == "false" || s == "no" || s == "off") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

/*! \brief Splits "min:max" into optional bounds. */
void RangeBounds(const Spec& spec, bool* has_lo, double* lo, bool* has_hi, double* hi) {
  *has_lo = *has_hi = false;
  std::string r = spec.allowed ? spec.allowed : "";
  size_t colon = r.find(':');
  if (colon == std::string::npos) return;
  std::string a = Trim(r.substr(0, colon)), b = Trim(r.substr(colon + 1));
  if (!a.empty()) *has_lo = ParseFloat(a, lo);
  if (!b.empty()) *has_hi = ParseFloat(b, hi);
}

bool InRange(const Spec& spec, double v) {
  bool has_lo, has_hi;
  double lo = 0, hi = 0;
  RangeBounds(spec, &has_lo, &lo, &has_hi, &hi);
  return (!has_lo || v >= lo) && (!has_hi || v <= hi);
}

std::string FormatBound(double v, bool integral) {
  std::ostringstream os;
  if (integral) {
    os << static_cast<int64_t>(v);
  } else {
    os << v;
  }
  return os.str();
}

}  // namespace

std::string DescribeAllowed(const Spec& spec) {
  bool integral = spec.type == Type::kInt || spec.type == Type::kIntList;
  const char* noun = spec.type == Type::kInt       ? "an integer"
                     : spec.type == Type::kIntList ? "a comma-separated list of integers"
                                                   : "a number";
  switch (spec.type) {
    case Type::kBool:
      return "a boolean (1/0, true/false, yes/no, on/off)";
    case Type::kString:
      return "any text";
    case Type::kEnum: {
      std::string out = "one of ";
      auto choices = Split(spec.allowed, '|');
      for (size_t i = 0; i < choices.size(); ++i) out += (i ? ", " : "") + choices[i];
      return out;
    }
    case Type::kInt:
    case Type::kFloat:
    case Type::kIntList: {
      bool has_lo, has_hi;
      double lo = 0, hi = 0;
      RangeBounds(spec, &has_lo, &lo, &has_hi, &hi);
      std::string out = noun;
      if (spec.type == Type::kIntList) out += ", each";
      if (has_lo && has_hi) return out + " in [" + FormatBound(lo, integral) + ", " + FormatBound(hi, integral) + "]";
      if (has_lo) return out + " >= " + FormatBound(lo, integral);
      if (has_hi) return out + " <= " + FormatBound(hi, integral);
      return out;
    }
  }
  return "";
}

Parsed Parse(const Spec& spec, const std::string& name_as_set, const std::string& value) {
  Parsed p;
  auto fail = [&]() {
    MX_THROW("ValueError") << "Invalid value '" << value << "' for environment variable " << name_as_set
                           << ": expected " << DescribeAllowed(spec) << ".";
  };
  switch (spec.type) {
    case Type::kInt:
      if (!ParseInt(value, &p.i) || !InRange(spec, static_cast<double>(p.i))) fail();
      p.f = static_cast<double>(p.i);
      p.text = std::to_string(p.i);
      break;
    case Type::kFloat: {
      if (!ParseFloat(value, &p.f) || !InRange(spec, p.f)) fail();
      p.text = Trim(value);
      break;
    }
    case Type::kBool: {
      bool b = false;
      if (!ParseBool(value, &b)) fail();
      p.i = b ? 1 : 0;
      p.f = static_cast<double>(p.i);
      p.text = b ? "1" : "0";
      break;
    }
    case Type::kEnum: {
      std::string want = Lower(Trim(value));
      bool found = false;
      for (const std::string& choice : Split(spec.allowed, '|')) {
        if (Lower(choice) == want) {
          p.text = choice;  // canonical spelling
          found = true;
          break;
        }
      }
      if (!found) fail();
      break;
    }
    case Type::kString:
      p.text = value;
      break;
    case Type::kIntList: {
      std::string t = Trim(value);
      // Accept the Python spellings "(1, 2)" and "[1, 2]" as well as "1,2".
      if (!t.empty() && (t.front() == '(' || t.front() == '[')) t = t.substr(1);
      if (!t.empty() && (t.back() == ')' || t.back() == ']')) t.pop_back();
      std::ostringstream norm;
      for (const std::string& item : Split(t, ',')) {
        if (Trim(item).empty()) continue;
        int64_t v = 0;
        if (!ParseInt(item, &v) || !InRange(spec, static_cast<double>(v))) fail();
        norm << (p.list.empty() ? "" : ",") << v;
        p.list.push_back(v);
      }
      p.text = norm.str();
      break;
    }
  }
  return p;
}

std::string ClosestName(const std::string& unknown) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      }
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (int v = 0; v < static_cast<int>(Var::kCount); ++v) {
    const char* name = GetSpec(static_cast<Var>(v)).name;
    size_t d = distance(unknown, name);
    if (d < best_d) {
      best_d = d;
      best = name;
    }
  }
  return best;
}

}  // namespace env
}  // namespace mxnet
