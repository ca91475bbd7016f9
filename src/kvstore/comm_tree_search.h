/*!
 * \file comm_tree_search.h
 * \brief Internal to the tree builder (comm_tree.cc): the score a reduction tree is judged by
 *        and the two searches that build one tree, Kernighan-Lin bisection
 *        (comm_tree_kl.cc, comm_tree_bisect.cc) and exhaustive search (comm_tree_exhaustive.cc).
 */
#ifndef MXNET_KVSTORE_COMM_TREE_SEARCH_H_
#define MXNET_KVSTORE_COMM_TREE_SEARCH_H_

#include <algorithm>
#include <cmath>
#include <vector>

#include "kvstore/comm_tree.h"

namespace mxnet {
namespace kvstore {
namespace tree_search {

/*! \brief How good a (partial) tree is: fewer host-memory edges first, then more weight. */
struct Score {
  int host_edges{0};
  double weight{0};
  Score operator+(const Score& o) const { return {host_edges + o.host_edges, weight + o.weight}; }
};

/*! \brief Strictly better; weights within rounding noise count as equal so ties keep the first found. */
inline bool Better(const Score& a, const Score& b) {
  if (a.host_edges != b.host_edges) return a.host_edges < b.host_edges;
  return a.weight > b.weight + 1e-9 * std::max(1.0, std::fabs(b.weight));
}

/*! \brief The links, and their weights after the usage penalties of the trees built so far. */
struct LinkWeights {
  const LinkMatrix* links{nullptr};
  std::vector<std::vector<double>> weight;

  int size() const { return static_cast<int>(weight.size()); }
  bool Linked(int i, int j) const { return (*links)[i][j] > 0; }
  /*! \brief The score an edge adds to a tree. */
  Score Edge(int child, int parent) const {
    if (!Linked(child, parent)) return {1, 0.0};
    return {0, weight[child][parent]};
  }
};

/*! \brief A tree edge and the split depth that made it (0 = the root's last receive). */
struct DepthEdge {
  TreeEdge edge;
  int depth;
};

/*!
 * \brief Kernighan-Lin bisection of group into root_half (ceil(size/2) devices, root included)
 *        and other_half (holding partner when partner >= 0), lowering the weight of the links
 *        that cross. Root and partner never move; seed (when >= 0) starts in the root's half.
 *        Halves come out in group's order.
 */
void Bisect(const LinkWeights& w, const std::vector<int>& group, int root, int partner, int seed,
            std::vector<int>* root_half, std::vector<int>* other_half);

/*!
 * \brief Tree search by Kernighan-Lin bisection of group (which holds root), recursively;
 *        appends the tree's edges and returns its score. Heuristic, fast for any group size.
 */
Score BuildTreeKernighanLin(const LinkWeights& w, const std::vector<int>& group, int root,
                            std::vector<DepthEdge>* edges);

/*!
 * \brief The best tree over devices 0..n-1 (n <= kMaxBacktrackDevices) rooted at root, by
 *        trying every split (memoised per sub-group and root); appends its edges, returns its score.
 */
Score BuildTreeExhaustive(const LinkWeights& w, int root, std::vector<DepthEdge>* edges);

}  // namespace tree_search
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COMM_TREE_SEARCH_H_
