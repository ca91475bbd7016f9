/*!
 * \file executor.h
 * \brief GraphExecutor (bind / simple_bind): the forward graph plus its gradient, with
 *        shapes and dtypes inferred once, memory planned statically, and ops pushed to the
 *        engine in bulk segments.
 */
#ifndef MXNET_GRAPH_EXECUTOR_H_
#define MXNET_GRAPH_EXECUTOR_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/indexed_graph.h"
#include "graph/plan_memory.h"
#include "graph/symbol.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace graph {

/*! \brief name, array: called for every op output (and inputs with monitor_all). */
using MonitorCallback = std::function<void(const std::string&, const NDArray&)>;

class GraphExecutor {
 public:
  /*!
   * \brief Binds arrays to sym: args in list_arguments order, grads (none where req is
   *        kNullOp), aux in list_auxiliary_states order. shared lends its memory blocks.
   */
  GraphExecutor(const Symbol& sym, Context ctx, const std::vector<NDArray>& args, const std::vector<NDArray>& grads,
                const std::vector<op::OpReqType>& reqs, const std::vector<NDArray>& aux, GraphExecutor* shared);

  void Forward(bool is_train);
  /*!
   * \brief Runs forward node `step` alone (nodes in topological order, variables count as
   *        no-op steps); step_left: forward nodes after it (0 once past the end).
   */
  void PartialForward(bool is_train, int step, int* step_left);
  /*! \brief head_grads: one per output, or empty (ones). */
  void Backward(const std::vector<NDArray>& head_grads, bool is_train);

  const std::vector<NDArray>& outputs() const { return outputs_; }
  const std::vector<NDArray>& args() const { return args_; }
  const std::vector<NDArray>& grads() const { return grads_; }
  const std::vector<NDArray>& aux() const { return aux_; }
  const std::vector<op::OpReqType>& reqs() const { return reqs_; }
  Context ctx() const { return ctx_; }
  const Symbol& symbol() const { return symbol_; }
  /*! \brief The forward graph after the passes (CSE). */
  Symbol OptimizedSymbol() const;
  const MemoryPlan& plan() const { return plan_; }
  /*! \brief Graph listing with shapes, storage and segments, then "Total N MB allocated". */
  std::string DebugStr() const;
  void SetMonitor(MonitorCallback cb, bool monitor_all);
  /*! \brief Memory blocks (lent to executors bound with this one as `shared`). */
  const std::vector<NDArray>& blocks() const { return blocks_; }

 private:
  void RunNodes(uint32_t begin, uint32_t end, bool is_train, int bulk);
  void DumpIfAsked() const;

  Symbol symbol_;      // as given (for list_* and reshape)
  Symbol optimized_;   // forward outputs after CSE
  Context ctx_;
  std::vector<NDArray> args_, grads_, aux_;
  std::vector<op::OpReqType> reqs_;
  std::unique_ptr<IndexedGraph> graph_;  // forward outputs, then gradients
  uint32_t num_forward_nodes_{0};
  size_t num_outputs_{0};
  std::vector<TShape> shapes_;
  std::vector<int> dtypes_;
  MemoryPlan plan_;
  std::vector<NDArray> blocks_;
  std::vector<NDArray> entries_;  // per entry: the array it lives in
  std::vector<NDArray> outputs_;
  std::vector<NodePtr> head_grad_vars_;
  bool ones_in_head_grads_{false};
  std::vector<int> readers_;  // per entry: consumers + graph outputs (0: computed with kNullOp)
  /*! \brief Per gradient: where it is computed, and how it reaches the user's array. */
  struct GradCopy {
    uint32_t entry;
    size_t arg;
    bool add;
  };
  std::vector<GradCopy> grad_copies_;
  std::vector<int> segment_;  // per node: bulk segment index (debug listing)
  size_t num_mirrored_{0};
  size_t num_cse_removed_{0};
  MonitorCallback monitor_;
  bool monitor_all_{false};
  int bulk_fwd_{0}, bulk_bwd_{0}, bulk_infer_{0};
};

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_EXECUTOR_H_
