/*!
 * \file symbol_infer.cc
 * \brief Whole-symbol inference over an IndexedGraph of its outputs.
 */
#include "graph/symbol_infer.h"

#include <unordered_map>

#include "graph/indexed_graph.h"

namespace mxnet {
namespace graph {
namespace {

template <typename T, typename Default, typename Known, typename Run>
SymbolInference<T> InferImpl(const Symbol& s, const std::map<std::string, T>& known, T unknown, Default attr_default,
                             Known is_known, Run run) {
  IndexedGraph g(s.outputs);
  std::vector<T> values(g.num_entries(), unknown);
  std::unordered_map<std::string, uint32_t> by_name;
  for (uint32_t nid : g.input_nodes()) {
    const Node& n = *g.nodes()[nid];
    by_name[n.attrs.name] = g.entry_id(nid, 0);
    values[g.entry_id(nid, 0)] = attr_default(n);
  }
  for (const auto& kv : known) {
    auto it = by_name.find(kv.first);
    MX_CHECK_KIND(it != by_name.end(), "ValueError")
        << "infer: " << kv.first << " is not an input of the symbol (inputs: "
        << [&] {
             std::string all;
             for (const auto& n : s.ListInputNames(InputOption::kAll)) all += (all.empty() ? "" : ", ") + n;
             return all;
           }()
        << ")";
    values[it->second] = kv.second;
  }
  run(g, &values);
  SymbolInference<T> res;
  res.complete = true;
  for (const auto& n : s.ListInputs(InputOption::kReadOnlyArgs)) res.args.push_back(values[g.entry_id(g.node_id(n.get()), 0)]);
  for (const auto& n : s.ListInputs(InputOption::kAuxiliaryStates)) res.aux.push_back(values[g.entry_id(g.node_id(n.get()), 0)]);
  for (const auto& e : s.outputs) res.outputs.push_back(values[g.entry_id(e)]);
  for (const auto* v : {&res.args, &res.aux, &res.outputs})
    for (const auto& x : *v) res.complete = res.complete && is_known(x);
  return res;
}

}  // namespace

SymbolInference<TShape> InferSymbolShapes(const Symbol& s, const std::map<std::string, TShape>& known) {
  return InferImpl<TShape>(
      s, known, TShape(),
      [](const Node& n) {
        TShape a = ShapeAttr(n);
        return a.IsKnown() ? a : TShape();  // a partly known default is left to inference
      },
      [](const TShape& t) { return t.IsKnown(); },
      [](const IndexedGraph& g, std::vector<TShape>* v) { InferShapes(g, v); });
}

SymbolInference<int> InferSymbolTypes(const Symbol& s, const std::map<std::string, int>& known) {
  return InferImpl<int>(
      s, known, -1, [](const Node& n) { return DtypeAttr(n); }, [](int t) { return t >= 0; },
      [](const IndexedGraph& g, std::vector<int>* v) { InferTypes(g, v); });
}

}  // namespace graph
}  // namespace mxnet
