// GPU link weights for the kvstore reduction trees, from the CUDA runtime's peer queries.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "kvstore/comm_tree.h"
#include "mxnet/base.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {

void CheckPeerQuery(cudaError_t err, const char* what, int a, int b) {
  if (err == cudaSuccess) return;
  cudaGetLastError();  // clear the sticky error before throwing
  MX_THROW("MXNetError") << what << " between " << Context::GPU(a).ToString() << " and "
                         << Context::GPU(b).ToString() << " failed: " << cudaGetErrorString(err);
}

}  // namespace

LinkMatrix GpuPeerLinkMatrix(const std::vector<int>& gpu_ids) {
  const size_t n = gpu_ids.size();
  // rank[i][j]: the runtime's performance rank of the link (0 = fastest), -1 = no peer access.
  std::vector<std::vector<int>> rank(n, std::vector<int>(n, -1));
  int worst = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      int can_access = 0;
      CheckPeerQuery(cudaDeviceCanAccessPeer(&can_access, gpu_ids[i], gpu_ids[j]), "cudaDeviceCanAccessPeer",
                     gpu_ids[i], gpu_ids[j]);
      if (!can_access) continue;
      int r = 0;
      CheckPeerQuery(cudaDeviceGetP2PAttribute(&r, cudaDevP2PAttrPerformanceRank, gpu_ids[i], gpu_ids[j]),
                     "cudaDeviceGetP2PAttribute(PerformanceRank)", gpu_ids[i], gpu_ids[j]);
      rank[i][j] = r;
      worst = std::max(worst, r);
    }
  }
  // Higher weight = faster link. A pair reachable one way only copies through the host the
  // other way, so it counts as unlinked; otherwise the slower direction decides.
  LinkMatrix links(n, std::vector<float>(n, 0.0f));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j || rank[i][j] < 0 || rank[j][i] < 0) continue;
      links[i][j] = static_cast<float>(1 + worst - std::max(rank[i][j], rank[j][i]));
    }
  }
  return links;
}

}  // namespace kvstore
}  // namespace mxnet
