// Prints the runtime's version and which build features it has, through the C API.
#include <mxnet/c_api.h>

#include <cstdio>

int main() {
  int version = 0;
  if (MXGetVersion(&version) != 0) {
    std::fprintf(stderr, "MXGetVersion failed: %s\n", MXGetLastError());
    return 1;
  }
  std::printf("MXNet API version %d.%d.%d\n", version / 10000, version / 100 % 100, version % 100);
  const LibFeature* features = nullptr;
  size_t count = 0;
  if (MXLibInfoFeatures(&features, &count) != 0) {
    std::fprintf(stderr, "MXLibInfoFeatures failed: %s\n", MXGetLastError());
    return 1;
  }
  std::printf("Enabled features:");
  for (size_t i = 0; i < count; ++i) {
    if (features[i].enabled) std::printf(" %s", features[i].name);
  }
  std::printf("\n");
  return 0;
}
