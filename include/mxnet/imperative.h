/*!
 * \file imperative.h
 * \brief Imperative execution of registered ops on NDArrays, and the autograd tape.
 */
#ifndef MXNET_IMPERATIVE_H_
#define MXNET_IMPERATIVE_H_

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "mxnet/ndarray.h"
#include "mxnet/op.h"

namespace mxnet {
namespace imperative {

/*!
 * \brief Runs attrs.op on inputs: infers shapes and dtypes, allocates none outputs
 *        (outputs[i]->is_none()), pushes the kernel to the engine with read/write vars and
 *        records it on the tape when recording. Outputs may alias inputs (in-place).
 *        default_ctx is used by ops without inputs unless attrs hold a "ctx" parameter.
 */
void Invoke(Context default_ctx, const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
            const std::vector<NDArray*>& outputs);
/*!
 * \brief As Invoke, but outputs whose `unused` flag is set run with kNullOp: they are still
 *        allocated, the kernel may skip computing them (backward uses it for gradients that
 *        nothing reads, e.g. the data gradient of a first convolution).
 */
void Invoke(Context default_ctx, const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
            const std::vector<NDArray*>& outputs, const std::vector<bool>& unused);
/*!
 * \brief As above, with attrs the kernel may keep until it ran (no copy: a graph's node, or
 *        attributes parsed once and cached). planned: every output is allocated with the
 *        shape and dtype a graph's inference gave it, so the op's inference is skipped.
 */
void Invoke(Context default_ctx, std::shared_ptr<const op::NodeAttrs> attrs, const std::vector<NDArray*>& inputs,
            const std::vector<NDArray*>& outputs, const std::vector<bool>& unused, bool planned = false);
/*! \brief Convenience: invoke by op name with string params; returns the (visible) outputs. */
std::vector<NDArray> InvokeByName(const std::string& op_name, const std::vector<NDArray>& inputs,
                                  const std::unordered_map<std::string, std::string>& params = {});

// ---- thread-local modes ----
bool IsRecording();
bool SetIsRecording(bool v);  // returns the previous value
bool IsTraining();
bool SetIsTraining(bool v);

// ---- random seeds ----
/*! \brief Seeds every device's stream (MXRandomSeed). */
void RandomSeed(uint32_t seed);
/*! \brief Seeds one device's stream (MXRandomSeedContext). */
void RandomSeedContext(uint32_t seed, Context ctx);
/*! \brief The stream of the next random launch on ctx (reserved in push order). */
op::RandomStream NextRandomStream(Context ctx);

// ---- autograd ----
/*! \brief Attaches gradient buffers: reqs are OpReqType (kNullOp, kWriteTo, kAddTo). */
void MarkVariables(const std::vector<NDArray*>& vars, const std::vector<uint32_t>& reqs,
                   const std::vector<NDArray*>& grads);
/*! \brief Gradient buffer attached to a marked variable; none when not marked. */
NDArray GetGrad(const NDArray& var);
/*! \brief The "fresh gradient" flag of a marked variable (set by backward; Trainer clears it). */
bool GetFreshGrad(const NDArray& var);
void SetFreshGrad(const NDArray& var, bool fresh);
/*! \brief Records an op that already ran (invoked by Invoke when recording). */
void RecordOp(const op::NodeAttrs& attrs, const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs);
/*!
 * \brief Backward from heads. variables empty: accumulate into marked variables' buffers per
 *        their grad_req and return nothing; else return d(heads)/d(variables) as new arrays.
 */
std::vector<NDArray> Backward(const std::vector<NDArray*>& heads, const std::vector<NDArray*>& head_grads,
                              const std::vector<NDArray*>& variables, bool retain_graph, bool create_graph,
                              bool is_train);

/*!
 * \brief A user-defined function (autograd.Function): outputs were computed by the caller;
 *        backward(ograds, igrads, reqs, is_train) fills igrads. Called on the thread running
 *        Backward, outside engine workers, so it may itself invoke ops and wait.
 */
using CustomBackward = std::function<void(const std::vector<NDArray>& ograds, const std::vector<NDArray>& igrads,
                                          const std::vector<int>& reqs, bool is_train)>;
void RecordCustomFunction(const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs,
                          CustomBackward backward, std::function<void()> on_delete);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_H_
