// Kernighan-Lin minimum-cut bisection, the partitioning step of the Kernighan-Lin tree search.
#include <algorithm>
#include <utility>
#include <vector>

#include "kvstore/comm_tree_search.h"

namespace mxnet {
namespace kvstore {
namespace tree_search {

void Bisect(const LinkWeights& w, const std::vector<int>& group, int root, int partner, int seed,
            std::vector<int>* root_half, std::vector<int>* other_half) {
  const int m = static_cast<int>(group.size());
  // The two halves' roots each receive over several of their links, every other device over
  // fewer, so cutting a root's link costs double: among cuts of similar weight this keeps each
  // root's neighbours on its side.
  auto wt = [&](int i, int j) {
    const bool at_root = group[i] == root || group[j] == root || group[i] == partner || group[j] == partner;
    return w.weight[group[i]][group[j]] * (at_root ? 2.0 : 1.0);
  };
  std::vector<int> side(m, -1);  // 0: root's half, 1: the other
  std::vector<bool> fixed(m, false);
  for (int i = 0; i < m; ++i) {
    if (group[i] == root) side[i] = 0, fixed[i] = true;
    if (group[i] == partner) side[i] = 1, fixed[i] = true;
  }
  // Start from a greedy split: grow the root's half (from the root and the seed) with the device
  // most strongly tied to it and least to the other half; the rest form the other half.
  const int root_size = (m + 1) / 2;
  int root_count = 1;
  for (int i = 0; i < m; ++i) {
    if (group[i] == seed && side[i] == -1 && root_count < root_size) side[i] = 0, ++root_count;
  }
  while (root_count < root_size) {
    int pick = -1;
    double pick_pull = 0;
    for (int i = 0; i < m; ++i) {
      if (side[i] != -1) continue;
      double pull = 0;
      for (int j = 0; j < m; ++j) {
        if (side[j] == 0) pull += wt(i, j);
        if (side[j] == 1) pull -= wt(i, j);
      }
      if (pick < 0 || pull > pick_pull + 1e-12) pick = i, pick_pull = pull;
    }
    side[pick] = 0;
    ++root_count;
  }
  for (int i = 0; i < m; ++i) {
    if (side[i] == -1) side[i] = 1;
  }

  // Refinement passes: tentatively swap the best pair, lock it, repeat; then keep the prefix of
  // swaps with the largest total gain. Stops when a pass gains nothing.
  double scale = 1e-12;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j) scale = std::max(scale, wt(i, j));
  }
  const double min_gain = 1e-9 * scale;
  for (int pass = 0; pass < m; ++pass) {
    std::vector<double> d(m, 0.0);  // external minus internal weight
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) {
        if (i != j) d[i] += side[i] != side[j] ? wt(i, j) : -wt(i, j);
      }
    }
    std::vector<bool> locked = fixed;
    std::vector<std::pair<int, int>> swaps;
    std::vector<double> gains;
    while (true) {
      int best_a = -1, best_b = -1;
      double best_gain = 0;
      for (int a = 0; a < m; ++a) {
        if (locked[a] || side[a] != 0) continue;
        for (int b = 0; b < m; ++b) {
          if (locked[b] || side[b] != 1) continue;
          const double g = d[a] + d[b] - 2 * wt(a, b);
          if (best_a < 0 || g > best_gain + 1e-12) best_a = a, best_b = b, best_gain = g;
        }
      }
      if (best_a < 0) break;
      locked[best_a] = locked[best_b] = true;
      swaps.emplace_back(best_a, best_b);
      gains.push_back(best_gain);
      for (int x = 0; x < m; ++x) {
        if (locked[x]) continue;
        const double to_a = wt(x, best_a), to_b = wt(x, best_b);
        d[x] += side[x] == 0 ? 2 * (to_a - to_b) : 2 * (to_b - to_a);
      }
    }
    double total = 0, best_total = 0;
    size_t best_k = 0;
    for (size_t k = 0; k < gains.size(); ++k) {
      total += gains[k];
      if (total > best_total + min_gain) best_total = total, best_k = k + 1;
    }
    if (best_k == 0) break;
    for (size_t k = 0; k < best_k; ++k) {
      side[swaps[k].first] = 1;
      side[swaps[k].second] = 0;
    }
  }
  root_half->clear();
  other_half->clear();
  for (int i = 0; i < m; ++i) (side[i] == 0 ? root_half : other_half)->push_back(group[i]);
}

}  // namespace tree_search
}  // namespace kvstore
}  // namespace mxnet
