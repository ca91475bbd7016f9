/*!
 * \file json_value.cc
 * \brief Recursive-descent JSON parser with a depth bound and positioned errors.
 */
#include "graph/json_value.h"

#include <cmath>
#include <cstdlib>

#include "mxnet/error.h"

namespace mxnet {
namespace graph {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  JsonValue Document() {
    JsonValue v = Value(0);
    SkipSpace();
    if (pos_ != t_.size()) Fail("unexpected text after the document");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    MX_THROW("ValueError") << "symbol JSON: " << what << " at offset " << pos_ << " (of " << t_.size() << " bytes)";
    std::abort();  // unreachable: the thrower throws
  }
  void SkipSpace() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\n' || t_[pos_] == '\r' || t_[pos_] == '\t')) ++pos_;
  }
  char Peek() {
    SkipSpace();
    if (pos_ >= t_.size()) Fail("unexpected end of input (truncated file?)");
    return t_[pos_];
  }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool Literal(const char* word) {
    const std::string w(word);
    if (t_.compare(pos_, w.size(), w) == 0) {
      pos_ += w.size();
      return true;
    }
    return false;
  }

  JsonValue Value(int depth) {
    if (depth > kMaxDepth) Fail("nesting deeper than 64 levels");
    JsonValue v;
    const char c = Peek();
    if (c == '{') {
      v.kind = JsonValue::kObject;
      ++pos_;
      if (Peek() == '}') {
        ++pos_;
        return v;
      }
      for (;;) {
        if (Peek() != '"') Fail("expected a string key");
        std::string key = String();
        Expect(':');
        v.members.emplace_back(std::move(key), Value(depth + 1));
        const char d = Peek();
        ++pos_;
        if (d == '}') break;
        if (d != ',') Fail("expected ',' or '}' in an object");
      }
    } else if (c == '[') {
      v.kind = JsonValue::kArray;
      ++pos_;
      if (Peek() == ']') {
        ++pos_;
        return v;
      }
      for (;;) {
        v.items.push_back(Value(depth + 1));
        const char d = Peek();
        ++pos_;
        if (d == ']') break;
        if (d != ',') Fail("expected ',' or ']' in an array");
      }
    } else if (c == '"') {
      v.kind = JsonValue::kString;
      v.str = String();
    } else if (Literal("true")) {
      v.kind = JsonValue::kBool;
      v.boolean = true;
    } else if (Literal("false")) {
      v.kind = JsonValue::kBool;
    } else if (Literal("null")) {
      v.kind = JsonValue::kNull;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::kNumber;
      const char* begin = t_.c_str() + pos_;
      char* end = nullptr;
      v.number = std::strtod(begin, &end);
      if (end == begin || !std::isfinite(v.number)) Fail("malformed number");
      pos_ += end - begin;
    } else {
      Fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }

  std::string String() {
    ++pos_;  // opening quote
    std::string s;
    for (;;) {
      if (pos_ >= t_.size()) Fail("unterminated string (truncated file?)");
      const char c = t_[pos_++];
      if (c == '"') return s;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= t_.size()) Fail("unterminated escape");
      const char e = t_[pos_++];
      switch (e) {
        case '"': s += '"'; break;
        case '\\': s += '\\'; break;
        case '/': s += '/'; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          if (pos_ + 4 > t_.size()) Fail("truncated \\u escape");
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = t_[pos_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= h - '0';
            else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
            else Fail("bad \\u escape");
          }
          if (cp < 0x80) {
            s += static_cast<char>(cp);
          } else if (cp < 0x800) {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            s += static_cast<char>(0xE0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: Fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  const std::string& t_;
  size_t pos_{0};
};

}  // namespace

const JsonValue* JsonValue::Find(const std::string& key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

const char* JsonValue::KindName() const {
  switch (kind) {
    case kNull: return "null";
    case kBool: return "a boolean";
    case kNumber: return "a number";
    case kString: return "a string";
    case kArray: return "an array";
    default: return "an object";
  }
}

JsonValue ParseJson(const std::string& text) { return Parser(text).Document(); }

std::string JsonQuote(const std::string& s) {
  std::string r = "\"";
  for (char c : s) {
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\r': r += "\\r"; break;
      case '\t': r += "\\t"; break;
      default: r += c;
    }
  }
  return r + "\"";
}

}  // namespace graph
}  // namespace mxnet
