/*!
 * \file autograd_symbol.h
 * \brief The recorded computation behind an array as a standalone dataflow graph
 *        (autograd.get_symbol / MXAutogradGetSymbol).
 */
#ifndef MXNET_IMPERATIVE_AUTOGRAD_SYMBOL_H_
#define MXNET_IMPERATIVE_AUTOGRAD_SYMBOL_H_

#include "mxnet/ndarray.h"

namespace mxnet {
namespace imperative {

/*!
 * \brief A copy of the tape that produced arr (or arr's own variable when it is a marked leaf):
 *        fresh nodes without the tape's saved values, named as MXNet 1.x names them (marked
 *        variables var<N>, other inputs null<N>, ops node_<N>, N in creation order). Uses of
 *        one untracked input (same data, same version) share one variable. Throws MXNetError
 *        when arr was neither recorded nor marked.
 */
op::NodeEntry RecordedGraph(const NDArray& arr);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_AUTOGRAD_SYMBOL_H_
