// Reduction trees of the device kvstore, on fake link matrices: every tree spans the devices
// in a valid level order, the searches find the best tree, penalties spread link use, and bad
// matrices are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/build_config.h"
#include "kvstore/comm_tree.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {
namespace {

LinkMatrix Zeros(int n) { return LinkMatrix(n, std::vector<float>(n, 0.0f)); }

void Link(LinkMatrix* m, int a, int b, float w) { (*m)[a][b] = (*m)[b][a] = w; }

LinkMatrix FullyConnected(int n) {
  LinkMatrix m = Zeros(n);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) Link(&m, i, j, 1.0f);
  }
  return m;
}

/*! \brief DGX-1 (V100) hybrid cube-mesh: two fully linked quads 0-3 and 4-7, GPU i also linked
 *         to i+4; 2 = a double NVLink, 1 = a single one; the other pairs have no link. */
LinkMatrix HybridCubeMesh() {
  LinkMatrix m = Zeros(8);
  Link(&m, 0, 1, 1), Link(&m, 0, 2, 1), Link(&m, 0, 3, 2), Link(&m, 0, 4, 2);
  Link(&m, 1, 2, 2), Link(&m, 1, 3, 1), Link(&m, 1, 5, 2);
  Link(&m, 2, 3, 2), Link(&m, 2, 6, 1);
  Link(&m, 3, 7, 1);
  Link(&m, 4, 5, 1), Link(&m, 4, 6, 1), Link(&m, 4, 7, 2);
  Link(&m, 5, 6, 2), Link(&m, 5, 7, 1);
  Link(&m, 6, 7, 2);
  return m;
}

LinkMatrix Ring(int n) {
  LinkMatrix m = Zeros(n);
  for (int i = 0; i < n; ++i) Link(&m, i, (i + 1) % n, 1.0f);
  return m;
}

TreeOptions KernighanLin(double penalty = 0.7) { return TreeOptions{false, penalty}; }
TreeOptions Exhaustive(double penalty = 0.7) { return TreeOptions{true, penalty}; }

/*!
 * \brief Independent check of the reduction order: every device but the root sends exactly once,
 *        to a device that has not sent yet, after everything it receives; a device receives at
 *        most once per level; following parents from any device reaches the root.
 */
void ExpectValidTree(const ReductionTree& tree, int n, int root) {
  EXPECT_EQ(tree.root, root);
  std::vector<int> parent(n, -1), send_level(n, -1), last_receive(n, -1);
  for (int l = 0; l < static_cast<int>(tree.levels.size()); ++l) {
    EXPECT_FALSE(tree.levels[l].empty()) << "root " << root << " level " << l << " is empty";
    std::set<int> receivers;
    for (const TreeEdge& e : tree.levels[l]) {
      ASSERT_TRUE(e.child >= 0 && e.child < n && e.parent >= 0 && e.parent < n);
      EXPECT_TRUE(receivers.insert(e.parent).second) << e.parent << " receives twice at level " << l;
      EXPECT_EQ(send_level[e.child], -1) << e.child << " sends twice";
      EXPECT_EQ(send_level[e.parent], -1) << e.parent << " receives after it sent";
      parent[e.child] = e.parent;
      send_level[e.child] = l;
      last_receive[e.parent] = l;
    }
  }
  for (int d = 0; d < n; ++d) {
    if (d == root) {
      EXPECT_EQ(send_level[d], -1) << "the root sends";
      continue;
    }
    ASSERT_NE(send_level[d], -1) << "device " << d << " is not in the tree of root " << root;
    EXPECT_LT(last_receive[d], send_level[d]) << "device " << d << " sends before it has all its children";
    int hops = 0;
    for (int v = d; v != root; v = parent[v]) ASSERT_LE(++hops, n) << "cycle through " << d;
  }
  EXPECT_NO_THROW(ValidateReductionTree(tree, n));
}

void ExpectValidTrees(const std::vector<ReductionTree>& trees, int n) {
  ASSERT_EQ(static_cast<int>(trees.size()), n);
  for (int r = 0; r < n; ++r) ExpectValidTree(trees[r], n, r);
}

int Depth(int n) {
  int d = 0;
  while ((1 << d) < n) ++d;
  return d;
}

std::set<std::pair<int, int>> EdgeSet(const ReductionTree& t) {
  std::set<std::pair<int, int>> s;
  for (const auto& level : t.levels) {
    for (const TreeEdge& e : level) s.insert({e.child, e.parent});
  }
  return s;
}

/*! \brief Tree edges beyond the first use of each link, over all trees. */
int ReusedLinks(const std::vector<ReductionTree>& trees) {
  std::map<std::pair<int, int>, int> uses;
  for (const auto& t : trees) {
    for (const auto& e : EdgeSet(t)) ++uses[{std::min(e.first, e.second), std::max(e.first, e.second)}];
  }
  int reused = 0;
  for (const auto& u : uses) reused += u.second - 1;
  return reused;
}

/*! \brief (host edges, link weight) of a tree on the unpenalised links. */
std::pair<int, double> RawScore(const ReductionTree& t, const LinkMatrix& m) {
  int host = 0;
  double weight = 0;
  for (const auto& e : EdgeSet(t)) {
    if (m[e.first][e.second] > 0) {
      weight += m[e.first][e.second];
    } else {
      ++host;
    }
  }
  return {host, weight};
}

/*!
 * \brief Brute force over every recursive bisection tree of group rooted at root (the root's half
 *        takes ceil(size/2) devices): the best (fewest host edges, then most weight) score and
 *        how many different sets of edges reach it (trees differing only in the order a device
 *        receives its children count once).
 */
struct Candidate {
  int host{0};
  double weight{0};
  std::set<std::pair<int, int>> edges;
};
void AllTrees(const LinkMatrix& m, const std::vector<int>& group, int root, std::vector<Candidate>* out) {
  if (group.size() == 1) {
    out->push_back({});
    return;
  }
  std::vector<int> others;
  for (int v : group) {
    if (v != root) others.push_back(v);
  }
  const int k = static_cast<int>(group.size() + 1) / 2 - 1;
  const int count = static_cast<int>(others.size());
  for (int mask = 0; mask < (1 << count); ++mask) {
    if (__builtin_popcount(mask) != k) continue;
    std::vector<int> a{root}, b;
    for (int i = 0; i < count; ++i) ((mask >> i & 1) ? a : b).push_back(others[i]);
    std::vector<Candidate> sa;
    AllTrees(m, a, root, &sa);
    for (int sub : b) {
      std::vector<Candidate> sb;
      AllTrees(m, b, sub, &sb);
      const bool linked = m[sub][root] > 0;
      for (const auto& x : sa) {
        for (const auto& y : sb) {
          Candidate c{x.host + y.host + (linked ? 0 : 1), x.weight + y.weight + (linked ? m[sub][root] : 0), x.edges};
          c.edges.insert(y.edges.begin(), y.edges.end());
          c.edges.insert({sub, root});
          out->push_back(std::move(c));
        }
      }
    }
  }
}
struct Best {
  int host{std::numeric_limits<int>::max()};
  double weight{0};
  int count{0};  // distinct edge sets with the best score
};
Best BruteForce(const LinkMatrix& m, int root) {
  std::vector<int> all(m.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  std::vector<Candidate> trees;
  AllTrees(m, all, root, &trees);
  Best best;
  for (const auto& t : trees) {
    if (t.host < best.host || (t.host == best.host && t.weight > best.weight + 1e-9)) best = {t.host, t.weight, 0};
  }
  std::set<std::set<std::pair<int, int>>> optimal;
  for (const auto& t : trees) {
    if (t.host == best.host && std::fabs(t.weight - best.weight) <= 1e-9) optimal.insert(t.edges);
  }
  best.count = static_cast<int>(optimal.size());
  return best;
}

std::string ErrorOf(const LinkMatrix& m) {
  try {
    BuildReductionTrees(m, KernighanLin());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CommTree, FullyConnected) {
  for (int n : {1, 2, 3, 4, 5, 6, 7, 8}) {
    for (const TreeOptions& opt : {KernighanLin(), Exhaustive()}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (opt.backtrack ? " exhaustive" : " Kernighan-Lin"));
      const LinkMatrix m = FullyConnected(n);
      const auto trees = BuildReductionTrees(m, opt);
      ExpectValidTrees(trees, n);
      for (const auto& t : trees) {
        EXPECT_EQ(static_cast<int>(t.levels.size()), Depth(n));  // recursive halving: ceil(log2 n) steps
        EXPECT_EQ(CountHostEdges(t, m), 0);
      }
    }
  }
}

TEST(CommTree, HybridCubeMesh) {
  const LinkMatrix m = HybridCubeMesh();
  for (const TreeOptions& opt : {KernighanLin(), Exhaustive()}) {
    SCOPED_TRACE(opt.backtrack ? "exhaustive" : "Kernighan-Lin");
    const auto trees = BuildReductionTrees(m, opt);
    ExpectValidTrees(trees, 8);
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(CountHostEdges(trees[r], m), 0) << DescribeTrees(trees, m);
      EXPECT_EQ(trees[r].levels.size(), 3u);
      // Only double links (weight 2) and one single link are needed per tree; the first tree
      // sees no penalties yet, so it must reach that.
      if (r == 0) EXPECT_EQ(RawScore(trees[r], m).second, 13.0) << DescribeTrees(trees, m);
    }
  }
}

TEST(CommTree, RingAndOddSizes) {
  for (int n : {3, 4, 5, 6, 8}) {
    const LinkMatrix m = Ring(n);
    for (const TreeOptions& opt : {KernighanLin(1.0), Exhaustive(1.0)}) {
      SCOPED_TRACE("ring " + std::to_string(n) + (opt.backtrack ? " exhaustive" : " Kernighan-Lin"));
      const auto trees = BuildReductionTrees(m, opt);
      ExpectValidTrees(trees, n);
      for (int r = 0; r < n; ++r) {
        // A ring has two links per device but halving gives the root log2(n) children, so some
        // trees must copy through host memory; none needs more than the fewest possible.
        EXPECT_EQ(CountHostEdges(trees[r], m), BruteForce(m, r).host) << DescribeTrees(trees, m);
      }
    }
  }
  EXPECT_EQ(CountHostEdges(BuildReductionTrees(Ring(4), KernighanLin())[0], Ring(4)), 0);
}

TEST(CommTree, DisconnectedDevicesGoThroughHost) {
  for (const TreeOptions& opt : {KernighanLin(), Exhaustive()}) {
    const LinkMatrix lone = Zeros(2);
    testing::internal::CaptureStderr();
    auto trees = BuildReductionTrees(lone, opt);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("no direct link"), std::string::npos) << err;
    ExpectValidTrees(trees, 2);
    EXPECT_EQ(CountHostEdges(trees[0], lone), 1);

    LinkMatrix pairs = Zeros(4);
    Link(&pairs, 0, 1, 1.0f);
    Link(&pairs, 2, 3, 1.0f);
    testing::internal::CaptureStderr();
    trees = BuildReductionTrees(pairs, opt);
    err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("{0,1}, {2,3}"), std::string::npos) << err;
    ExpectValidTrees(trees, 4);
    for (const auto& t : trees) {
      EXPECT_EQ(CountHostEdges(t, pairs), 1);  // exactly the one edge between the pairs
      EXPECT_NE(DescribeTrees({t}, pairs).find("(host)"), std::string::npos);
    }
  }
  testing::internal::CaptureStderr();
  BuildReductionTrees(FullyConnected(3), KernighanLin());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // connected: no warning
}

TEST(CommTree, SearchesAgreeOnUniqueOptima) {
  // Links weigh distinct powers of two, so trees with different links never tie.
  // Two strongly linked pairs, joined by a weak link from the root's pair and a weaker one.
  LinkMatrix pairs = Zeros(4);
  Link(&pairs, 0, 1, 8), Link(&pairs, 2, 3, 4), Link(&pairs, 0, 2, 2), Link(&pairs, 1, 3, 1);
  // Two triangles of strong links with two weak bridges.
  LinkMatrix triangles = Zeros(6);
  Link(&triangles, 0, 1, 512), Link(&triangles, 0, 2, 256), Link(&triangles, 1, 2, 128);
  Link(&triangles, 3, 4, 64), Link(&triangles, 3, 5, 32), Link(&triangles, 4, 5, 16);
  Link(&triangles, 0, 3, 1), Link(&triangles, 2, 5, 2);
  // Two fully linked quads joined by one weak bridge: every root's strong links stay inside its
  // quad, so the search must cross on the weak bridge rather than on a root's best link.
  LinkMatrix bridge = Zeros(8);
  float weight = 2;
  for (int base : {0, 4}) {
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j) Link(&bridge, base + i, base + j, weight *= 2);
    }
  }
  Link(&bridge, 0, 4, 1);
  // Seven devices on a sparse mesh (uneven halves, one device with a single link).
  LinkMatrix sparse = Zeros(7);
  Link(&sparse, 0, 1, 64), Link(&sparse, 1, 2, 32), Link(&sparse, 2, 3, 16), Link(&sparse, 3, 0, 8);
  Link(&sparse, 0, 4, 4), Link(&sparse, 4, 5, 128), Link(&sparse, 5, 2, 2), Link(&sparse, 6, 5, 256);
  Link(&sparse, 6, 1, 1);

  int unique_cases = 0;
  for (const LinkMatrix* m : {&pairs, &triangles, &bridge, &sparse}) {
    const int n = static_cast<int>(m->size());
    // Penalty 1: every tree is the best for its root alone.
    const auto kl = BuildReductionTrees(*m, KernighanLin(1.0));
    const auto ex = BuildReductionTrees(*m, Exhaustive(1.0));
    ExpectValidTrees(kl, n);
    ExpectValidTrees(ex, n);
    for (int r = 0; r < n; ++r) {
      SCOPED_TRACE("n=" + std::to_string(n) + " root " + std::to_string(r));
      const Best best = BruteForce(*m, r);
      const auto ex_score = RawScore(ex[r], *m);
      EXPECT_EQ(ex_score.first, best.host);
      EXPECT_NEAR(ex_score.second, best.weight, 1e-6) << "exhaustive search missed the best tree";
      if (best.count == 1) {
        ++unique_cases;
        EXPECT_EQ(EdgeSet(kl[r]), EdgeSet(ex[r])) << "Kernighan-Lin:\n"
                                                  << DescribeTrees({kl[r]}, *m) << "exhaustive:\n"
                                                  << DescribeTrees({ex[r]}, *m);
      }
    }
  }
  EXPECT_EQ(unique_cases, 19);  // of 26 roots; the others tie over which host-memory edge to use

  // On the cube-mesh the best trees tie, but Kernighan-Lin still finds a best one.
  const LinkMatrix dgx = HybridCubeMesh();
  const auto kl = BuildReductionTrees(dgx, KernighanLin(1.0));
  for (int r = 0; r < 8; ++r) {
    const Best best = BruteForce(dgx, r);
    EXPECT_EQ(RawScore(kl[r], dgx).first, best.host);
    EXPECT_NEAR(RawScore(kl[r], dgx).second, best.weight, 1e-6) << DescribeTrees({kl[r]}, dgx);
  }
}

TEST(CommTree, PenaltySpreadsLinkUse) {
  for (const LinkMatrix& m : {FullyConnected(8), HybridCubeMesh()}) {
    for (bool backtrack : {false, true}) {
      const int spread = ReusedLinks(BuildReductionTrees(m, TreeOptions{backtrack, 0.7}));
      const int plain = ReusedLinks(BuildReductionTrees(m, TreeOptions{backtrack, 1.0}));
      EXPECT_LT(spread, plain) << "n=" << m.size() << (backtrack ? " exhaustive" : " Kernighan-Lin");
    }
  }
  // Four devices, four trees of three edges, six links: each link is used exactly twice.
  for (bool backtrack : {false, true}) {
    EXPECT_EQ(ReusedLinks(BuildReductionTrees(FullyConnected(4), TreeOptions{backtrack, 0.7})), 6);
  }
}

TEST(CommTree, RejectsBadMatrices) {
  EXPECT_NE(ErrorOf({}).find("empty"), std::string::npos);
  EXPECT_NE(ErrorOf({{0, 1}, {1}}).find("must be square: row 1 has 1 entries, expected 2"), std::string::npos);
  EXPECT_NE(ErrorOf({{0, 1, 1}, {1, 0, 1}}).find("must be square"), std::string::npos);
  EXPECT_NE(ErrorOf({{0, 2}, {1, 0}}).find("must be symmetric: [0][1] = 2 but [1][0] = 1"), std::string::npos);
  EXPECT_NE(ErrorOf({{0, -1}, {-1, 0}}).find("[0][1] = -1 is negative"), std::string::npos);
  EXPECT_NE(ErrorOf({{0, NAN}, {NAN, 0}}).find("finite"), std::string::npos);
  EXPECT_NE(ErrorOf({{-1}}).find("negative"), std::string::npos);
  EXPECT_THROW(BuildReductionTrees(FullyConnected(2), TreeOptions{false, -0.5}), Error);
  try {
    ValidateLinkMatrix({{0, 2}, {1, 0}});
    ADD_FAILURE() << "asymmetric matrix accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.kind(), "ValueError");
  }
}

TEST(CommTree, ValidateRejectsBrokenTrees) {
  ReductionTree t{0, {{{1, 0}, {3, 2}}, {{2, 0}}}};
  EXPECT_NO_THROW(ValidateReductionTree(t, 4));
  EXPECT_THROW(ValidateReductionTree(t, 5), Error);                            // device 4 missing
  EXPECT_THROW(ValidateReductionTree({0, {{{2, 0}}, {{3, 2}, {1, 0}}}}, 4), Error);  // 2 sends before 3 arrives
  EXPECT_THROW(ValidateReductionTree({0, {{{1, 0}, {2, 0}}, {{3, 0}}}}, 4), Error);  // 0 receives twice at once
  EXPECT_THROW(ValidateReductionTree({0, {{{1, 0}}, {{1, 2}}, {{2, 0}}}}, 3), Error);  // 1 sends twice
  EXPECT_THROW(ValidateReductionTree({1, {{{1, 0}}}}, 2), Error);                     // the root sends
}

TEST(CommTree, DescribeTrees) {
  const LinkMatrix m = FullyConnected(4);
  const auto trees = BuildReductionTrees(m, KernighanLin());
  const std::string text = DescribeTrees(trees, m);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  EXPECT_EQ(text.rfind("root 0: L0[", 0), 0u) << text;
  EXPECT_NE(text.find("root 3:"), std::string::npos);
  EXPECT_EQ(text.find("(host)"), std::string::npos);
  const std::vector<Context> devices{Context::CPU(0), Context::CPU(1)};
  EXPECT_EQ(DescribeTrees(BuildReductionTrees(FullyConnected(2), KernighanLin()), FullyConnected(2), &devices),
            "root cpu(0): L0[cpu(1)->cpu(0)]\nroot cpu(1): L0[cpu(0)->cpu(1)]\n");
}

TEST(CommTree, DeviceLinksOfHostContexts) {
  const LinkMatrix m = DeviceLinkMatrix({Context::CPU(0), Context::CPU(1), Context::CPU(2)});
  EXPECT_EQ(m, FullyConnected(3));
  EXPECT_THROW(DeviceLinkMatrix({}), Error);
#if !MXNET_USE_CUDA
  EXPECT_THROW(DeviceLinkMatrix({Context::CPU(0), Context::GPU(0)}), Error);
#endif
  const auto trees = BuildDeviceTrees({Context::CPU(0), Context::CPU(1), Context::CPU(2), Context::CPU(3)});
  ExpectValidTrees(trees, 4);
  EXPECT_FALSE(TreeOptions::FromEnv().backtrack);
  EXPECT_DOUBLE_EQ(TreeOptions::FromEnv().link_usage_penalty, 0.7);
}

TEST(CommTree, ManyDevices) {
  // Past the exhaustive search's limit it falls back to Kernighan-Lin, with a warning.
  const int n = kMaxBacktrackDevices + 1;
  testing::internal::CaptureStderr();
  const auto trees = BuildReductionTrees(FullyConnected(n), Exhaustive());
  EXPECT_NE(testing::internal::GetCapturedStderr().find("Kernighan-Lin"), std::string::npos);
  ExpectValidTrees(trees, n);
  for (const auto& t : trees) EXPECT_EQ(static_cast<int>(t.levels.size()), Depth(n));
}

}  // namespace
}  // namespace kvstore
}  // namespace mxnet
