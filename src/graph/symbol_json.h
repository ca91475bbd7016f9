/*!
 * \file symbol_json.h
 * \brief Symbol <-> MXNet 1.x symbol JSON (formats.md (b)), byte for byte as MXNet writes it;
 *        reads 0.8-era files too. A malformed file is an error naming the node and field.
 */
#ifndef MXNET_GRAPH_SYMBOL_JSON_H_
#define MXNET_GRAPH_SYMBOL_JSON_H_

#include <string>

#include "graph/symbol.h"

namespace mxnet {
namespace graph {

/*! \brief The version written to attrs.mxnet_version (1.9.1, the format we write). */
constexpr int kJsonVersion = 10901;

std::string SaveJson(const Symbol& s);
Symbol LoadJson(const std::string& text);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_SYMBOL_JSON_H_
