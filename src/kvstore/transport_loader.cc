// CreateMPITransport: libmxnet.so never links MPI (importing it must work where OpenMPI is not
// installed); the MPI transport lives in libmxnet_mpi.so beside it, loaded at the first
// distributed kvstore.
#include <dlfcn.h>
#include <unistd.h>

#include <string>

#include "kvstore/transport.h"
#include "mxnet/error.h"

namespace mxnet {
namespace kvstore {

namespace {

constexpr const char* kPluginName = "libmxnet_mpi.so";
// The plugin's factory; the version changes whenever the Transport interface does.
constexpr const char* kFactorySymbol = "MXNetCreateMPITransportV1";
using Factory = Transport* (*)(char* error, size_t error_size);

// The directory of the library (or program) this code was linked into.
std::string OwnDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&CreateMPITransport), &info) == 0 || !info.dli_fname) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

bool FileExists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

}  // namespace

std::unique_ptr<Transport> CreateMPITransport() {
  // Beside libmxnet.so first; else the usual search (RUNPATH, LD_LIBRARY_PATH), which finds it
  // for programs that link the library's objects directly.
  const std::string beside = OwnDirectory() + kPluginName;
  const std::string path = FileExists(beside) ? beside : kPluginName;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const std::string why = dlerror();
    if (!FileExists(beside) && why.find(kPluginName) != std::string::npos) {
      MX_THROW("MXNetError") << "the distributed kvstore needs " << beside
                             << ", which is missing: this build has no MPI support (rebuild with OpenMPI installed: "
                                "apt-get install libopenmpi-dev openmpi-bin; cmake -DUSE_MPI=ON)";
    }
    MX_THROW("MXNetError") << "the distributed kvstore cannot load " << path << ": " << why
                           << " (it needs OpenMPI's libmpi: apt-get install openmpi-bin)";
  }
  auto factory = reinterpret_cast<Factory>(dlsym(handle, kFactorySymbol));
  if (!factory) {
    MX_THROW("MXNetError") << path << " has no " << kFactorySymbol
                           << ": it comes from another version of the library; rebuild or reinstall both together";
  }
  char error[1024] = {0};
  Transport* transport = factory(error, sizeof(error));  // the handle stays open: the code lives there
  if (!transport) MX_THROW("MXNetError") << "the MPI transport could not be created: " << error;
  return std::unique_ptr<Transport>(transport);
}

}  // namespace kvstore
}  // namespace mxnet
