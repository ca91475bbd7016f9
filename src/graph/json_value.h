/*!
 * \file json_value.h
 * \brief A small strict JSON reader for symbol files: a parse error or a wrong type says
 *        where, nesting is bounded, nothing is trusted (files may be truncated or hostile).
 */
#ifndef MXNET_GRAPH_JSON_VALUE_H_
#define MXNET_GRAPH_JSON_VALUE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mxnet {
namespace graph {

struct JsonValue {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind{kNull};
  bool boolean{false};
  double number{0};
  std::string str;
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in file order

  const JsonValue* Find(const std::string& key) const;
  const char* KindName() const;
};

/*! \brief Parses text; throws ValueError "symbol JSON: <what> at offset N". */
JsonValue ParseJson(const std::string& text);

/*! \brief JSON string literal with the escapes dmlc's writer uses. */
std::string JsonQuote(const std::string& s);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_JSON_VALUE_H_
