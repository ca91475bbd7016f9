// Exhaustive tree search: every split of every sub-group is tried, and the best score of a
// (sub-group, root) pair is remembered, so the search visits each pair once instead of every
// whole tree ((n-1)! per root). Groups are bit masks, hence kMaxBacktrackDevices <= 32.
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "kvstore/comm_tree_search.h"

namespace mxnet {
namespace kvstore {
namespace tree_search {

namespace {

static_assert(kMaxBacktrackDevices <= 32, "groups are 32-bit masks");

int PopCount(uint32_t mask) { return __builtin_popcount(mask); }

/*! \brief Calls f with the mask of every k-element subset of items, in lexicographic order. */
void ForEachSubset(const std::vector<int>& items, int k, const std::function<void(uint32_t)>& f) {
  std::vector<int> pick(k);
  for (int i = 0; i < k; ++i) pick[i] = i;
  const int n = static_cast<int>(items.size());
  while (true) {
    uint32_t mask = 0;
    for (int i : pick) mask |= 1u << items[i];
    f(mask);
    int i = k - 1;
    while (i >= 0 && pick[i] == n - k + i) --i;
    if (i < 0) return;
    ++pick[i];
    for (int j = i + 1; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
}

/*! \brief The best split found for a (group, root) pair and the score of the subtree it gives. */
struct Choice {
  Score score;
  uint32_t root_half{0};  // the half that keeps the root
  int sub_root{-1};       // the other half's root, which sends to the group's root
};

class ExhaustiveSearch {
 public:
  explicit ExhaustiveSearch(const LinkWeights& w) : w_(w) {}

  Choice Best(uint32_t group, int root) {
    const uint64_t key = (static_cast<uint64_t>(root) << 32) | group;
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    Choice best;
    const int size = PopCount(group);
    if (size > 1) {
      std::vector<int> others;
      for (int i = 0; i < w_.size(); ++i) {
        if ((group >> i & 1u) && i != root) others.push_back(i);
      }
      bool found = false;
      // The root's half takes ceil(size/2) devices, the root included.
      ForEachSubset(others, (size + 1) / 2 - 1, [&](uint32_t chosen) {
        const uint32_t root_half = (1u << root) | chosen;
        const uint32_t other_half = group ^ root_half;
        const Score root_half_score = Best(root_half, root).score;
        for (int b = 0; b < w_.size(); ++b) {
          if (!(other_half >> b & 1u)) continue;
          const Score s = w_.Edge(b, root) + root_half_score + Best(other_half, b).score;
          if (!found || Better(s, best.score)) {
            best = {s, root_half, b};
            found = true;
          }
        }
      });
    }
    memo_.emplace(key, best);
    return best;
  }

  void Emit(uint32_t group, int root, int depth, std::vector<DepthEdge>* edges) {
    if (PopCount(group) <= 1) return;
    const Choice c = Best(group, root);
    edges->push_back({{c.sub_root, root}, depth});
    Emit(c.root_half, root, depth + 1, edges);
    Emit(group ^ c.root_half, c.sub_root, depth + 1, edges);
  }

 private:
  const LinkWeights& w_;
  std::unordered_map<uint64_t, Choice> memo_;
};

}  // namespace

Score BuildTreeExhaustive(const LinkWeights& w, int root, std::vector<DepthEdge>* edges) {
  const int n = w.size();
  const uint32_t all = n == 32 ? ~0u : (1u << n) - 1;
  ExhaustiveSearch search(w);
  const Score score = search.Best(all, root).score;
  search.Emit(all, root, 0, edges);
  return score;
}

}  // namespace tree_search
}  // namespace kvstore
}  // namespace mxnet
