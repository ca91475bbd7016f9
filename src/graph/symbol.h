/*!
 * \file symbol.h
 * \brief Symbol: a list of output entries of a dataflow graph of op::Node (the same node
 *        type autograd records and FGradient builds). Composition follows MXNet 1.x's rules
 *        (auto-created `<name>_<input>` variables, mutated inputs as auxiliary states).
 */
#ifndef MXNET_GRAPH_SYMBOL_H_
#define MXNET_GRAPH_SYMBOL_H_

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mxnet/op.h"

namespace mxnet {
namespace graph {

using op::Node;
using op::NodeEntry;
using op::NodePtr;

/*! \brief Which inputs ListInputs reports (NNSymbolListInputNames' option). */
enum class InputOption { kAll = 0, kReadOnlyArgs = 1, kAuxiliaryStates = 2 };

class Symbol {
 public:
  std::vector<NodeEntry> outputs;

  static Symbol CreateVariable(const std::string& name);
  /*! \brief An un-composed op node; hidden keys (lr_mult, ctx_group, ...) become __key__. */
  static Symbol CreateAtomic(const op::Op* op, const std::vector<std::pair<std::string, std::string>>& params);
  static Symbol Group(const std::vector<Symbol>& symbols);

  /*! \brief Deep copy of every node reachable from the outputs (variables included). */
  Symbol Copy() const;
  /*! \brief Fills inputs in place: positional args (keys empty) or keyword args. */
  void Compose(const std::vector<Symbol>& args, const std::vector<std::string>& keys, const std::string& name);

  Symbol GetOutput(uint32_t index) const;
  Symbol GetInternals() const;
  Symbol GetChildren() const;
  /*! \brief Every node reachable from the outputs, inputs before users (post-order DFS). */
  std::vector<NodePtr> TopoNodes() const;
  std::vector<NodePtr> ListInputs(InputOption option) const;
  std::vector<std::string> ListInputNames(InputOption option) const;
  std::vector<std::string> ListOutputNames() const;
  /*! \brief The head node's name when the symbol has a single head node. */
  bool GetName(std::string* out) const;
  bool GetAttr(const std::string& key, std::string* out) const;
  /*! \brief Sets key on every head node (a variable or one op). */
  void SetAttr(const std::string& key, const std::string& value);
  /*! \brief Recursive: "node$key" -> value; shallow: the head's own keys. */
  std::vector<std::pair<std::string, std::string>> ListAttrs(bool recursive) const;
  /*! \brief MXNet's debug_str(): outputs, then each node's op, inputs and attributes. */
  std::string DebugStr() const;
  bool IsAtomic() const;
};

/*! \brief Whether input i of n is an auxiliary state: written by its op, or declared one (Op::aux_inputs). */
bool IsMutatedInput(const Node& n, uint32_t i);
/*! \brief "<node>_output", "<node>_<declared name>" or "<node>_output<i>"; a variable's own name. */
std::string OutputName(const NodeEntry& e);
/*! \brief Sorted copy of a node's attribute dict. */
std::map<std::string, std::string> SortedAttrs(const Node& n);
/*! \brief Parses the dict of an op node again (after edits). */
void ReparseAttrs(Node* n);

}  // namespace graph
}  // namespace mxnet

#endif  // MXNET_GRAPH_SYMBOL_H_
