// Reduction trees from a link matrix: validation, one tree per root with link-usage penalties
// between trees, and the readable description.
#include "kvstore/comm_tree.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/logging.h"
#include "kvstore/comm_tree_search.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

using tree_search::DepthEdge;
using tree_search::LinkWeights;

void ValidateLinkMatrix(const LinkMatrix& links) {
  const size_t n = links.size();
  MX_CHECK_KIND(n > 0, "ValueError") << "link matrix is empty: it needs one row per device";
  for (size_t i = 0; i < n; ++i) {
    MX_CHECK_KIND(links[i].size() == n, "ValueError")
        << "link matrix must be square: row " << i << " has " << links[i].size() << " entries, expected " << n;
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const float v = links[i][j];
      MX_CHECK_KIND(std::isfinite(v), "ValueError")
          << "link matrix entry [" << i << "][" << j << "] is " << v << ": it must be a finite bandwidth >= 0";
      MX_CHECK_KIND(v >= 0, "ValueError")
          << "link matrix entry [" << i << "][" << j << "] = " << v
          << " is negative: it must be a bandwidth >= 0 (0 = no direct link)";
      MX_CHECK_KIND(v == links[j][i], "ValueError")
          << "link matrix must be symmetric: [" << i << "][" << j << "] = " << v << " but [" << j << "][" << i
          << "] = " << links[j][i];
    }
  }
}

namespace {

/*! \brief Groups of devices joined by direct links, each sorted, in order of their first device. */
std::vector<std::vector<int>> LinkedGroups(const LinkMatrix& links) {
  const int n = static_cast<int>(links.size());
  std::vector<int> group_of(n, -1);
  std::vector<std::vector<int>> groups;
  for (int start = 0; start < n; ++start) {
    if (group_of[start] >= 0) continue;
    std::vector<int> members{start};
    group_of[start] = static_cast<int>(groups.size());
    for (size_t k = 0; k < members.size(); ++k) {
      for (int j = 0; j < n; ++j) {
        if (j != members[k] && group_of[j] < 0 && links[members[k]][j] > 0) {
          group_of[j] = group_of[start];
          members.push_back(j);
        }
      }
    }
    std::sort(members.begin(), members.end());
    groups.push_back(members);
  }
  return groups;
}

void WarnIfDisconnected(const LinkMatrix& links) {
  const auto groups = LinkedGroups(links);
  if (groups.size() <= 1) return;
  std::ostringstream msg;
  msg << "kvstore reduction trees: the devices form " << groups.size()
      << " groups with no direct link between them (";
  for (size_t g = 0; g < groups.size(); ++g) {
    msg << (g ? ", " : "") << "{";
    for (size_t k = 0; k < groups[g].size(); ++k) msg << (k ? "," : "") << groups[g][k];
    msg << "}";
  }
  msg << "); sums cross between the groups through host memory, which is slower.";
  common::LogWarning(msg.str());
}

/*! \brief Levels from split depths: the deepest splits reduce first. */
ReductionTree Assemble(int root, const std::vector<DepthEdge>& edges) {
  ReductionTree tree;
  tree.root = root;
  int depth = 0;
  for (const DepthEdge& e : edges) depth = std::max(depth, e.depth + 1);
  tree.levels.resize(depth);
  for (const DepthEdge& e : edges) tree.levels[depth - 1 - e.depth].push_back(e.edge);
  for (auto& level : tree.levels) {
    std::sort(level.begin(), level.end(), [](const TreeEdge& a, const TreeEdge& b) { return a.child < b.child; });
  }
  return tree;
}

}  // namespace

std::vector<ReductionTree> BuildReductionTrees(const LinkMatrix& links, const TreeOptions& options) {
  ValidateLinkMatrix(links);
  MX_CHECK_KIND(std::isfinite(options.link_usage_penalty) && options.link_usage_penalty >= 0, "ValueError")
      << "link usage penalty must be a finite number >= 0, got " << options.link_usage_penalty;
  const int n = static_cast<int>(links.size());
  WarnIfDisconnected(links);
  bool exhaustive = options.backtrack;
  if (exhaustive && n > kMaxBacktrackDevices) {
    common::LogWarning("MXNET_KVSTORE_TREE_BACKTRACK=1 searches trees over at most " +
                       std::to_string(kMaxBacktrackDevices) + " devices; using Kernighan-Lin for " +
                       std::to_string(n) + " devices");
    exhaustive = false;
  }

  LinkWeights w;
  w.links = &links;
  w.weight.assign(n, std::vector<double>(n, 0.0));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) w.weight[i][j] = i == j ? 0.0 : links[i][j];
  }
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;

  std::vector<ReductionTree> trees;
  trees.reserve(n);
  for (int root = 0; root < n; ++root) {
    std::vector<DepthEdge> edges;
    if (exhaustive) {
      tree_search::BuildTreeExhaustive(w, root, &edges);
    } else {
      tree_search::BuildTreeKernighanLin(w, all, root, &edges);
    }
    trees.push_back(Assemble(root, edges));
    // Later trees find the links this one uses less attractive, so the trees (which run at
    // the same time on slices of a big array) spread over the links.
    for (const DepthEdge& e : edges) {
      w.weight[e.edge.child][e.edge.parent] *= options.link_usage_penalty;
      w.weight[e.edge.parent][e.edge.child] *= options.link_usage_penalty;
    }
  }
  return trees;
}

void ValidateReductionTree(const ReductionTree& tree, int n) {
  MX_CHECK_KIND(0 <= tree.root && tree.root < n, "ValueError")
      << "reduction tree root " << tree.root << " is not a device slot in [0, " << n << ")";
  std::vector<int> sent_at(n, -1);
  for (size_t l = 0; l < tree.levels.size(); ++l) {
    std::vector<bool> receives(n, false);
    for (const TreeEdge& e : tree.levels[l]) {
      MX_CHECK_KIND(0 <= e.child && e.child < n && 0 <= e.parent && e.parent < n && e.child != e.parent, "ValueError")
          << "reduction tree of root " << tree.root << ": edge " << e.child << "->" << e.parent << " at level " << l
          << " is not between two device slots in [0, " << n << ")";
      MX_CHECK_KIND(!receives[e.parent], "ValueError") << "reduction tree of root " << tree.root << ": device "
                                                        << e.parent << " receives twice at level " << l;
      receives[e.parent] = true;
    }
    for (const TreeEdge& e : tree.levels[l]) {
      MX_CHECK_KIND(e.child != tree.root, "ValueError")
          << "reduction tree of root " << tree.root << ": the root sends (to " << e.parent << ") at level " << l;
      MX_CHECK_KIND(sent_at[e.child] < 0 && !receives[e.child], "ValueError")
          << "reduction tree of root " << tree.root << ": device " << e.child << " sends at level " << l
          << (sent_at[e.child] >= 0 ? " after sending already" : " while it also receives");
      MX_CHECK_KIND(sent_at[e.parent] < 0, "ValueError") << "reduction tree of root " << tree.root << ": device "
                                                          << e.parent << " receives at level " << l
                                                          << " after it sent its sum at level " << sent_at[e.parent];
    }
    for (const TreeEdge& e : tree.levels[l]) sent_at[e.child] = static_cast<int>(l);
  }
  for (int d = 0; d < n; ++d) {
    MX_CHECK_KIND(d == tree.root || sent_at[d] >= 0, "ValueError")
        << "reduction tree of root " << tree.root << " does not reach device " << d;
  }
}

int CountHostEdges(const ReductionTree& tree, const LinkMatrix& links) {
  int count = 0;
  for (const auto& level : tree.levels) {
    for (const TreeEdge& e : level) count += links[e.child][e.parent] > 0 ? 0 : 1;
  }
  return count;
}

std::string DescribeTrees(const std::vector<ReductionTree>& trees, const LinkMatrix& links,
                          const std::vector<Context>* devices) {
  auto name = [&](int slot) {
    return devices && slot < static_cast<int>(devices->size()) ? (*devices)[slot].ToString() : std::to_string(slot);
  };
  std::ostringstream out;
  for (const ReductionTree& tree : trees) {
    out << "root " << name(tree.root) << ":";
    for (size_t l = 0; l < tree.levels.size(); ++l) {
      out << " L" << l << "[";
      for (size_t k = 0; k < tree.levels[l].size(); ++k) {
        const TreeEdge& e = tree.levels[l][k];
        out << (k ? " " : "") << name(e.child) << "->" << name(e.parent);
        if (!(links[e.child][e.parent] > 0)) out << "(host)";
      }
      out << "]";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace kvstore
}  // namespace mxnet
