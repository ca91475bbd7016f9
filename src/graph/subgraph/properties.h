/*!
 * \file properties.h
 * \brief The rewrites of the CPU subgraph backend, one per file. Each rewrites sym in place
 *        and returns how many fused nodes it made (identity: how many nodes it dropped).
 */
#ifndef MXNET_GRAPH_SUBGRAPH_PROPERTIES_H_
#define MXNET_GRAPH_SUBGRAPH_PROPERTIES_H_

#include "graph/symbol.h"

namespace mxnet {
namespace graph {
namespace subgraph {

/*! \brief Drops `_copy` and Dropout(mode='training') nodes whose output is no graph output. */
int DropIdentities(Symbol* sym);

/*! \brief Which links the convolution chain may take (the MXNET_DISABLE_ONEDNN_FUSE_CONV_* switches). */
struct ConvFuseOptions {
  bool bn{true}, sum{true}, act{true};
};
/*! \brief Convolution [-> BatchNorm] [-> add] [-> activation] into `_sg_onednn_conv`. */
int FuseConv(Symbol* sym, const ConvFuseOptions& options);

/*! \brief FullyConnected -> activation into `_sg_onednn_fully_connected`. */
int FuseFCActivation(Symbol* sym);

/*! \brief BatchNorm -> relu into `_contrib_BatchNormWithReLU`. */
int FuseBatchNormReLU(Symbol* sym);

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_SUBGRAPH_PROPERTIES_H_
