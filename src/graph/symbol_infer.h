/*!
 * \file symbol_infer.h
 * \brief Shape and dtype inference on a whole symbol from named known inputs (variables'
 *        __shape__ / __dtype__ attributes are defaults that explicit values override).
 */
#ifndef MXNET_GRAPH_SYMBOL_INFER_H_
#define MXNET_GRAPH_SYMBOL_INFER_H_

#include <map>
#include <string>
#include <vector>

#include "graph/symbol.h"

namespace mxnet {
namespace graph {

template <typename T>
struct SymbolInference {
  std::vector<T> args, outputs, aux;  // list_arguments, list_outputs, list_auxiliary_states
  bool complete{false};
};

/*! \brief Names must be inputs of s (ValueError naming the unknown one otherwise). */
SymbolInference<TShape> InferSymbolShapes(const Symbol& s, const std::map<std::string, TShape>& known);
SymbolInference<int> InferSymbolTypes(const Symbol& s, const std::map<std::string, int>& known);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_SYMBOL_INFER_H_
