/*!
 * \file comm_tree.h
 * \brief Reduction trees for the 'device' kvstore: from a matrix of link bandwidths between the
 *        devices, one spanning tree per root device, built by recursive bisection of the device
 *        set, so that a sum can flow over the fastest links and the n trees (one per slice of a
 *        big array) spread their traffic over different links.
 *
 * Shape of a tree. A group S with root r is split into halves A (holding r, ceil(|S|/2)
 * devices) and B; B gets a sub-root b and the tree gains the edge b -> r. Both halves are split
 * the same way until single devices remain. An edge made at split depth k runs at reduction
 * level D-1-k (D = the tree's depth), so levels[0] holds the leaves' edges, every device has
 * received all its children before it sends, and each device receives from at most one child
 * and sends at most once per level.
 *
 * What is maximised. A tree's score is, first, how few of its edges lack a direct link (such an
 * edge copies through host memory), then the sum of the tree's link weights, where a link that
 * earlier trees already use counts its bandwidth times the usage penalty once per use.
 *
 * The two searches. Exhaustive search (backtracking over every split, memoised per sub-group
 * and root) finds the best tree: about 1 ms for 8 devices, 50 ms for 12, 4 s for 16 (all n
 * trees), so it is limited to kMaxBacktrackDevices. Kernighan-Lin (the default) is a heuristic:
 * 10 ms for 8 devices, 0.1 s for 16, 0.4 s for 32, 2.5 s for 64; it finds a best tree on the
 * fully connected, ring and DGX-1 cube-mesh topologies, and for 93-98% of the roots of random
 * sparse link matrices over 4-8 devices.
 */
#ifndef MXNET_KVSTORE_COMM_TREE_H_
#define MXNET_KVSTORE_COMM_TREE_H_

#include <string>
#include <vector>

#include "mxnet/base.h"

namespace mxnet {
namespace kvstore {

/*! \brief link[i][j] > 0: relative bandwidth of the direct link between devices i and j; 0: none.
 *         Square and symmetric; the diagonal is ignored. */
using LinkMatrix = std::vector<std::vector<float>>;

/*! \brief One transfer of a reduction: child's partial sum is added into parent's. */
struct TreeEdge {
  int child;
  int parent;
};

/*! \brief A spanning tree over device slots 0..n-1 (the link matrix's order). */
struct ReductionTree {
  int root{0};
  /*! \brief Edges grouped by reduction step, leaves first: reducing runs levels in order,
   *         broadcasting runs them in reverse with each edge's direction flipped. */
  std::vector<std::vector<TreeEdge>> levels;
};

struct TreeOptions {
  /*! \brief Exhaustive search instead of Kernighan-Lin (MXNET_KVSTORE_TREE_BACKTRACK). */
  bool backtrack{false};
  /*! \brief Factor applied to a link's weight each time an earlier tree uses it
   *         (MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY); 1 = no spreading. */
  double link_usage_penalty{0.7};
  /*! \brief The values set in the environment. */
  static TreeOptions FromEnv();
};

/*! \brief Most devices exhaustive search accepts; beyond it Kernighan-Lin is used with a warning. */
constexpr int kMaxBacktrackDevices = 16;

/*! \brief Throws mxnet::Error (ValueError) unless links is a non-empty square, symmetric matrix
 *         of finite non-negative numbers; the message names the offending entry. */
void ValidateLinkMatrix(const LinkMatrix& links);

/*!
 * \brief One tree per root: trees[i].root == i, built in root order, each spanning all devices.
 *        Validates links first. If the devices do not form one connected group over direct
 *        links, warns once and joins the groups with edges through host memory.
 */
std::vector<ReductionTree> BuildReductionTrees(const LinkMatrix& links, const TreeOptions& options);

/*!
 * \brief Throws mxnet::Error (ValueError) unless tree spans devices 0..n-1 from its root with
 *        every device sending exactly once, after all its own children, and receiving at most
 *        once per level.
 */
void ValidateReductionTree(const ReductionTree& tree, int n);

/*! \brief Edges of the tree whose two devices have no direct link (their copy goes through host memory). */
int CountHostEdges(const ReductionTree& tree, const LinkMatrix& links);

/*!
 * \brief The trees in a readable form, one line per tree:
 *        "root 0: L0[1->0 3->2] L1[2->0]", with "(host)" after edges that have no direct link.
 *        devices, when given (same order as the slots), names the devices ("gpu(1)->gpu(0)").
 */
std::string DescribeTrees(const std::vector<ReductionTree>& trees, const LinkMatrix& links,
                          const std::vector<Context>* devices = nullptr);

/*!
 * \brief Bandwidth estimates between the given devices. Host-memory contexts: all links 1
 *        (they share memory). GPUs (CUDA builds): peers that can access each other get
 *        1 + (worst performance rank - the pair's rank), others 0; MXNET_ENABLE_GPU_P2P=0 gives
 *        no links. A GPU and a host context: no link. The same device listed twice: the best
 *        weight in the matrix (a copy within one device). A GPU in a build without CUDA throws.
 */
LinkMatrix DeviceLinkMatrix(const std::vector<Context>& devices);

/*!
 * \brief What the device store calls once at creation: DeviceLinkMatrix, then
 *        BuildReductionTrees with TreeOptions::FromEnv(); logs DescribeTrees (info) when
 *        MXNET_KVSTORE_LOGTREE=1.
 */
std::vector<ReductionTree> BuildDeviceTrees(const std::vector<Context>& devices);

/*! \brief GPU part of DeviceLinkMatrix (src/kvstore/cuda/comm_tree_gpu_links.cc, CUDA builds only):
 *         weights between GPU ordinals from the CUDA runtime's peer-access queries. */
LinkMatrix GpuPeerLinkMatrix(const std::vector<int>& gpu_ids);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COMM_TREE_H_
