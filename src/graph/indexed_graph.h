/*!
 * \file indexed_graph.h
 * \brief Dense ids over a graph: nodes in post-order DFS from the outputs (inputs first),
 *        entry id = row_ptr[node] + output index. Passes keep per-entry vectors over it.
 */
#ifndef MXNET_GRAPH_INDEXED_GRAPH_H_
#define MXNET_GRAPH_INDEXED_GRAPH_H_

#include <string>
#include <unordered_map>
#include <vector>

#include "graph/symbol.h"

namespace mxnet {
namespace graph {

class IndexedGraph {
 public:
  explicit IndexedGraph(const std::vector<NodeEntry>& outputs);

  const std::vector<NodePtr>& nodes() const { return nodes_; }
  const std::vector<NodeEntry>& outputs() const { return outputs_; }
  uint32_t num_nodes() const { return static_cast<uint32_t>(nodes_.size()); }
  uint32_t num_entries() const { return row_ptr_.back(); }
  uint32_t node_id(const Node* n) const { return node_id_.at(n); }
  bool has_node(const Node* n) const { return node_id_.count(n) > 0; }
  uint32_t entry_id(uint32_t nid, uint32_t index) const { return row_ptr_[nid] + index; }
  uint32_t entry_id(const NodeEntry& e) const { return row_ptr_[node_id(e.node.get())] + e.index; }
  uint32_t num_outputs(uint32_t nid) const { return row_ptr_[nid + 1] - row_ptr_[nid]; }
  /*! \brief Node ids of the variables, in DFS order. */
  const std::vector<uint32_t>& input_nodes() const { return input_nodes_; }

 private:
  std::vector<NodePtr> nodes_;
  std::vector<NodeEntry> outputs_;
  std::unordered_map<const Node*, uint32_t> node_id_;
  std::vector<uint32_t> row_ptr_;
  std::vector<uint32_t> input_nodes_;
};

/*! \brief Parses a variable's "__shape__" ("(2, 0)"; 0 = unknown in legacy files). */
TShape ShapeAttr(const Node& n);
/*! \brief A variable's "__dtype__" (an integer type flag), or -1. */
int DtypeAttr(const Node& n);

/*!
 * \brief Fills unknown entry shapes from known ones by alternating forward and backward
 *        sweeps, stopping when nothing changes. An op that rejects its shapes raises
 *        "Error in operator <node> (<op>): ..." naming the input and both shapes.
 *        Returns the number of entries still unknown.
 */
size_t InferShapes(const IndexedGraph& g, std::vector<TShape>* shapes);
size_t InferTypes(const IndexedGraph& g, std::vector<int>* types);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_INDEXED_GRAPH_H_
