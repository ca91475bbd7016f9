/*!
 * \file transport_inproc.h
 * \brief A Transport whose ranks are threads of one process, for tests of the collective group.
 *
 * Messages are matched by (source, destination, tag) in send order, as in MPI. A send completes
 * only when a receive has taken it (MPI's synchronous mode, the strictest a protocol may meet),
 * so a protocol that would deadlock over MPI's rendezvous sends deadlocks here too.
 */
#ifndef MXNET_KVSTORE_TRANSPORT_INPROC_H_
#define MXNET_KVSTORE_TRANSPORT_INPROC_H_

#include <memory>

#include "kvstore/transport.h"

namespace mxnet {
namespace kvstore {

class InProcWorld {
 public:
  /*! \brief A world of size ranks; make one transport per rank with CreateTransport. */
  static std::shared_ptr<InProcWorld> Create(int size);
  virtual ~InProcWorld() = default;
  virtual int size() const = 0;
  /*! \brief The transport of one rank (it keeps the world alive). */
  virtual std::unique_ptr<Transport> CreateTransport(int rank) = 0;
  /*!
   * \brief Simulates the death of a rank: from now on its messages, in either direction, never
   *        arrive (pending ones included), its peers' PeerAlive(rank) is false, and its own
   *        transport's calls throw (its group fails at once instead of waiting for a timeout).
   */
  virtual void Kill(int rank) = 0;
  /*! \brief Messages delivered so far (to check that work happened). */
  virtual uint64_t delivered_messages() const = 0;
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_TRANSPORT_INPROC_H_
