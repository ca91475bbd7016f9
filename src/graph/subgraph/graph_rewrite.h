/*!
 * \file graph_rewrite.h
 * \brief What the subgraph properties share: who reads each entry of a graph (to find
 *        single-consumer chains), replacing entries by new ones, and naming fused nodes.
 *        A property walks EntryReads::order() (inputs before users), builds fused nodes from
 *        the original nodes' inputs, records the replaced entries in a Rewiring and applies it
 *        once at the end; read counts stay right meanwhile, because a fused node reads what
 *        its chain read and is read by what read the chain's last output.
 */
#ifndef MXNET_GRAPH_SUBGRAPH_GRAPH_REWRITE_H_
#define MXNET_GRAPH_SUBGRAPH_GRAPH_REWRITE_H_

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "graph/symbol.h"

namespace mxnet {
namespace graph {
namespace subgraph {

/*! \brief One read of an entry: input slot `input` of `node`. */
struct Read {
  Node* node;
  uint32_t input;
};

class EntryReads {
 public:
  explicit EntryReads(const Symbol& sym);
  /*! \brief Every node, inputs before their users. */
  const std::vector<NodePtr>& order() const { return order_; }
  /*! \brief Node inputs reading output `index` of n. */
  const std::vector<Read>& Readers(const Node* n, uint32_t index) const;
  /*! \brief How many graph outputs are output `index` of n. */
  int OutputUses(const Node* n, uint32_t index) const;
  /*! \brief Node inputs plus graph outputs reading it. */
  size_t Reads(const Node* n, uint32_t index) const { return Readers(n, index).size() + OutputUses(n, index); }
  /*!
   * \brief The read of output `index` of n when it is its only one and n is not a graph
   *        output, by an op node without control dependencies; else null. A chain continues
   *        only there.
   */
  const Read* SoleRead(const Node* n, uint32_t index) const;
  /*! \brief Whether another node orders itself after n (control_deps): such n stay. */
  bool HasControlUsers(const Node* n) const { return control_targets_.count(n) > 0; }

 private:
  using Key = std::pair<const Node*, uint32_t>;
  std::vector<NodePtr> order_;
  std::map<Key, std::vector<Read>> readers_;
  std::map<Key, int> outputs_;
  std::unordered_set<const Node*> control_targets_;
};

/*! \brief Entry replacements, applied to every node input and graph output at once. */
class Rewiring {
 public:
  /*! \brief Readers of output `index` of n will read `with` instead. */
  void Replace(const Node* n, uint32_t index, const NodeEntry& with);
  bool empty() const { return map_.empty(); }
  /*! \brief Rewrites sym's outputs and every reachable node's inputs (chains resolved). */
  void Apply(Symbol* sym) const;

 private:
  NodeEntry Resolve(NodeEntry e) const;
  std::map<std::pair<const Node*, uint32_t>, NodeEntry> map_;
};

/*! \brief op is the registered op named `name` (aliases resolve to it); false if none such. */
bool IsOp(const Node& n, const char* name);
/*! \brief The value of key in n's attributes, or def when absent. */
std::string AttrOr(const Node& n, const std::string& key, const std::string& def);
/*! \brief Parses a boolean attribute as dmlc does (True/False/1/0, any case). */
bool AttrBool(const Node& n, const std::string& key, bool def);

/*!
 * \brief Whether n applies an activation a fused op can take (Activation with one of
 *        `allowed`, or the element-wise op of that name); *act_type gets its name.
 */
bool FusableActivation(const Node& n, const std::vector<std::string>& allowed, std::string* act_type);

/*!
 * \brief A new op node: `op_name` with dict and inputs. Named `generated` unless the entry it
 *        replaces (output `index` of `last`) is a graph output, then after `last`.
 */
NodePtr MakeFusedNode(const std::string& op_name, std::unordered_map<std::string, std::string> dict,
                      std::vector<NodeEntry> inputs, const EntryReads& reads, const Node& last, uint32_t index,
                      const std::string& generated);

}  // namespace subgraph
}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_SUBGRAPH_GRAPH_REWRITE_H_
