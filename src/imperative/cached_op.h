/*!
 * \file cached_op.h
 * \brief CachedOp: a symbol run as one call. Per input signature the graph (and, when
 *        recording, its gradient) is inferred and memory-planned once; calls with that
 *        signature only bind arrays and push the ops. Hybridized Gluon blocks and the predict
 *        API run through it.
 */
#ifndef MXNET_IMPERATIVE_CACHED_OP_H_
#define MXNET_IMPERATIVE_CACHED_OP_H_

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "graph/symbol.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace imperative {

struct CachedOpConfig {
  bool static_alloc{false};
  bool static_shape{false};
  int inline_limit{2};
  int forward_bulk_size{-1};   // -1: the MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN_FWD setting
  int backward_bulk_size{-1};  // -1: ..._BWD
  std::vector<uint32_t> data_indices, param_indices;
  /*! \brief Inference fusion backend; "default": MXNET_SUBGRAPH_BACKEND's choice. */
  std::string backend{"default"};
  /*! \brief Parses MXNet's string flags; unknown keys and bad values raise. */
  static CachedOpConfig Parse(const std::vector<std::pair<std::string, std::string>>& flags);
};

struct CachedOpPlan;
struct CachedOpState;

class CachedOp : public std::enable_shared_from_this<CachedOp> {
 public:
  CachedOp(const graph::Symbol& sym, const CachedOpConfig& config);

  /*!
   * \brief Runs the graph. inputs: in the symbol's list_inputs order; outputs: one per
   *        symbol output, none ones are allocated. Records one node for autograd when
   *        recording (or the inner ops, when inlined).
   */
  void Forward(const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs);

  size_t num_inputs() const { return input_nodes_.size(); }
  size_t num_outputs() const { return symbol_.outputs.size(); }
  const CachedOpConfig& config() const { return config_; }
  const graph::Symbol& symbol() const { return symbol_; }
  /*! \brief Plans held now (bounded by MXNET_CACHEDOP_MAX_PLANS). */
  size_t num_plans() const;
  /*! \brief Fused ops the subgraph backend made in the plan of the most recent call. */
  int last_num_fused() const { return last_num_fused_; }

 private:
  struct Key {
    Context ctx;
    bool train{false}, record{false};
    std::vector<TShape> shapes;
    std::vector<int> dtypes;
    std::vector<bool> grad;  // per input: a gradient is wanted (recording only)
    bool operator==(const Key& o) const {
      return ctx == o.ctx && train == o.train && record == o.record && shapes == o.shapes && dtypes == o.dtypes &&
             grad == o.grad;
    }
  };
  struct Cached {
    Key key;
    std::shared_ptr<CachedOpPlan> plan;
    std::shared_ptr<CachedOpState> static_state;  // static_alloc: buffers kept across calls
  };

  Key MakeKey(const std::vector<NDArray*>& inputs, bool record) const;
  /*! \brief The plan for key (built on a miss, evicting the least recently used). */
  Cached* Lookup(const Key& key);
  void ForwardInlined(const std::vector<NDArray*>& inputs, const std::vector<NDArray*>& outputs, Context ctx);

  graph::Symbol symbol_;
  CachedOpConfig config_;
  std::vector<graph::NodePtr> input_nodes_;  // list_inputs order
  std::vector<bool> mutated_;                // per input: written by the graph (aux states)
  size_t num_op_nodes_{0};
  mutable std::mutex mu_;
  std::list<Cached> plans_;  // most recently used first
  int last_num_fused_{0};
};

/*!
 * \brief The gradient of a recorded CachedOp call (attrs of its _backward_CachedOp node):
 *        one array per input, none for inputs not differentiated. into: per input, an array
 *        to write that gradient into (a variable's gradient buffer) or none. retain keeps the
 *        call's saved arrays for another backward.
 */
std::vector<NDArray> CachedOpBackward(const op::NodeAttrs& attrs, const std::vector<NDArray>& ograds,
                                      const std::vector<NDArray>& into, bool retain, bool create_graph);

/*! \brief Handle form for the C API: the op is shared with the recorded nodes using it. */
using CachedOpPtr = std::shared_ptr<CachedOp>;

}  // namespace imperative
}  // namespace mxnet

#endif  // MXNET_IMPERATIVE_CACHED_OP_H_
