/*!
 * \file collective_peers.h
 * \brief Who the ranks are (exchanged at start-up) and whether a rank's process still exists.
 */
#ifndef MXNET_KVSTORE_COLLECTIVE_PEERS_H_
#define MXNET_KVSTORE_COLLECTIVE_PEERS_H_

#include <string>
#include <vector>

#include "kvstore/collective_protocol.h"
#include "kvstore/transport.h"

namespace mxnet {
namespace kvstore {

/*! \brief This process: the transport's description, host name, pid namespace and pid. */
protocol::PeerIdentity LocalIdentity(const Transport& transport);

/*!
 * \brief What this rank knows of every rank, for error messages and liveness checks.
 */
class PeerTable {
 public:
  PeerTable(int rank, int size, protocol::PeerIdentity self);
  void Learn(int rank, const protocol::PeerIdentity& id);
  /*! \brief "rank 3 (host:pid)", or "rank 3 (not heard from)" before its hello arrived. */
  std::string Name(int rank) const;
  /*! \brief "rank 3 (h:p)" or "ranks 1 (h:p), 3 (h:p)". */
  std::string Names(const std::vector<int>& ranks) const;
  /*!
   * \brief False when the rank's process is known to be gone: the transport says so, or it runs
   *        on this host (same host name and pid namespace) and its pid no longer exists.
   */
  bool Alive(int rank, Transport* transport) const;

 private:
  struct Entry {
    bool known = false;
    protocol::PeerIdentity id;
  };
  int rank_;
  std::vector<Entry> entries_;
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COLLECTIVE_PEERS_H_
