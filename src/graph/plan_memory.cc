/*!
 * \file plan_memory.cc
 * \brief The planner: one pass in execution order with reference counts per entry and a
 *        free list of blocks per (colour, dtype) ordered by size.
 */
#include "graph/plan_memory.h"

#include <algorithm>
#include <map>

namespace mxnet {
namespace graph {
namespace {

/*! \brief Colours the num_temp-1 longest remaining paths 1..num_temp-1; the rest stay 0. */
std::vector<int> ColorPaths(const IndexedGraph& g, int num_temp) {
  const auto& nodes = g.nodes();
  std::vector<int> color(nodes.size(), 0);
  std::vector<bool> taken(nodes.size(), false);
  for (int c = 1; c < num_temp; ++c) {
    std::vector<int> len(nodes.size(), 0), prev(nodes.size(), -1);
    int best = -1;
    for (uint32_t nid = 0; nid < nodes.size(); ++nid) {
      if (taken[nid] || nodes[nid]->is_variable()) continue;
      len[nid] = 1;
      for (const auto& in : nodes[nid]->inputs) {
        const uint32_t p = g.node_id(in.node.get());
        if (!taken[p] && !nodes[p]->is_variable() && len[p] + 1 > len[nid]) {
          len[nid] = len[p] + 1;
          prev[nid] = static_cast<int>(p);
        }
      }
      if (best < 0 || len[nid] > len[best]) best = static_cast<int>(nid);
    }
    if (best < 0) break;
    for (int x = best; x >= 0; x = prev[x]) {
      taken[x] = true;
      color[x] = c;
    }
  }
  return color;
}

}  // namespace

MemoryPlan PlanMemory(const IndexedGraph& g, const std::vector<TShape>& shapes, const std::vector<int>& dtypes,
                      const std::vector<bool>& external, const PlanOptions& opt) {
  const auto& nodes = g.nodes();
  const uint32_t ne = g.num_entries();
  MemoryPlan plan;
  plan.storage_id.assign(ne, -1);
  plan.inplace.assign(ne, false);
  plan.color = ColorPaths(g, std::max(1, opt.num_temp));

  std::vector<int> refcount(ne, 0);
  for (const auto& n : nodes)
    for (const auto& in : n->inputs) ++refcount[g.entry_id(in)];
  for (const auto& o : g.outputs()) ++refcount[g.entry_id(o)];
  for (uint32_t e = 0; e < ne; ++e)
    if (external[e]) plan.storage_id[e] = MemoryPlan::kExternal;

  std::vector<int> block_users;  // live entries per block
  std::vector<int> block_color;
  // (colour, dtype) -> size -> block
  std::map<std::pair<int, int>, std::multimap<size_t, int>> free_blocks;
  auto bytes_of = [&](uint32_t e) { return static_cast<size_t>(shapes[e].Size()) * DTypeSize(dtypes[e]); };
  auto release = [&](int sid) {
    if (sid < 0 || --block_users[sid] > 0) return;
    free_blocks[{block_color[sid], plan.block_dtype[sid]}].emplace(plan.block_bytes[sid], sid);
  };
  auto allocate = [&](uint32_t e, int color) {
    const size_t size = std::max<size_t>(bytes_of(e), 1);
    plan.unshared_bytes += size;
    int sid = -1;
    if (opt.match_range > 0) {
      auto& fl = free_blocks[{color, dtypes[e]}];
      const size_t range = static_cast<size_t>(opt.match_range);
      // A block of exactly this size first: the entry then covers its whole block, which is
      // what lets a kernel keep its own layout there (NDArray::opaque_layout). Else the
      // smallest free block at least as large, within range; else the largest smaller one.
      auto it = fl.lower_bound(size);
      if (it != fl.end() && it->first == size) {
        sid = it->second;
        fl.erase(it);
      } else if (it != fl.end() && it->first <= size * range) {
        sid = it->second;
        fl.erase(it);
      } else if (it != fl.begin()) {
        --it;
        if (it->first * range >= size) {
          sid = it->second;
          plan.block_bytes[sid] = size;  // the block grows to the larger size
          fl.erase(it);
        }
      }
    }
    if (sid >= 0) {
      ++plan.num_shared;
    } else {
      sid = static_cast<int>(plan.block_bytes.size());
      plan.block_bytes.push_back(size);
      plan.block_dtype.push_back(dtypes[e]);
      block_users.push_back(0);
      block_color.push_back(color);
    }
    ++block_users[sid];
    plan.storage_id[e] = sid;
  };

  for (uint32_t nid = 0; nid < nodes.size(); ++nid) {
    const Node& n = *nodes[nid];
    if (n.is_variable()) continue;
    const uint32_t nout = g.num_outputs(nid);
    std::vector<bool> done(nout, false);
    if (opt.enable_inplace && n.op()->inplace_option) {
      for (const auto& pr : n.op()->inplace_option(n.attrs)) {
        if (pr.first < 0 || pr.second < 0 || static_cast<uint32_t>(pr.first) >= n.inputs.size() ||
            static_cast<uint32_t>(pr.second) >= nout || done[pr.second])
          continue;
        const uint32_t ein = g.entry_id(n.inputs[pr.first]), eout = g.entry_id(nid, pr.second);
        const int sid = plan.storage_id[ein];
        if (external[eout] || sid < 0 || refcount[ein] != 1 || refcount[eout] == 0) continue;
        if (block_users[sid] != 1 || shapes[ein] != shapes[eout] || dtypes[ein] != dtypes[eout]) continue;
        if (IsMutatedInput(n, pr.first)) continue;
        plan.storage_id[eout] = sid;
        plan.inplace[eout] = true;
        ++block_users[sid];
        ++plan.num_inplace;
        plan.unshared_bytes += bytes_of(eout);
        done[pr.second] = true;
      }
    }
    // Remaining outputs, largest first.
    std::vector<uint32_t> order;
    for (uint32_t o = 0; o < nout; ++o)
      if (!done[o] && !external[g.entry_id(nid, o)]) order.push_back(o);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return bytes_of(g.entry_id(nid, a)) > bytes_of(g.entry_id(nid, b));
    });
    for (uint32_t o : order) allocate(g.entry_id(nid, o), plan.color[nid]);
    // Inputs read for the last time, then outputs nothing reads.
    for (const auto& in : n.inputs) {
      const uint32_t e = g.entry_id(in);
      if (--refcount[e] == 0) release(plan.storage_id[e]);
    }
    for (uint32_t o = 0; o < nout; ++o) {
      const uint32_t e = g.entry_id(nid, o);
      if (refcount[e] == 0) release(plan.storage_id[e]);
    }
  }
  for (size_t b : plan.block_bytes) plan.planned_bytes += b;
  return plan;
}

}  // namespace graph
}  // namespace mxnet
