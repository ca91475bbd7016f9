/*!
 * \file indexed_graph.cc
 * \brief IndexedGraph and the shape / dtype inference sweeps over it.
 */
#include "graph/indexed_graph.h"

#include <cstdlib>
#include <sstream>

namespace mxnet {
namespace graph {

IndexedGraph::IndexedGraph(const std::vector<NodeEntry>& outputs) : outputs_(outputs) {
  Symbol s;
  s.outputs = outputs;
  nodes_ = s.TopoNodes();
  row_ptr_.assign(1, 0);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = *nodes_[i];
    node_id_[&n] = i;
    row_ptr_.push_back(row_ptr_.back() + (n.is_variable() ? 1 : n.op()->NumOutputs(n.attrs)));
    if (n.is_variable()) input_nodes_.push_back(i);
  }
}

TShape ShapeAttr(const Node& n) {
  auto it = n.attrs.dict.find("__shape__");
  if (it == n.attrs.dict.end()) return TShape();
  TShape s;
  try {
    s = TShape::Parse(it->second);
  } catch (const Error&) {
    MX_THROW("ValueError") << "variable " << n.attrs.name << ": __shape__ '" << it->second << "' is not a shape";
  }
  for (int i = 0; i < s.ndim(); ++i)
    if (s[i] == 0) s[i] = -1;  // legacy: 0 means unknown
  return s;
}

int DtypeAttr(const Node& n) {
  auto it = n.attrs.dict.find("__dtype__");
  if (it == n.attrs.dict.end()) return -1;
  char* end = nullptr;
  const long v = std::strtol(it->second.c_str(), &end, 10);
  MX_CHECK_KIND(end && *end == '\0' && v >= -1 && v < 16, "ValueError")
      << "variable " << n.attrs.name << ": __dtype__ '" << it->second << "' is not a type flag";
  return static_cast<int>(v);
}

namespace {

/*! \brief Re-raises an op's inference error with the node's name in front. */
[[noreturn]] void RethrowForNode(const Node& n, const Error& e) {
  std::string msg = e.what();
  MX_THROW(e.kind()) << "Error in operator " << n.attrs.name << " (" << n.op()->name << "): " << msg;
  std::abort();
}

/*! \brief Whether f is the generic elementwise rule, which fills any entry from any other. */
template <typename Fn, typename Ptr>
bool IsGeneric(const Fn& f, Ptr generic) {
  const Ptr* p = f.template target<Ptr>();
  return p != nullptr && *p == generic;
}

template <typename T, typename Known, typename Infer, typename AnyInput, typename Show>
size_t Sweep(const IndexedGraph& g, std::vector<T>* values, Known known, Infer infer, AnyInput any_input, Show show,
             const char* what) {
  const auto& nodes = g.nodes();
  for (int iter = 0; iter < 8; ++iter) {
    bool changed = false;
    for (uint32_t nid = 0; nid < nodes.size(); ++nid) {
      const Node& n = *nodes[nid];
      if (n.is_variable()) continue;
      const uint32_t nin = static_cast<uint32_t>(n.inputs.size()), nout = g.num_outputs(nid);
      std::vector<T> in(nin), out(nout);
      for (uint32_t i = 0; i < nin; ++i) in[i] = (*values)[g.entry_id(n.inputs[i])];
      bool all_out = true;
      for (uint32_t o = 0; o < nout; ++o) {
        out[o] = (*values)[g.entry_id(nid, o)];
        all_out = all_out && known(out[o]);
      }
      bool all_in = true;
      for (const auto& v : in) all_in = all_in && known(v);
      if (all_in && all_out) continue;
      // Kernels' inference functions read their first input; call them once it is known,
      // except the generic elementwise rules, which infer a wholly unknown first input from
      // the others (elemwise_add(a, b) with only b given, as in 1.x). any_input: 0 wait for
      // the first input, 1 try now (an error then only means "not yet"), 2 call.
      const int gate = nin > 0 && !known(in[0]) ? any_input(n, in[0]) : 2;
      if (gate == 0) continue;
      const std::vector<T> in0 = in, out0 = out;
      try {
        infer(n, &in, &out);
      } catch (const Error& e) {
        if (gate == 1) continue;  // asked early; it needs its first input after all
        RethrowForNode(n, e);
      }
      auto merge = [&](const T& before, const T& after, uint32_t eid, const char* side, uint32_t idx) {
        if (!known(after) || after == before) return;
        if (known(before)) {
          std::ostringstream b, a;
          b << show(before);
          a << show(after);
          MX_THROW("ValueError") << "Error in operator " << n.attrs.name << " (" << n.op()->name << "): " << what
                                 << " of " << side << " " << idx << " is " << b.str() << " but the operator infers "
                                 << a.str();
        }
        (*values)[eid] = after;
        changed = true;
      };
      for (uint32_t i = 0; i < nin; ++i) merge(in0[i], in[i], g.entry_id(n.inputs[i]), "input", i);
      for (uint32_t o = 0; o < nout; ++o) merge(out0[o], out[o], g.entry_id(nid, o), "output", o);
    }
    if (!changed) break;
  }
  size_t unknown = 0;
  for (const auto& v : *values) unknown += known(v) ? 0 : 1;
  return unknown;
}

}  // namespace

size_t InferShapes(const IndexedGraph& g, std::vector<TShape>* shapes) {
  return Sweep(
      g, shapes, [](const TShape& s) { return s.IsKnown(); },
      [](const Node& n, std::vector<TShape>* in, std::vector<TShape>* out) {
        MX_CHECK_KIND(static_cast<bool>(n.op()->infer_shape), "ValueError") << n.op()->name << " has no shape inference";
        n.op()->infer_shape(n.attrs, in, out);
      },
      [](const Node& n, const TShape& in0) {
        return in0.ndim() < 0 && IsGeneric(n.op()->infer_shape, &op::ElemwiseShape) ? 2 : 0;
      },
      [](const TShape& s) { return s; }, "shape");
}

size_t InferTypes(const IndexedGraph& g, std::vector<int>* types) {
  return Sweep(
      g, types, [](int t) { return t >= 0; },
      [](const Node& n, std::vector<int>* in, std::vector<int>* out) {
        if (n.op()->infer_type) {
          n.op()->infer_type(n.attrs, in, out);
        } else {
          ElemwiseType(n.attrs, in, out);
        }
      },
      // Type rules compare flags, never index by them: any may run early (Cast fixes its
      // output whatever its input), and one that needs its first input says so by failing.
      [](const Node& n, int) {
        return !n.op()->infer_type || IsGeneric(n.op()->infer_type, &op::ElemwiseType) ? 2 : 1;
      },
      [](int t) { return t; }, "dtype");
}

}  // namespace graph
}  // namespace mxnet
