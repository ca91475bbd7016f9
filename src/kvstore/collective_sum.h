/*!
 * \file collective_sum.h
 * \brief The deterministic element-wise sum of the allreduce.
 */
#ifndef MXNET_KVSTORE_COLLECTIVE_SUM_H_
#define MXNET_KVSTORE_COLLECTIVE_SUM_H_

#include <cstddef>

namespace mxnet {
namespace kvstore {

/*!
 * \brief out[i] = ((inputs[0][i] + inputs[1][i]) + inputs[2][i]) + ... in this order, so the
 *        result never depends on which input arrived first. float16/bfloat16 add in float32 and
 *        round once at the end (one rounding per element however many ranks); float32 and
 *        float64 add in their own type; integers wrap around (two's complement). out may be one
 *        of the inputs. Throws for a dtype the allreduce does not support.
 */
void SumInRankOrder(int dtype, const void* const* inputs, int num_inputs, void* out, size_t count);

/*! \brief Whether SumInRankOrder supports the dtype. */
bool SummableDType(int dtype);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COLLECTIVE_SUM_H_
