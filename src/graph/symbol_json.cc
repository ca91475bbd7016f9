/*!
 * \file symbol_json.cc
 * \brief Symbol JSON save and load. The writer reproduces dmlc's JSONWriter layout that
 *        MXNet uses (", " + newline separators, one-key objects and entry lists inline), so
 *        a loaded file saves back to the same bytes.
 */
#include "graph/symbol_json.h"

#include <cmath>
#include <sstream>
#include <unordered_map>

#include "graph/json_value.h"

namespace mxnet {
namespace graph {
namespace {

void WriteAttrs(std::ostringstream& os, const std::map<std::string, std::string>& attrs, const std::string& indent) {
  if (attrs.size() == 1) {
    os << "{" << JsonQuote(attrs.begin()->first) << ": " << JsonQuote(attrs.begin()->second) << "}";
    return;
  }
  os << "{";
  bool first = true;
  for (const auto& kv : attrs) {
    os << (first ? "" : ", ") << "\n" << indent << "  " << JsonQuote(kv.first) << ": " << JsonQuote(kv.second);
    first = false;
  }
  os << "\n" << indent << "}";
}

/*! \brief dmlc writes integer arrays of more than 10 items one per line. */
void WriteIntArray(std::ostringstream& os, const std::vector<size_t>& v) {
  const bool multi = v.size() > 10;
  os << "[";
  for (size_t k = 0; k < v.size(); ++k) os << (k ? ", " : "") << (multi ? "\n    " : "") << v[k];
  os << (multi ? "\n  ]" : "]");
}

// ---- loading ----------------------------------------------------------------------------

[[noreturn]] void Bad(const std::string& where, const std::string& what) {
  MX_THROW("ValueError") << "symbol JSON: " << where << ": " << what;
  std::abort();
}

const JsonValue& Need(const JsonValue& obj, const std::string& key, JsonValue::Kind kind, const std::string& where) {
  const JsonValue* v = obj.Find(key);
  if (!v) Bad(where, "missing field \"" + key + "\"");
  if (v->kind != kind) Bad(where, "field \"" + key + "\" is " + v->KindName());
  return *v;
}

int64_t IntOf(const JsonValue& v, const std::string& where) {
  if (v.kind != JsonValue::kNumber || v.number != std::floor(v.number) || std::fabs(v.number) > 1e15)
    Bad(where, std::string("expected an integer, got ") + v.KindName());
  return static_cast<int64_t>(v.number);
}

void ReadStringMap(const JsonValue& obj, const std::string& where, std::unordered_map<std::string, std::string>* out,
                   bool legacy_attr) {
  if (obj.kind != JsonValue::kObject) Bad(where, std::string("attributes must be an object, got ") + obj.KindName());
  for (const auto& m : obj.members) {
    if (m.second.kind != JsonValue::kString)
      Bad(where, "attribute \"" + m.first + "\" must be a string, got " + m.second.KindName());
    std::string key = m.first;
    // 0.8-era files keep graph annotations without underscores.
    // 0.8-era files keep annotations apart from params and without underscores; later
    // versions mark them __key__ so the op's parser skips them.
    if (legacy_attr && key.compare(0, 2, "__") != 0) key = "__" + key + "__";
    (*out)[key] = m.second.str;
  }
}

/*!
 * \brief 0.8-era files annotate an op with "<input>_lr_mult" (e.g. weight_lr_mult) meaning
 *        the input's variable: it becomes that variable's __lr_mult__.
 */
void MoveInputAnnotations(Node* n) {
  const auto names = n->op()->InputNames(n->attrs);
  for (const char* h : {"lr_mult", "wd_mult", "ctx_group", "force_mirroring", "mirror_stage"}) {
    for (size_t i = 0; i < names.size() && i < n->inputs.size(); ++i) {
      auto it = n->attrs.dict.find("__" + names[i] + "_" + h + "__");
      if (it == n->attrs.dict.end()) continue;
      if (n->inputs[i].node->is_variable()) n->inputs[i].node->attrs.dict["__" + std::string(h) + "__"] = it->second;
      n->attrs.dict.erase(it);
    }
  }
}

uint32_t NumOutputsOf(const Node& n) { return n.is_variable() ? 1 : n.op()->NumOutputs(n.attrs); }

NodeEntry ReadEntry(const JsonValue& v, const std::vector<NodePtr>& nodes, size_t limit, size_t total,
                    const std::string& where) {
  if (v.kind != JsonValue::kArray || v.items.size() < 2 || v.items.size() > 3)
    Bad(where, "an entry must be [node, output] or [node, output, version]");
  const int64_t id = IntOf(v.items[0], where), index = IntOf(v.items[1], where);
  const int64_t version = v.items.size() == 3 ? IntOf(v.items[2], where) : 0;
  if (id < 0 || static_cast<size_t>(id) >= limit)
    Bad(where, "entry refers to node " + std::to_string(id) +
                   (id >= 0 && static_cast<size_t>(id) < total
                        ? ", which does not come before it (a cycle or forward reference)"
                        : ", which does not exist"));
  const NodePtr& n = nodes[id];
  if (index < 0 || index >= NumOutputsOf(*n))
    Bad(where, "entry refers to output " + std::to_string(index) + " of node " + std::to_string(id) + " (" +
                   n->attrs.name + "), which has " + std::to_string(NumOutputsOf(*n)));
  if (version < 0 || version > (1 << 30)) Bad(where, "entry version out of range");
  return NodeEntry{n, static_cast<uint32_t>(index), static_cast<uint32_t>(version)};
}

}  // namespace

std::string SaveJson(const Symbol& s) {
  const std::vector<NodePtr> nodes = s.TopoNodes();
  std::unordered_map<const Node*, size_t> id;
  for (size_t i = 0; i < nodes.size(); ++i) id[nodes[i].get()] = i;
  auto entry = [&](const NodeEntry& e) {
    return "[" + std::to_string(id.at(e.node.get())) + ", " + std::to_string(e.index) + ", " +
           std::to_string(e.version) + "]";
  };
  std::ostringstream os;
  os << "{\n  \"nodes\": [";
  std::vector<size_t> arg_nodes, row_ptr{0};
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    if (n.is_variable()) arg_nodes.push_back(i);
    row_ptr.push_back(row_ptr.back() + NumOutputsOf(n));
    os << (i ? ", " : "") << "\n    {\n";
    os << "      \"op\": " << JsonQuote(n.is_variable() ? "null" : n.op()->name) << ", \n";
    os << "      \"name\": " << JsonQuote(n.attrs.name) << ", \n";
    const auto attrs = SortedAttrs(n);
    if (!attrs.empty()) {
      os << "      \"attrs\": ";
      WriteAttrs(os, attrs, "      ");
      os << ", \n";
    }
    os << "      \"inputs\": [";
    for (size_t k = 0; k < n.inputs.size(); ++k) os << (k ? ", " : "") << entry(n.inputs[k]);
    os << "]";
    if (!n.control_deps.empty()) {
      os << ", \n      \"control_deps\": [";
      for (size_t k = 0; k < n.control_deps.size(); ++k) os << (k ? ", " : "") << id.at(n.control_deps[k].get());
      os << "]";
    }
    os << "\n    }";
  }
  os << "\n  ], \n  \"arg_nodes\": ";
  WriteIntArray(os, arg_nodes);
  os << ", \n  \"node_row_ptr\": ";
  WriteIntArray(os, row_ptr);
  os << ", \n  \"heads\": [";
  for (size_t k = 0; k < s.outputs.size(); ++k) os << (k ? ", " : "") << entry(s.outputs[k]);
  os << "], \n  \"attrs\": {\"mxnet_version\": [\"int\", " << kJsonVersion << "]}\n}";
  return os.str();
}

Symbol LoadJson(const std::string& text) {
  const JsonValue root = ParseJson(text);
  if (root.kind != JsonValue::kObject) Bad("document", std::string("must be an object, got ") + root.KindName());
  const JsonValue& jnodes = Need(root, "nodes", JsonValue::kArray, "document");
  bool legacy = true;  // no mxnet_version: a file from before 0.9
  if (const JsonValue* attrs = root.Find("attrs")) {
    if (attrs->kind != JsonValue::kObject) Bad("document", "field \"attrs\" must be an object");
    if (const JsonValue* ver = attrs->Find("mxnet_version")) {
      if (ver->kind != JsonValue::kArray || ver->items.size() != 2) Bad("attrs", "mxnet_version must be [\"int\", N]");
      legacy = IntOf(ver->items[1], "attrs.mxnet_version") < 900;
    }
  }
  std::vector<NodePtr> nodes;
  nodes.reserve(jnodes.items.size());
  for (size_t i = 0; i < jnodes.items.size(); ++i) {
    const JsonValue& jn = jnodes.items[i];
    std::string where = "node " + std::to_string(i);
    if (jn.kind != JsonValue::kObject) Bad(where, std::string("must be an object, got ") + jn.KindName());
    const std::string& op_name = Need(jn, "op", JsonValue::kString, where).str;
    const std::string& name = Need(jn, "name", JsonValue::kString, where).str;
    where += " (" + name + ")";
    NodePtr n = Node::Create();
    n->attrs.name = name;
    if (const JsonValue* a = jn.Find("attrs")) ReadStringMap(*a, where, &n->attrs.dict, false);
    if (const JsonValue* a = jn.Find("attr")) ReadStringMap(*a, where, &n->attrs.dict, true);
    if (const JsonValue* a = jn.Find("param")) ReadStringMap(*a, where, &n->attrs.dict, false);
    const JsonValue& jin = Need(jn, "inputs", JsonValue::kArray, where);
    for (const auto& e : jin.items) n->inputs.push_back(ReadEntry(e, nodes, i, jnodes.items.size(), where));
    if (const JsonValue* cd = jn.Find("control_deps")) {
      if (cd->kind != JsonValue::kArray) Bad(where, "control_deps must be an array");
      for (const auto& d : cd->items) {
        const int64_t id = IntOf(d, where);
        if (id < 0 || static_cast<size_t>(id) >= i) Bad(where, "control dependency on node " + std::to_string(id) + ", which does not come before it");
        n->control_deps.push_back(nodes[id]);
      }
    }
    if (op_name != "null") {
      const op::Op* op = op::Op::Find(op_name);
      if (!op) Bad(where, "unknown operator \"" + op_name + "\"");
      n->attrs.op = op;
      if (!op->key_var_num_args.empty() && !n->attrs.dict.count(op->key_var_num_args))
        n->attrs.dict[op->key_var_num_args] = std::to_string(n->inputs.size());
      try {
        ReparseAttrs(n.get());
      } catch (const Error& e) {
        Bad(where, e.what());
      }
      const uint32_t nin = op->NumInputs(n->attrs);
      if (legacy && n->inputs.size() < nin) {
        // Old files omit inputs later versions added (BatchNorm's moving statistics).
        const auto names = op->InputNames(n->attrs);
        for (size_t k = n->inputs.size(); k < nin; ++k) {
          // As composition makes them: the op's attributes, statistics starting at 0 and 1.
          NodePtr v = Node::Create();
          v->attrs.name = name + "_" + names[k];
          v->attrs.dict = n->attrs.dict;
          const bool mutated = IsMutatedInput(*n, static_cast<uint32_t>(k));
          if (mutated && names[k].find("var") != std::string::npos) v->attrs.dict["__init__"] = "[\"one\", {}]";
          else if (mutated && names[k].find("mean") != std::string::npos) v->attrs.dict["__init__"] = "[\"zero\", {}]";
          n->inputs.push_back(NodeEntry{v, 0, mutated ? 1u : 0u});
        }
      }
      if (n->inputs.size() != nin)
        Bad(where, "operator " + op_name + " takes " + std::to_string(nin) + " inputs, the file gives " +
                       std::to_string(n->inputs.size()));
      if (legacy) MoveInputAnnotations(n.get());
    } else if (!n->inputs.empty()) {
      Bad(where, "a variable (op \"null\") cannot have inputs");
    }
    nodes.push_back(n);
  }
  if (const JsonValue* args = root.Find("arg_nodes")) {
    if (args->kind != JsonValue::kArray) Bad("document", "field \"arg_nodes\" must be an array");
    for (const auto& a : args->items) {
      const int64_t id = IntOf(a, "arg_nodes");
      if (id < 0 || static_cast<size_t>(id) >= nodes.size()) Bad("arg_nodes", "node " + std::to_string(id) + " does not exist");
      if (!nodes[id]->is_variable()) Bad("arg_nodes", "node " + std::to_string(id) + " (" + nodes[id]->attrs.name + ") is not a variable");
    }
  }
  if (const JsonValue* rp = root.Find("node_row_ptr"))
    if (rp->kind != JsonValue::kArray) Bad("document", "field \"node_row_ptr\" must be an array");
  const JsonValue& heads = Need(root, "heads", JsonValue::kArray, "document");
  if (heads.items.empty()) Bad("heads", "a symbol needs at least one output");
  Symbol s;
  for (const auto& h : heads.items) s.outputs.push_back(ReadEntry(h, nodes, nodes.size(), nodes.size(), "heads"));
  return s;
}

}  // namespace graph
}  // namespace mxnet
