// Where the tree builder's inputs come from in a running store: the environment and the
// devices' link topology.
#include <algorithm>
#include <string>
#include <vector>

#include "common/logging.h"
#include "kvstore/comm_tree.h"
#include "mxnet/build_config.h"
#include "mxnet/env.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

TreeOptions TreeOptions::FromEnv() {
  TreeOptions o;
  o.backtrack = env::GetBool(env::Var::MXNET_KVSTORE_TREE_BACKTRACK);
  o.link_usage_penalty = env::GetFloat(env::Var::MXNET_KVSTORE_TREE_LINK_USAGE_PENALTY);
  return o;
}

LinkMatrix DeviceLinkMatrix(const std::vector<Context>& devices) {
  const size_t n = devices.size();
  MX_CHECK_KIND(n > 0, "ValueError") << "kvstore reduction trees need at least one device";
  LinkMatrix links(n, std::vector<float>(n, 0.0f));

  std::vector<int> gpu_ids;  // distinct GPU ordinals, ascending
  for (const Context& c : devices) {
    if (!c.IsHostMemory()) gpu_ids.push_back(c.dev_id);
  }
  std::sort(gpu_ids.begin(), gpu_ids.end());
  gpu_ids.erase(std::unique(gpu_ids.begin(), gpu_ids.end()), gpu_ids.end());
  LinkMatrix gpu_links;
  if (!gpu_ids.empty()) {
#if MXNET_USE_CUDA
    if (env::GetBool(env::Var::MXNET_ENABLE_GPU_P2P)) {
      gpu_links = GpuPeerLinkMatrix(gpu_ids);
    } else {
      gpu_links.assign(gpu_ids.size(), std::vector<float>(gpu_ids.size(), 0.0f));
    }
#else
    for (const Context& c : devices) {
      MX_CHECK_KIND(c.IsHostMemory(), "ValueError")
          << "kvstore reduction trees over " << c.ToString() << " need a CUDA build";
    }
#endif
  }
  auto gpu_index = [&](const Context& c) {
    return static_cast<size_t>(std::lower_bound(gpu_ids.begin(), gpu_ids.end(), c.dev_id) - gpu_ids.begin());
  };

  float best = 1.0f;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const Context& a = devices[i];
      const Context& b = devices[j];
      if (i == j || a == b) continue;
      if (a.IsHostMemory() && b.IsHostMemory()) {
        links[i][j] = 1.0f;  // one shared memory: every pair is alike
      } else if (!a.IsHostMemory() && !b.IsHostMemory()) {
        links[i][j] = gpu_links[gpu_index(a)][gpu_index(b)];
      }  // a GPU and a host context: no peer link
      best = std::max(best, links[i][j]);
    }
  }
  // A device listed twice copies within its own memory, faster than any link.
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i != j && devices[i] == devices[j]) links[i][j] = best;
    }
  }
  return links;
}

std::vector<ReductionTree> BuildDeviceTrees(const std::vector<Context>& devices) {
  const LinkMatrix links = DeviceLinkMatrix(devices);
  const TreeOptions options = TreeOptions::FromEnv();
  std::vector<ReductionTree> trees = BuildReductionTrees(links, options);
  if (env::GetBool(env::Var::MXNET_KVSTORE_LOGTREE)) {
    common::LogInfo(std::string("kvstore reduction trees (") + (options.backtrack ? "exhaustive search" : "Kernighan-Lin") +
                    ", link usage penalty " + std::to_string(options.link_usage_penalty) + "):\n" +
                    DescribeTrees(trees, links, &devices));
  }
  return trees;
}

}  // namespace kvstore
}  // namespace mxnet
