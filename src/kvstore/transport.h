/*!
 * \file transport.h
 * \brief Point-to-point messaging between the processes of a distributed job.
 *
 * The distributed kvstore builds every collective (allreduce, broadcast, allgather, barrier)
 * from these non-blocking sends and receives, so that it can poll with a deadline and name a
 * rank that is missing instead of blocking forever inside a library collective. Implementations: MPI
 * (src/kvstore/mpi/, loaded from libmxnet_mpi.so at the first distributed kvstore) and an
 * in-process one whose "ranks" are threads (transport_inproc.h, for tests).
 *
 * All calls on one Transport come from one thread (the collective group's communication
 * thread), Init first. Messages between one pair of ranks with one tag arrive in the order
 * they were sent and match receives in the order those were posted (as in MPI). A send may
 * complete only once the receiver has posted its receive, so no protocol may wait for a send
 * before posting the receives its peer waits for. Errors are thrown as std::exception (the MPI
 * plugin cannot use the library's own error type).
 */
#ifndef MXNET_KVSTORE_TRANSPORT_H_
#define MXNET_KVSTORE_TRANSPORT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace mxnet {
namespace kvstore {

/*!
 * \brief One outstanding send or receive. Destroying it before it completed abandons it: the
 *        transport stops writing into a receive's buffer; an abandoned send may still be read
 *        from until the transport is finalized or the process ends.
 */
class TransportRequest {
 public:
  virtual ~TransportRequest() = default;
  /*! \brief Progresses the request; true once it has completed (then the buffer is free). */
  virtual bool Test() = 0;
  /*! \brief For a completed receive: the bytes that arrived. */
  virtual size_t received_bytes() const = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /*!
   * \brief Called once, first, on the thread that makes every later call (MPI: MPI_Init_thread
   *        happens here, so that thread is the one MPI knows). Blocks until the job's ranks are
   *        connected.
   */
  virtual void Init() {}
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /*! \brief Sends bytes to rank dst with a tag (0..1023); buf must stay valid until the request completes. */
  virtual std::unique_ptr<TransportRequest> ISend(const void* buf, size_t bytes, int dst, int tag) = 0;
  /*! \brief Receives at most bytes from rank src with a tag into buf (a longer message is an error). */
  virtual std::unique_ptr<TransportRequest> IRecv(void* buf, size_t bytes, int src, int tag) = 0;
  /*! \brief A short description of where this process runs ("host:pid"), for error messages. */
  virtual std::string Describe() const = 0;
  /*!
   * \brief False once the transport knows that rank's process is gone. The collective group
   *        checks peers on the same host itself (by pid); this is for what only the transport
   *        can know (the in-process transport's killed ranks). Must be cheap: called about
   *        once a second per peer while a collective waits.
   */
  virtual bool PeerAlive(int rank) { return true; }
  /*! \brief Ends the job after an unrecoverable error (peers are not waited for). */
  virtual void Abort(int code) = 0;
  /*! \brief Orderly shutdown after the last collective (every request completed or abandoned). */
  virtual void Finalize() = 0;
};

/*!
 * \brief The process's transport for distributed kvstores: loads libmxnet_mpi.so (next to
 *        libmxnet.so) and creates the MPI transport; MPI itself is initialized by Init. Throws
 *        an mxnet::Error (MXNetError) naming what is missing (the plugin or libmpi) when it
 *        cannot.
 */
std::unique_ptr<Transport> CreateMPITransport();

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_TRANSPORT_H_
