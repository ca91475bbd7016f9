/*!
 * \file json_text.h
 * \brief The two pieces of JSON writing the profiler needs: quoted strings and numbers.
 */
#ifndef MXNET_PROFILER_JSON_TEXT_H_
#define MXNET_PROFILER_JSON_TEXT_H_

#include <charconv>
#include <cstdio>
#include <string>

namespace mxnet {
namespace profiler {

/*! \brief text as a quoted JSON string (quotes, backslashes and control characters escaped). */
inline std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

/*! \brief Appends text as a quoted JSON string; plain text (the common case) is copied at once. */
inline void AppendJsonString(std::string* out, const char* text) {
  const char* p = text;
  while (*p && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
  if (*p == '\0') {
    out->push_back('"');
    out->append(text, p - text);
    out->push_back('"');
  } else {
    out->append(JsonString(text));
  }
}

/*! \brief Appends an integer in decimal without a temporary string. */
template <typename Int>
inline void AppendInt(std::string* out, Int v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr - buf);
}

/*! \brief A finite number with 4 decimals, as the statistics tables show them. */
inline std::string JsonNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4f", v);
  return buf;
}

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_JSON_TEXT_H_
