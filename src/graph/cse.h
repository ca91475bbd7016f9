/*!
 * \file cse.h
 * \brief Common subexpression elimination (MXNET_ELIMINATE_COMMON_EXPR): nodes with the same
 *        op, attributes and inputs are merged, except ops that write inputs or draw random
 *        numbers. Runs to a fixed point; returns the number of nodes removed.
 */
#ifndef MXNET_GRAPH_CSE_H_
#define MXNET_GRAPH_CSE_H_

#include "graph/symbol.h"

namespace mxnet {
namespace graph {

size_t EliminateCommonExpr(Symbol* s);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_CSE_H_
