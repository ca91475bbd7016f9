/*!
 * \file kernel_dispatch.h
 * \brief The one dispatcher of kernel lists (op_kernel.h), used by every op call (imperative,
 *        graph nodes and CachedOp all run through imperative::Invoke): picks the first
 *        implementation that accepts the call and is allowed by the rules, caches that choice per
 *        call signature (op, attrs, mode, shapes, dtypes, layouts, requests), converts inputs for
 *        plain kernels, and prints / records what ran.
 *
 * Unforced, an implementation runs when it accepts the call and is worth it (KernelImpl::worth).
 * Rules: MXNET_KERNEL_FORCE ("Op:impl" pairs, or a bare impl name for every op that has it) runs
 * only the named implementation (its speed policy aside), and a call it does not accept fails
 * naming both; forcing wins over exclusion. MXNET_KERNEL_EXCLUDE skips implementations by name, tag or "Op:impl"; the
 * reference kernel cannot be excluded. Tag switches (RegisterKernelTagSwitch) exclude a tag while
 * their variable says so (MXNET_ONEDNN_ENABLED=0 -> "onednn", MXNET_CPU_WINOGRAD_CONV=0 -> "winograd").
 */
#ifndef MXNET_OPERATOR_KERNEL_DISPATCH_H_
#define MXNET_OPERATOR_KERNEL_DISPATCH_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/op.h"

namespace mxnet {
namespace op {

/*!
 * \brief Runs op's kernel for one call on dev. Input layouts come from the current KernelArrays
 *        (imperative::Invoke sets them); a plain implementation gets its inputs converted first,
 *        the blobs in *inputs / *outputs then point at the plain memory.
 */
void RunKernel(const Op& op, Context::DeviceType dev, const NodeAttrs& attrs, const OpContext& ctx,
               std::vector<TBlob>* inputs, const std::vector<OpReqType>& req, std::vector<TBlob>* outputs);

/*!
 * \brief As RunKernel for a kernel calling another op's kernels (a fused op running its parts):
 *        the inputs are the caller's blobs, read as plain memory.
 */
void RunKernelPlain(const Op& op, Context::DeviceType dev, const NodeAttrs& attrs, const OpContext& ctx,
                    const std::vector<TBlob>& inputs, const std::vector<OpReqType>& req,
                    const std::vector<TBlob>& outputs);

/*! \brief The implementation that would run for problem p under the current rules (throws as RunKernel). */
const KernelImpl& SelectKernel(const Op& op, Context::DeviceType dev, const KernelProblem& p);

/*! \brief Replaces the force / exclude rules (MXNET_KERNEL_FORCE / MXNET_KERNEL_EXCLUDE syntax). */
void SetKernelRules(const std::string& force, const std::string& exclude);
/*! \brief The rules in force: (force, exclude). */
std::pair<std::string, std::string> GetKernelRules();

/*! \brief Excludes `tag` while enabled() is false (evaluated on every dispatch: keep it cheap). */
void RegisterKernelTagSwitch(const std::string& tag, std::function<bool()> enabled);

/*! \brief Starts recording (op, implementation) of every kernel run, dropping earlier records. */
void StartKernelTrace();
/*! \brief Stops recording and returns the records in run order. */
std::vector<std::pair<std::string, std::string>> StopKernelTrace();

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_KERNEL_DISPATCH_H_
