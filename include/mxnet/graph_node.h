/*!
 * \file graph_node.h
 * \brief The node of a computation graph (op + parsed attrs + inputs): autograd's tape, the
 *        symbolic graph and CachedOp share it, and an NDArray remembers the entry that made it.
 */
#ifndef MXNET_GRAPH_NODE_H_
#define MXNET_GRAPH_NODE_H_

#include <any>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mxnet {
namespace op {

class Op;
struct Node;
using NodePtr = std::shared_ptr<Node>;

/*! \brief Parameters of one node: the raw strings (kept for symbol JSON) and the parsed struct. */
struct NodeAttrs {
  const Op* op{nullptr};
  std::string name;
  std::unordered_map<std::string, std::string> dict;
  std::any parsed;

  template <typename P>
  const P& get() const {
    return std::any_cast<const P&>(parsed);
  }
};

/*! \brief One output of a node. version: the array's write count when it was recorded. */
struct NodeEntry {
  NodePtr node;
  uint32_t index{0};
  uint32_t version{0};
};

/*!
 * \brief A node of a computation graph: op + attrs + inputs. A variable has op == nullptr.
 *        Autograd's tape and the later symbolic graph both use this type, and FGradient
 *        returns entries of new nodes built with MakeNode.
 */
struct Node {
  NodeAttrs attrs;
  std::vector<NodeEntry> inputs;
  /*! \brief Nodes that must run before this one without a data edge (graph passes). */
  std::vector<NodePtr> control_deps;
  /*! \brief Owner-defined payload (autograd stores the saved arrays here). */
  std::shared_ptr<void> info;

  const Op* op() const { return attrs.op; }
  bool is_variable() const { return attrs.op == nullptr; }
  static NodePtr Create() { return std::make_shared<Node>(); }
};

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_GRAPH_NODE_H_
