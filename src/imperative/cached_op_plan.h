/*!
 * \file cached_op_plan.h
 * \brief What a CachedOp keeps per input signature (the plan: graph, shapes, memory plan),
 *        per call (the state: arrays bound to the plan's entries), and how a node range runs.
 */
#ifndef MXNET_IMPERATIVE_CACHED_OP_PLAN_H_
#define MXNET_IMPERATIVE_CACHED_OP_PLAN_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/indexed_graph.h"
#include "graph/plan_memory.h"
#include "imperative/cached_op.h"

namespace mxnet {
namespace imperative {

struct CachedOpPlan {
  std::unique_ptr<graph::IndexedGraph> graph;  // forward nodes first, then the gradient's
  uint32_t num_forward_nodes{0};
  std::vector<uint32_t> input_entries;   // per CachedOp input
  std::vector<uint32_t> output_entries;  // per output
  /*! \brief Per output: handed out as a copy (it is an input, or repeats an earlier output). */
  std::vector<bool> output_copy;
  std::vector<size_t> grad_inputs;         // inputs differentiated, ascending
  std::vector<uint32_t> grad_entries;      // per grad input
  std::vector<int64_t> head_grad_entries;  // per output; -1 when no gradient reads it
  std::vector<TShape> shapes;
  std::vector<int> dtypes;
  graph::MemoryPlan memory;
  /*! \brief Per entry: allocated afresh each call (outputs and gradients handed out). */
  std::vector<bool> fresh;
  std::vector<int> readers;  // per entry: consumers + graph outputs
  /*! \brief Per node: its input entries, then (from input_count[nid]) its output entries. */
  std::vector<std::vector<uint32_t>> node_entries;
  std::vector<uint32_t> input_count;
  /*! \brief Per node: which outputs nothing reads (run with kNullOp). */
  std::vector<std::vector<bool>> unused_outputs;
  int bulk_forward{0}, bulk_backward{0};
  bool train{false};
  int num_fused{0};
};

struct PlanRequest {
  Context ctx;
  bool train{false};
  bool record{false};
  std::vector<TShape> shapes;  // per input
  std::vector<int> dtypes;
  std::vector<bool> grad;  // per input
};

/*! \brief Infers, differentiates (when grads are wanted) and plans sym for req. */
std::shared_ptr<CachedOpPlan> BuildCachedOpPlan(const graph::Symbol& sym, const CachedOpConfig& config,
                                                const PlanRequest& req);

/*! \brief One call's arrays (or, with static_alloc, every call's). */
struct CachedOpState {
  std::shared_ptr<const CachedOpPlan> plan;
  Context ctx;
  std::vector<NDArray> blocks;
  std::vector<NDArray> entries;
  std::mutex mu;                // a static state is filled and pushed by one call at a time
  std::atomic<bool> busy{false};  // held by a recorded call whose backward has not run
  uint64_t generation{0};       // calls made with this state
};

std::shared_ptr<CachedOpState> MakeState(std::shared_ptr<const CachedOpPlan> plan, Context ctx);
/*! \brief Allocates the planned blocks (when not held already) and points the entries at them. */
void AllocateBlocks(CachedOpState* state);
/*! \brief Drops the state's references to arrays it does not own (inputs, outputs, gradients). */
void ReleaseExternal(CachedOpState* state);
/*!
 * \brief Pushes nodes [begin, end) of the plan on the state's entries. Fresh entries get new
 *        arrays, except those marked in `bound` (already bound to the caller's arrays).
 */
void RunPlanNodes(const CachedOpPlan& plan, CachedOpState* state, uint32_t begin, uint32_t end, bool train, int bulk,
                  const std::vector<bool>* bound = nullptr);

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_CACHED_OP_PLAN_H_
