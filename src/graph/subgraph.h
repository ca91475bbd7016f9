/*!
 * \file subgraph.h
 * \brief The CPU subgraph backend: inference rewrites of a dataflow graph into fused ops,
 *        matched on ops (whatever built the graph). Under "ONEDNN", in order:
 *        1. identity: `_copy` and Dropout(mode='training') nodes are dropped;
 *        2. conv: Convolution (2-D) [-> BatchNorm] [-> elemwise/broadcast add] [-> activation]
 *           becomes `_sg_onednn_conv` (BatchNorm folded into the weights at run time);
 *        3. fc: FullyConnected -> activation becomes `_sg_onednn_fully_connected`;
 *        4. bn_relu: BatchNorm -> relu becomes `_contrib_BatchNormWithReLU`.
 *        Each link of a chain must be read by the next link only: an intermediate read by
 *        another node or returned as a graph output ends the chain before it. Fused nodes are
 *        named sg_onednn_<what>_<n>, except one whose output is a graph output, which keeps
 *        the replaced node's name so the output names stay. Environment switches
 *        (MXNET_DISABLE_ONEDNN_*) turn single rewrites off; see docs/env_var.md.
 */
#ifndef MXNET_GRAPH_SUBGRAPH_H_
#define MXNET_GRAPH_SUBGRAPH_H_

#include <string>

#include "graph/symbol.h"

namespace mxnet {
namespace graph {

/*!
 * \brief Rewrites the graph for inference under `backend` ("ONEDNN"; "MKLDNN" as an alias;
 *        "" or "NONE" = nothing; case-insensitive). Returns the number of fused nodes (each
 *        dropped identity node counts as one). Keeps the list of input variables (arguments
 *        and auxiliary states, in order) and the outputs unchanged. Throws ValueError for an
 *        unknown backend.
 */
int PartitionForInference(Symbol* sym, const std::string& backend);

/*!
 * \brief The backend from MXNET_SUBGRAPH_BACKEND: "ONEDNN" by default (when unset and the
 *        build has oneDNN), "" when NONE or empty-but-set, else the value as set (upper case).
 */
std::string DefaultInferenceBackend();

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_SUBGRAPH_H_
