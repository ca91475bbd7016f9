/*!
 * \file symbol.cc
 * \brief Symbol composition, listing and attributes with MXNet 1.x's naming rules.
 */
#include "graph/symbol.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace mxnet {
namespace graph {
namespace {

// Keys users pass without underscores that graphs store as __key__ (annotations, not params).
const char* const kHiddenKeys[] = {"ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage"};

std::string HiddenKey(const std::string& key) {
  for (const char* h : kHiddenKeys) {
    const std::string hk(h);
    if (key == hk) return "__" + hk + "__";
    if (key.size() > hk.size() && key.compare(key.size() - hk.size(), hk.size(), hk) == 0 &&
        key.compare(0, 2, "__") != 0)
      MX_THROW("ValueError") << "Attribute name=" << key << " is deprecated: use " << hk
                             << " on the variable itself (attr={'__" << hk << "__': ...})";
  }
  return key;
}

/*! \brief Post-order DFS from roots: each node after its inputs and control deps. */
void PostOrder(const std::vector<NodePtr>& roots, std::vector<NodePtr>* order) {
  std::unordered_set<const Node*> seen;
  std::vector<std::pair<NodePtr, size_t>> stack;
  for (const auto& r : roots) {
    if (!r || !seen.insert(r.get()).second) continue;
    stack.emplace_back(r, 0);
    while (!stack.empty()) {
      auto& top = stack.back();
      const Node& n = *top.first;
      const size_t nin = n.inputs.size();
      if (top.second < nin + n.control_deps.size()) {
        const NodePtr& next = top.second < nin ? n.inputs[top.second].node : n.control_deps[top.second - nin];
        ++top.second;
        if (next && seen.insert(next.get()).second) stack.emplace_back(next, 0);
      } else {
        order->push_back(top.first);
        stack.pop_back();
      }
    }
  }
}

}  // namespace

bool IsMutatedInput(const Node& n, uint32_t i) {
  if (n.is_variable()) return false;
  for (const op::FMutateInputs* f : {&n.op()->mutate_inputs, &n.op()->aux_inputs}) {
    if (!*f) continue;
    const auto m = (*f)(n.attrs);
    if (std::find(m.begin(), m.end(), i) != m.end()) return true;
  }
  return false;
}

std::string OutputName(const NodeEntry& e) {
  const Node& n = *e.node;
  if (n.is_variable()) return n.attrs.name;
  const auto names = n.op()->OutputNames(n.attrs);
  if (e.index < names.size()) return n.attrs.name + "_" + names[e.index];
  return n.attrs.name + "_output" + std::to_string(e.index);
}

std::map<std::string, std::string> SortedAttrs(const Node& n) {
  return std::map<std::string, std::string>(n.attrs.dict.begin(), n.attrs.dict.end());
}

void ReparseAttrs(Node* n) {
  if (n->is_variable()) return;
  n->attrs = op::MakeAttrs(n->attrs.op, n->attrs.dict, n->attrs.name);
}

Symbol Symbol::CreateVariable(const std::string& name) {
  NodePtr n = Node::Create();
  n->attrs.name = name;
  Symbol s;
  s.outputs.push_back(NodeEntry{n, 0, 0});
  return s;
}

Symbol Symbol::CreateAtomic(const op::Op* op, const std::vector<std::pair<std::string, std::string>>& params) {
  NodePtr n = Node::Create();
  n->attrs.op = op;
  for (const auto& kv : params) n->attrs.dict[HiddenKey(kv.first)] = kv.second;
  // A variadic op learns its input count at composition; parse then, but reject a keyword it
  // does not know now, as the parse would (and as MXNet 1.x does at creation).
  if (op->key_var_num_args.empty() || n->attrs.dict.count(op->key_var_num_args)) {
    ReparseAttrs(n.get());
  } else if (op->attr_parser) {
    for (const auto& kv : n->attrs.dict) {
      if (kv.first.size() > 4 && kv.first.compare(0, 2, "__") == 0) continue;
      bool known = false;
      for (const auto& a : op->arguments) known = known || a.name == kv.first;
      if (known) continue;
      std::string names;
      for (const auto& a : op->arguments)
        if (a.type_info.find("NDArray-or-Symbol") == std::string::npos) names += (names.empty() ? "" : ", ") + a.name;
      MX_THROW("ValueError") << op->name << ": Cannot find argument '" << kv.first << "', Possible Arguments: "
                             << names;
    }
  }
  Symbol s;
  const uint32_t nout = op->key_var_num_args.empty() || n->attrs.dict.count(op->key_var_num_args)
                            ? op->NumVisibleOutputs(n->attrs)
                            : 1;
  for (uint32_t i = 0; i < nout; ++i) s.outputs.push_back(NodeEntry{n, i, 0});
  return s;
}

Symbol Symbol::Group(const std::vector<Symbol>& symbols) {
  Symbol s;
  for (const auto& x : symbols) s.outputs.insert(s.outputs.end(), x.outputs.begin(), x.outputs.end());
  return s;
}

std::vector<NodePtr> Symbol::TopoNodes() const {
  std::vector<NodePtr> roots, order;
  for (const auto& e : outputs) roots.push_back(e.node);
  PostOrder(roots, &order);
  return order;
}

Symbol Symbol::Copy() const {
  std::unordered_map<const Node*, NodePtr> copies;
  for (const NodePtr& n : TopoNodes()) {
    NodePtr c = Node::Create();
    c->attrs = n->attrs;
    for (const auto& in : n->inputs) c->inputs.push_back(NodeEntry{copies.at(in.node.get()), in.index, in.version});
    for (const auto& d : n->control_deps) c->control_deps.push_back(copies.at(d.get()));
    copies[n.get()] = c;
  }
  Symbol s;
  for (const auto& e : outputs) s.outputs.push_back(NodeEntry{copies.at(e.node.get()), e.index, e.version});
  return s;
}

bool Symbol::IsAtomic() const {
  if (outputs.empty()) return false;
  const Node* n = outputs[0].node.get();
  for (const auto& e : outputs)
    if (e.node.get() != n) return false;
  return !n->is_variable() && n->inputs.empty();
}

void Symbol::Compose(const std::vector<Symbol>& args, const std::vector<std::string>& keys, const std::string& name) {
  MX_CHECK_KIND(keys.empty() || keys.size() == args.size(), "ValueError")
      << "Symbol.Compose: " << keys.size() << " keyword names for " << args.size() << " arguments";
  for (const auto& a : args)
    MX_CHECK_KIND(a.outputs.size() == 1, "ValueError")
        << "Symbol.Compose: argument " << (a.outputs.empty() ? std::string("(empty)") : OutputName(a.outputs[0]))
        << " has " << a.outputs.size() << " outputs; compose takes single-output symbols";
  if (IsAtomic()) {
    NodePtr n = outputs[0].node;
    const op::Op* op = n->op();
    n->attrs.name = name;
    if (!op->key_var_num_args.empty()) {
      MX_CHECK_KIND(keys.empty(), "ValueError")
          << op->name << " takes a variable number of inputs: pass them positionally, not by keyword";
      if (!n->attrs.dict.count(op->key_var_num_args)) n->attrs.dict[op->key_var_num_args] = std::to_string(args.size());
    }
    ReparseAttrs(n.get());
    const uint32_t nin = op->NumInputs(n->attrs);
    const std::vector<std::string> names = op->InputNames(n->attrs);
    std::vector<NodeEntry> inputs(nin);
    std::vector<bool> filled(nin, false);
    if (keys.empty()) {
      MX_CHECK_KIND(args.size() <= nin, "ValueError")
          << op->name << " (" << name << "): takes " << nin << " inputs, " << args.size() << " given";
      for (size_t i = 0; i < args.size(); ++i) {
        inputs[i] = args[i].outputs[0];
        filled[i] = true;
      }
    } else {
      for (size_t k = 0; k < keys.size(); ++k) {
        auto it = std::find(names.begin(), names.end(), keys[k]);
        if (it == names.end()) {
          std::ostringstream cand;
          for (size_t j = 0; j < names.size(); ++j) cand << (j ? ", " : "") << names[j];
          MX_THROW("ValueError") << "Symbol.Compose Keyword argument name " << keys[k] << " not found. Candidate arguments:\n\t["
                                 << cand.str() << "] (operator " << op->name << ", node " << name << ")";
        }
        const size_t i = it - names.begin();
        inputs[i] = args[k].outputs[0];
        filled[i] = true;
      }
    }
    for (uint32_t i = 0; i < nin; ++i) {
      if (filled[i]) continue;
      MX_CHECK_KIND(op->key_var_num_args.empty(), "ValueError")
          << op->name << " (" << name << "): input " << i << " is missing";
      Symbol v = CreateVariable(name.empty() ? names[i] : name + "_" + names[i]);
      v.outputs[0].node->attrs.dict = n->attrs.dict;  // variables inherit the op's attributes
      inputs[i] = v.outputs[0];
    }
    n->inputs = std::move(inputs);
    // A written input is a new version of its variable (MXNet saves it as [id, 0, 1]).
    for (uint32_t i = 0; i < nin; ++i)
      if (IsMutatedInput(*n, i) && n->inputs[i].node->is_variable()) n->inputs[i].version = 1;
    // BatchNorm-style statistics start at 0 (mean) and 1 (variance) unless told otherwise.
    for (uint32_t i = 0; i < nin; ++i) {
      if (!IsMutatedInput(*n, i) || !n->inputs[i].node->is_variable()) continue;
      auto& d = n->inputs[i].node->attrs.dict;
      if (d.count("__init__")) continue;
      const std::string& in_name = names[i];
      if (in_name.find("var") != std::string::npos) d["__init__"] = "[\"one\", {}]";
      else if (in_name.find("mean") != std::string::npos) d["__init__"] = "[\"zero\", {}]";
    }
    outputs.clear();
    for (uint32_t i = 0; i < op->NumVisibleOutputs(n->attrs); ++i) outputs.push_back(NodeEntry{n, i, 0});
    return;
  }
  // A composite: keyword args replace free variables by name; positional ones go in
  // list_arguments order.
  std::vector<NodePtr> vars = ListInputs(InputOption::kAll);
  std::unordered_map<const Node*, NodeEntry> replace;
  if (keys.empty()) {
    std::vector<NodePtr> args_only = ListInputs(InputOption::kReadOnlyArgs);
    MX_CHECK_KIND(args.size() <= args_only.size(), "ValueError")
        << "Symbol.Compose: " << args.size() << " positional arguments for " << args_only.size() << " free variables";
    for (size_t i = 0; i < args.size(); ++i) replace[args_only[i].get()] = args[i].outputs[0];
  } else {
    for (size_t k = 0; k < keys.size(); ++k) {
      bool found = false;
      for (const auto& v : vars)
        if (v->attrs.name == keys[k]) {
          replace[v.get()] = args[k].outputs[0];
          found = true;
        }
      MX_CHECK_KIND(found, "ValueError") << "Symbol.Compose Keyword argument name " << keys[k]
                                         << " not found among the symbol's free variables";
    }
  }
  for (const NodePtr& n : TopoNodes())
    for (auto& in : n->inputs) {
      auto it = replace.find(in.node.get());
      if (it != replace.end()) in = it->second;
    }
  for (auto& e : outputs) {
    auto it = replace.find(e.node.get());
    if (it != replace.end()) e = it->second;
  }
  if (!name.empty() && outputs.size() == 1 && !outputs[0].node->is_variable()) outputs[0].node->attrs.name = name;
}

Symbol Symbol::GetOutput(uint32_t index) const {
  MX_CHECK_KIND(index < outputs.size(), "IndexError")
      << "Symbol output index " << index << " out of range (" << outputs.size() << " outputs)";
  Symbol s;
  s.outputs.push_back(outputs[index]);
  return s;
}

Symbol Symbol::GetInternals() const {
  Symbol s;
  for (const NodePtr& n : TopoNodes()) {
    const uint32_t nv = n->is_variable() ? 1 : n->op()->NumVisibleOutputs(n->attrs);
    for (uint32_t i = 0; i < nv; ++i) s.outputs.push_back(NodeEntry{n, i, 0});
  }
  return s;
}

Symbol Symbol::GetChildren() const {
  Symbol s;
  std::unordered_set<const Node*> seen;
  for (const auto& e : outputs) {
    if (!seen.insert(e.node.get()).second) continue;  // a multi-output node's inputs once
    for (const auto& in : e.node->inputs) s.outputs.push_back(in);
  }
  return s;
}

std::vector<NodePtr> Symbol::ListInputs(InputOption option) const {
  std::vector<NodePtr> order = TopoNodes();
  std::unordered_set<const Node*> mutated;
  for (const auto& n : order)
    for (uint32_t i = 0; i < n->inputs.size(); ++i)
      if (IsMutatedInput(*n, i)) mutated.insert(n->inputs[i].node.get());
  std::vector<NodePtr> res;
  for (const auto& n : order) {
    if (!n->is_variable()) continue;
    const bool aux = mutated.count(n.get()) > 0;
    if (option == InputOption::kAll || (option == InputOption::kAuxiliaryStates) == aux) res.push_back(n);
  }
  return res;
}

std::vector<std::string> Symbol::ListInputNames(InputOption option) const {
  std::vector<std::string> names;
  for (const auto& n : ListInputs(option)) names.push_back(n->attrs.name);
  return names;
}

std::vector<std::string> Symbol::ListOutputNames() const {
  std::vector<std::string> names;
  for (const auto& e : outputs) names.push_back(OutputName(e));
  return names;
}

bool Symbol::GetName(std::string* out) const {
  if (outputs.empty()) return false;
  const Node* n = outputs[0].node.get();
  for (const auto& e : outputs)
    if (e.node.get() != n) return false;
  *out = n->attrs.name;
  return true;
}

bool Symbol::GetAttr(const std::string& key, std::string* out) const {
  if (outputs.empty()) return false;
  const Node* n = outputs[0].node.get();
  for (const auto& e : outputs)
    if (e.node.get() != n) return false;
  auto it = n->attrs.dict.find(key);
  if (it == n->attrs.dict.end()) it = n->attrs.dict.find("__" + key + "__");
  if (it == n->attrs.dict.end()) return false;
  *out = it->second;
  return true;
}

void Symbol::SetAttr(const std::string& key, const std::string& value) {
  MX_CHECK_KIND(!outputs.empty(), "ValueError") << "set_attr on an empty symbol";
  std::unordered_set<Node*> heads;
  for (auto& e : outputs) heads.insert(e.node.get());
  MX_CHECK_KIND(heads.size() == 1, "ValueError") << "set_attr is only valid on a symbol with a single head node";
  Node* n = *heads.begin();
  n->attrs.dict[HiddenKey(key)] = value;
  // A parameter change must reach the parsed struct; annotations are not parsed.
  if (!n->is_variable() && key.compare(0, 2, "__") != 0) ReparseAttrs(n);
}

std::vector<std::pair<std::string, std::string>> Symbol::ListAttrs(bool recursive) const {
  // Annotations such as __lr_mult__ are reported under both spellings, as MXNet does.
  auto with_plain = [](const Node& n) {
    auto attrs = SortedAttrs(n);
    for (const char* h : kHiddenKeys) {
      auto it = attrs.find("__" + std::string(h) + "__");
      if (it != attrs.end()) attrs.emplace(h, it->second);
    }
    return attrs;
  };
  std::vector<std::pair<std::string, std::string>> res;
  if (!recursive) {
    if (outputs.empty()) return res;
    for (const auto& kv : with_plain(*outputs[0].node)) res.push_back(kv);
    return res;
  }
  for (const NodePtr& n : TopoNodes())
    for (const auto& kv : with_plain(*n)) res.emplace_back(n->attrs.name + "$" + kv.first, kv.second);
  return res;
}

std::string Symbol::DebugStr() const {
  std::ostringstream os;
  os << "Symbol Outputs:\n";
  for (const auto& e : outputs) os << "\toutput[" << (&e - outputs.data()) << "]=" << OutputName(e) << "(0)\n";
  for (const NodePtr& n : TopoNodes()) {
    if (n->is_variable()) {
      os << "Variable:" << n->attrs.name << "\n";
      continue;
    }
    os << "--------------------\n";
    os << "Op:" << n->op()->name << ", Name=" << n->attrs.name << "\n";
    os << "Inputs:\n";
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const auto& in = n->inputs[i];
      os << "\targ[" << i << "]=" << (in.node->is_variable() ? in.node->attrs.name : OutputName(in)) << "("
         << in.index << ")";
      if (in.node->is_variable()) os << " version=" << in.version;
      os << "\n";
    }
    const auto attrs = SortedAttrs(*n);
    if (!attrs.empty()) {
      os << "Attrs:\n";
      for (const auto& kv : attrs) os << "\t" << kv.first << "=" << kv.second << "\n";
    }
    if (!n->control_deps.empty()) {
      os << "Control deps:\n";
      for (size_t i = 0; i < n->control_deps.size(); ++i)
        os << "\tcdep[" << i << "]=" << n->control_deps[i]->attrs.name << "\n";
    }
  }
  return os.str();
}

}  // namespace graph
}  // namespace mxnet
