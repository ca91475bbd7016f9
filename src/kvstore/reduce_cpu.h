/*!
 * \file reduce_cpu.h
 * \brief Engine operations the single-process stores are made of: summing the values of one key,
 *        and the dense form of a row-sparse pull.
 */
#ifndef MXNET_KVSTORE_REDUCE_CPU_H_
#define MXNET_KVSTORE_REDUCE_CPU_H_

#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {

/*!
 * \brief Pushes out := values[0] + values[1] + ... (added in that order, so the result does not
 *        depend on thread timing). Arrays of at least MXNET_KVSTORE_BIGARRAY_BOUND elements are
 *        summed by MXNET_KVSTORE_REDUCTION_NTHREADS threads. All arrays in host memory, same
 *        size and dtype (checked, naming the key).
 */
void PushSum(const std::vector<NDArray>& values, const NDArray& out, const std::string& key_name, int priority);

/*!
 * \brief Pushes out := zeros with the rows listed in row_ids (any numeric dtype, 1-D, any order,
 *        repeats allowed) copied from stored. A row id outside [0, rows) fails the operation
 *        with an error naming it.
 */
void PushRowSparsePull(const NDArray& stored, const NDArray& row_ids, const NDArray& out, const std::string& key_name,
                       int priority);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_REDUCE_CPU_H_
