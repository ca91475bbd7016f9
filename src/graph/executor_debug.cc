/*!
 * \file executor_debug.cc
 * \brief The executor's readable listing (debug_str) and the graph dump that
 *        MXNET_GRAPH_DUMP_DIR asks for (JSON plus the listing, one pair per bound graph).
 */
#include <atomic>
#include <fstream>
#include <sstream>

#include "graph/executor.h"
#include "graph/symbol_json.h"
#include "mxnet/env.h"

namespace mxnet {
namespace graph {

std::string GraphExecutor::DebugStr() const {
  const IndexedGraph& g = *graph_;
  std::ostringstream os;
  os << optimized_.DebugStr();
  os << "--------------------\nBound graph (" << g.num_nodes() << " nodes, " << num_forward_nodes_
     << " forward; CSE removed " << num_cse_removed_ << ", mirrored " << num_mirrored_ << "):\n";
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& n = *g.nodes()[nid];
    os << "  #" << nid << " " << (n.is_variable() ? std::string("Variable") : n.op()->name) << " " << n.attrs.name;
    if (!n.is_variable()) os << " segment=" << segment_[nid] << " colour=" << plan_.color[nid];
    os << "\n";
    for (uint32_t o = 0; o < g.num_outputs(nid); ++o) {
      const uint32_t e = g.entry_id(nid, o);
      const int sid = plan_.storage_id[e];
      os << "      out" << o << " shape=" << shapes_[e] << " dtype=" << dtypes_[e] << " storage=";
      if (sid == MemoryPlan::kExternal) os << "external";
      else os << sid << (plan_.inplace[e] ? " (in place)" : "") << (entries_[e].whole_chunk() ? "" : " (part of its block)");
      os << "\n";
    }
  }
  os << "Total " << (plan_.planned_bytes >> 20) << " MB allocated (" << plan_.planned_bytes << " bytes planned, "
     << plan_.unshared_bytes << " bytes unshared; " << plan_.num_inplace << " in place, " << plan_.num_shared
     << " shared)\n";
  return os.str();
}

void GraphExecutor::DumpIfAsked() const {
  const std::string dir = env::GetString(env::Var::MXNET_GRAPH_DUMP_DIR);
  if (dir.empty()) return;
  static std::atomic<int> counter{0};
  const std::string base = dir + "/graph_" + std::to_string(counter++);
  Symbol full;
  full.outputs = graph_->outputs();
  std::ofstream js(base + ".json");
  std::ofstream txt(base + ".txt");
  MX_CHECK_KIND(js && txt, "IOError") << "MXNET_GRAPH_DUMP_DIR: cannot write " << base
                                      << ".json / .txt (does the folder exist and is it writable?)";
  js << SaveJson(full);
  txt << DebugStr();
}

}  // namespace graph
}  // namespace mxnet
