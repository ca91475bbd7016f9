// Kernighan-Lin tree search. A group is split many ways by Kernighan-Lin minimum-cut bisection
// (comm_tree_bisect.cc): with each of the root's strongest neighbours locked into the other half
// as its root (or none), from greedy starts seeded with another of them. The minimum cut only
// estimates the tree a split leads to, so each split is judged by the tree score of its halves
// (small halves searched in full, bigger ones estimated by plain bisection), and the best split
// is then improved by Kernighan-Lin passes on that score before its halves are built the same way.
#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "kvstore/comm_tree_search.h"

namespace mxnet {
namespace kvstore {
namespace tree_search {

namespace {

/*! \brief Neighbours of the root tried as partner and seed; bounds the search on big groups. */
constexpr int kPartnerCandidates = 4;
/*! \brief Halves up to this size are searched in full when a split is judged. */
constexpr size_t kSearchedHalf = 4;
/*! \brief Kernighan-Lin passes over one split; passes after the first few rarely gain anything. */
constexpr int kRefinePasses = 3;
/*! \brief Largest group whose split is refined on the tree score (a pass costs about size^3
 *         evaluations); bigger groups keep the best minimum-cut split. */
constexpr size_t kRefinedGroup = 16;

/*! \brief A built subtree: its score and edges, depths relative to the group's own split. */
struct Subtree {
  Score score;
  std::vector<DepthEdge> edges;
};

class KernighanLinSearch {
 public:
  explicit KernighanLinSearch(const LinkWeights& w) : w_(w) {}

  /*! \brief The tree over group (sorted ascending) rooted at root. */
  const Subtree& Build(const std::vector<int>& group, int root) {
    const auto key = std::make_pair(group, root);
    auto it = built_.find(key);
    if (it != built_.end()) return it->second;
    Subtree tree;
    if (group.size() > 1) {
      Split split;
      bool found = false;
      std::set<std::pair<std::vector<int>, int>> tried;
      for (const auto& start : Starts(group, root)) {
        Split s;
        s.sub_root = start.first;
        Bisect(w_, group, root, start.first, start.second, &s.root_half, &s.other_half);
        if (s.sub_root < 0) s.sub_root = SubRoot(s.other_half, root);
        if (!tried.insert({s.root_half, s.sub_root}).second) continue;
        s.score = Evaluate(s, root);
        if (!found || Better(s.score, split.score)) split = s, found = true;
      }
      if (group.size() <= kRefinedGroup) Refine(root, &split);
      const Subtree& a = Build(split.root_half, root);
      const Subtree& b = Build(split.other_half, split.sub_root);
      tree.score = w_.Edge(split.sub_root, root) + a.score + b.score;
      tree.edges.assign(1, DepthEdge{{split.sub_root, root}, 0});
      for (const Subtree* t : {&a, &b}) {
        for (const DepthEdge& e : t->edges) tree.edges.push_back({e.edge, e.depth + 1});
      }
    }
    return built_.emplace(key, std::move(tree)).first->second;
  }

 private:
  /*! \brief A bisection of a group: the halves (sorted) and the device that sends to the root. */
  struct Split {
    std::vector<int> root_half, other_half;
    int sub_root{-1};
    Score score;
  };

  /*! \brief Score of the tree a split leads to, its halves estimated. */
  Score Evaluate(const Split& s, int root) {
    return w_.Edge(s.sub_root, root) + Estimate(s.root_half, root) + Estimate(s.other_half, s.sub_root);
  }

  /*!
   * \brief A half's tree score: searched in full for small halves, where that is cheap; for
   *        bigger ones the tree of plain minimum-cut bisections, since a full search of every
   *        candidate half would grow exponentially with the device count.
   */
  Score Estimate(const std::vector<int>& group, int root) {
    if (group.size() <= kSearchedHalf) return Build(group, root).score;
    return Quick(group, root);
  }

  /*! \brief Score of the tree of plain bisections: partner = the root's strongest neighbour. */
  Score Quick(const std::vector<int>& group, int root) {
    if (group.size() <= 1) return Score{};
    const auto key = std::make_pair(group, root);
    auto it = quick_.find(key);
    if (it != quick_.end()) return it->second;
    const std::vector<std::pair<int, int>> starts = Starts(group, root);
    Split s;
    s.sub_root = starts.front().first;  // the strongest neighbour, or -1 when there is none
    Bisect(w_, group, root, s.sub_root, -1, &s.root_half, &s.other_half);
    if (s.sub_root < 0) s.sub_root = SubRoot(s.other_half, root);
    const Score score =
        w_.Edge(s.sub_root, root) + Quick(s.root_half, root) + Quick(s.other_half, s.sub_root);
    quick_.emplace(key, score);
    return score;
  }

  /*!
   * \brief Kernighan-Lin passes on the tree score itself (the minimum cut only estimates which
   *        split gives the best tree): swap the best pair of unlocked devices (the root never
   *        moves), lock both, repeat even when a swap makes things worse, then keep the best
   *        split seen; stop when a pass finds nothing better. A device swapped into the other
   *        half may become its root; in small groups any device of that half may.
   */
  void Refine(int root, Split* split) {
    const size_t size = split->root_half.size() + split->other_half.size();
    for (int pass = 0; pass < kRefinePasses; ++pass) {
      Split current = *split, best = *split;
      std::set<int> locked{root};
      while (true) {
        Split step;
        bool found = false;
        for (size_t i = 0; i < current.root_half.size(); ++i) {
          const int a = current.root_half[i];
          if (locked.count(a)) continue;
          for (size_t j = 0; j < current.other_half.size(); ++j) {
            const int x = current.other_half[j];
            if (locked.count(x)) continue;
            Split s = current;
            std::swap(s.root_half[i], s.other_half[j]);
            std::sort(s.root_half.begin(), s.root_half.end());
            std::sort(s.other_half.begin(), s.other_half.end());
            std::vector<int> sub_roots{current.sub_root, a};
            if (size <= 2 * kSearchedHalf) sub_roots = s.other_half;
            for (int sub_root : sub_roots) {
              if (sub_root == x) continue;  // x left the half
              s.sub_root = sub_root;
              s.score = Evaluate(s, root);
              if (!found || Better(s.score, step.score)) step = s, found = true;
            }
          }
        }
        if (!found) break;
        for (int v : step.root_half) {
          if (!std::binary_search(current.root_half.begin(), current.root_half.end(), v)) locked.insert(v);
        }
        for (int v : step.other_half) {
          if (!std::binary_search(current.other_half.begin(), current.other_half.end(), v)) locked.insert(v);
        }
        current = step;
        if (Better(current.score, best.score)) best = current;
      }
      if (!Better(best.score, split->score)) return;
      *split = best;
    }
  }

  /*!
   * \brief Bisections to try, as (partner locked into the other half, seed starting in the
   *        root's half), -1 for none: the root's strongest linked neighbours as partner, and as
   *        seed, in all pairings. Minimum cuts often tie, and the tied cuts differ in which links
   *        they leave to each half's root; the seeds reach those alternatives.
   */
  std::vector<std::pair<int, int>> Starts(const std::vector<int>& group, int root) const {
    std::vector<int> linked;
    for (int v : group) {
      if (v != root && w_.Linked(root, v)) linked.push_back(v);
    }
    std::stable_sort(linked.begin(), linked.end(),
                     [&](int a, int b) { return w_.weight[root][a] > w_.weight[root][b]; });
    if (linked.size() > static_cast<size_t>(kPartnerCandidates)) linked.resize(kPartnerCandidates);
    linked.push_back(-1);
    std::vector<std::pair<int, int>> starts;
    for (int partner : linked) {
      for (int seed : linked) {
        if (seed < 0 || seed != partner) starts.emplace_back(partner, seed);
      }
    }
    return starts;
  }

  /*! \brief For an unconstrained bisection: the device of half with the best edge to root,
   *         ties going to the one most strongly linked inside its half. */
  int SubRoot(const std::vector<int>& half, int root) const {
    int best = -1;
    Score best_edge;
    double best_inner = 0;
    for (int v : half) {
      double inner = 0;
      for (int u : half) {
        if (u != v) inner += w_.weight[v][u];
      }
      const Score e = w_.Edge(v, root);
      if (best < 0 || Better(e, best_edge) || (!Better(best_edge, e) && inner > best_inner + 1e-12)) {
        best = v, best_edge = e, best_inner = inner;
      }
    }
    return best;
  }

  const LinkWeights& w_;
  std::map<std::pair<std::vector<int>, int>, Subtree> built_;
  std::map<std::pair<std::vector<int>, int>, Score> quick_;
};

}  // namespace

Score BuildTreeKernighanLin(const LinkWeights& w, const std::vector<int>& group, int root,
                            std::vector<DepthEdge>* edges) {
  std::vector<int> sorted = group;
  std::sort(sorted.begin(), sorted.end());
  KernighanLinSearch search(w);
  const Subtree& t = search.Build(sorted, root);
  edges->insert(edges->end(), t.edges.begin(), t.edges.end());
  return t.score;
}

}  // namespace tree_search
}  // namespace kvstore
}  // namespace mxnet
