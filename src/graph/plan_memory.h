/*!
 * \file plan_memory.h
 * \brief Static memory planning: each entry gets a storage block; a block is reused once
 *        every reader of its previous entry ran (sizes within the match range), or taken
 *        over in place by an op's output when the op declares the pair.
 */
#ifndef MXNET_GRAPH_PLAN_MEMORY_H_
#define MXNET_GRAPH_PLAN_MEMORY_H_

#include <cstdint>
#include <vector>

#include "graph/indexed_graph.h"

namespace mxnet {
namespace graph {

struct PlanOptions {
  bool enable_inplace{true};  // MXNET_EXEC_ENABLE_INPLACE
  int match_range{16};        // NNVM_EXEC_MATCH_RANGE; 0 gives every entry its own block
  int num_temp{1};            // MXNET_EXEC_NUM_TEMP: colours (longest paths) that never share
};

struct MemoryPlan {
  static constexpr int kExternal = -2;  // bound to an array from outside (variables, gradients)
  /*! \brief Per entry: block index, or kExternal. */
  std::vector<int> storage_id;
  /*! \brief Per entry: written over one of its node's inputs. */
  std::vector<bool> inplace;
  /*! \brief Per block: bytes, dtype (blocks hold one dtype). */
  std::vector<size_t> block_bytes;
  std::vector<int> block_dtype;
  /*! \brief Per node: colour (0 .. num_temp-1). */
  std::vector<int> color;
  uint64_t planned_bytes{0};   // sum of the blocks
  uint64_t unshared_bytes{0};  // sum over planned entries, each on its own
  uint32_t num_inplace{0}, num_shared{0};
};

/*! \brief external[eid]: the entry is bound from outside and not planned. */
MemoryPlan PlanMemory(const IndexedGraph& g, const std::vector<TShape>& shapes, const std::vector<int>& dtypes,
                      const std::vector<bool>& external, const PlanOptions& opt);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_PLAN_MEMORY_H_
