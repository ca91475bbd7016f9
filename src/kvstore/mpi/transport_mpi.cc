// The MPI transport, built into libmxnet_mpi.so (the only library that links libmpi). It uses
// nothing from libmxnet.so but the Transport interface, and reports errors as std::exception.
#define OMPI_SKIP_MPICXX 1  // the C API only: no libmpi_cxx
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kvstore/transport.h"

namespace mxnet {
namespace kvstore {

namespace {

std::string ErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, len);
}

void Check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string(what) + ": " + ErrorText(code));
}

int ByteCount(size_t bytes) {
  if (bytes > static_cast<size_t>(INT_MAX))
    throw std::length_error("an MPI message of " + std::to_string(bytes) + " bytes");
  return static_cast<int>(bytes);
}

class MPIRequest : public TransportRequest {
 public:
  MPIRequest(MPI_Request request, bool receive) : request_(request), receive_(receive) {}
  ~MPIRequest() override {
    if (done_ || request_ == MPI_REQUEST_NULL) return;
    // Abandoned: a receive is withdrawn; a send is let go (MPI may still read its buffer).
    if (receive_) MPI_Cancel(&request_);
    MPI_Request_free(&request_);
  }
  bool Test() override {
    if (done_) return true;
    int flag = 0;
    MPI_Status status;
    Check(MPI_Test(&request_, &flag, &status), receive_ ? "MPI_Test (receive)" : "MPI_Test (send)");
    if (!flag) return false;
    done_ = true;
    if (receive_) {
      int count = 0;
      Check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
      received_ = static_cast<size_t>(count);
    }
    return true;
  }
  size_t received_bytes() const override { return received_; }

 private:
  MPI_Request request_;
  const bool receive_;
  bool done_ = false;
  size_t received_ = 0;
};

class MPITransport : public Transport {
 public:
  void Init() override {
    // Data loader workers fork after MPI started. They never call MPI, so OpenMPI's warning
    // about fork() is noise; with InfiniBand, libibverbs must also keep registered memory out
    // of the children (RDMAV_FORK_SAFE). Only when the user has not chosen otherwise.
    setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
    setenv("RDMAV_FORK_SAFE", "1", 0);
    int initialized = 0, finalized = 0;
    Check(MPI_Initialized(&initialized), "MPI_Initialized");
    Check(MPI_Finalized(&finalized), "MPI_Finalized");
    if (finalized) throw std::runtime_error("MPI was already finalized in this process");
    if (initialized) {
      // Someone else (mpi4py, Horovod) started MPI and may call it from other threads.
      int provided = 0;
      Check(MPI_Query_thread(&provided), "MPI_Query_thread");
      if (provided < MPI_THREAD_MULTIPLE) {
        throw std::runtime_error("MPI was initialized before the kvstore without MPI_THREAD_MULTIPLE");
      }
    } else {
      // Every call comes from the calling (communication) thread, one at a time.
      int provided = 0;
      Check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
      if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("this MPI library cannot be used from a thread");
      owns_mpi_ = true;
    }
    // A communicator of our own: other MPI users in the process cannot match our tags.
    Check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    Check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    Check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    Check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    describe_ = std::string(host) + ":" + std::to_string(getpid());
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::unique_ptr<TransportRequest> ISend(const void* buf, size_t bytes, int dst, int tag) override {
    MPI_Request request;
    Check(MPI_Isend(buf, ByteCount(bytes), MPI_BYTE, dst, tag, comm_, &request), "MPI_Isend");
    return std::make_unique<MPIRequest>(request, false);
  }
  std::unique_ptr<TransportRequest> IRecv(void* buf, size_t bytes, int src, int tag) override {
    MPI_Request request;
    Check(MPI_Irecv(buf, ByteCount(bytes), MPI_BYTE, src, tag, comm_, &request), "MPI_Irecv");
    return std::make_unique<MPIRequest>(request, true);
  }
  std::string Describe() const override { return describe_; }
  void Abort(int code) override {
    std::fflush(nullptr);
    MPI_Abort(comm_ != MPI_COMM_NULL ? comm_ : MPI_COMM_WORLD, code);
  }
  void Finalize() override {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    if (owns_mpi_) Check(MPI_Finalize(), "MPI_Finalize");
    owns_mpi_ = false;
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  std::string describe_;
};

}  // namespace

}  // namespace kvstore
}  // namespace mxnet

/*! \brief The plugin's entry point (see transport_loader.cc); null and a message on failure. */
extern "C" __attribute__((visibility("default"))) mxnet::kvstore::Transport* MXNetCreateMPITransportV1(
    char* error, size_t error_size) {
  try {
    return new mxnet::kvstore::MPITransport();
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return nullptr;
  }
}
