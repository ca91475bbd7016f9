// Version, build features and runtime facts.
#include <omp.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "common/runtime_info.h"
#include "mxnet/base.h"
#include "mxnet/build_config.h"
#include "mxnet/c_api.h"

namespace {

// MXNet 1.x's feature names in its order (scripts index them by name), then ours.
const LibFeature* Features(size_t* size) {
  static const LibFeature features[] = {
      {"CUDA", MXNET_USE_CUDA != 0},
      {"CUDNN", MXNET_USE_CUDNN != 0},
      {"NCCL", MXNET_USE_NCCL != 0},
      {"CUDA_RTC", false},
      {"TENSORRT", false},
#ifdef __SSE__
      {"CPU_SSE", true},
#else
      {"CPU_SSE", false},
#endif
#ifdef __SSE2__
      {"CPU_SSE2", true},
#else
      {"CPU_SSE2", false},
#endif
#ifdef __SSE3__
      {"CPU_SSE3", true},
#else
      {"CPU_SSE3", false},
#endif
#ifdef __SSE4_1__
      {"CPU_SSE4_1", true},
#else
      {"CPU_SSE4_1", false},
#endif
#ifdef __SSE4_2__
      {"CPU_SSE4_2", true},
#else
      {"CPU_SSE4_2", false},
#endif
#ifdef __SSE4A__
      {"CPU_SSE4A", true},
#else
      {"CPU_SSE4A", false},
#endif
#ifdef __AVX__
      {"CPU_AVX", true},
#else
      {"CPU_AVX", false},
#endif
#ifdef __AVX2__
      {"CPU_AVX2", true},
#else
      {"CPU_AVX2", false},
#endif
      {"OPENMP", MXNET_USE_OPENMP != 0},
      {"SSE", false},  // never set by MXNet 1.x either
#ifdef __F16C__
      {"F16C", true},
#else
      {"F16C", false},
#endif
      {"JEMALLOC", false},
      {"BLAS_OPEN", MXNET_USE_OPENBLAS != 0},
      {"BLAS_ATLAS", false},
      {"BLAS_MKL", false},
      {"BLAS_APPLE", false},
      {"LAPACK", MXNET_USE_OPENBLAS != 0},  // OpenBLAS ships LAPACK
      {"MKLDNN", MXNET_USE_ONEDNN != 0},
      {"OPENCV", MXNET_USE_OPENCV != 0},
      {"CAFFE", false},
      {"PROFILER", false},  // 1.x reports it unset; the profiler is always built in
      {"DIST_KVSTORE", MXNET_USE_MPI != 0},
      {"CXX14", false},  // 1.x reports it unset
      {"INT64_TENSOR_SIZE", true},
      {"SIGNAL_HANDLER", true},
      {"DEBUG", MXNET_DEBUG_BUILD != 0},
      {"TVM_OP", false},
      {"ONEDNN", MXNET_USE_ONEDNN != 0},
      {"CYTHON", MXNET_USE_CYTHON != 0},
  };
  *size = sizeof(features) / sizeof(features[0]);
  return features;
}

struct RuntimeInfoTag;

}  // namespace

int MXGetVersion(int* out) {
  API_BEGIN();
  *out = MXNET_VERSION;
  API_END();
}

int MXLibInfoFeatures(const LibFeature** lib_features, size_t* size) {
  API_BEGIN();
  *lib_features = Features(size);
  API_END();
}

int MXLibInfoCompiledWithCXX11ABI(int* result) {
  API_BEGIN();
  *result = _GLIBCXX_USE_CXX11_ABI;
  API_END();
}

int MXGetRuntimeInfo(mx_uint* out_size, const char*** out_keys, const char*** out_values) {
  API_BEGIN();
  struct Returned {
    std::vector<std::pair<std::string, std::string>> info;
    std::vector<const char*> keys, values;
  };
  auto& ret = mxnet::capi::ThreadLocalReturn<RuntimeInfoTag, Returned>();
  ret.info = mxnet::common::RuntimeInfo();
  ret.info.insert(ret.info.begin(), {"omp_max_threads", std::to_string(omp_get_max_threads())});
  // The Python package bounds OpenMP's spinning (GOMP_SPINCOUNT) unless the user chose.
  const char* wait_policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin_count = std::getenv("GOMP_SPINCOUNT");
  const std::string policy = wait_policy  ? std::string(wait_policy)
                             : spin_count ? "GOMP_SPINCOUNT=" + std::string(spin_count)
                                          : "(OpenMP default)";
  ret.info.insert(ret.info.begin() + 1, {"omp_wait_policy", policy});
  ret.info.insert(ret.info.begin(), {"compatible_version", "1.9.1"});
  ret.info.insert(ret.info.begin(), {"version", MXNET_RUNTIME_VERSION_STRING});
  ret.keys.clear();
  ret.values.clear();
  for (auto& kv : ret.info) {
    ret.keys.push_back(kv.first.c_str());
    ret.values.push_back(kv.second.c_str());
  }
  *out_size = static_cast<mx_uint>(ret.info.size());
  *out_keys = ret.keys.data();
  *out_values = ret.values.data();
  API_END();
}
