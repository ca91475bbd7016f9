/*!
 * \file collective_data_phase.h
 * \brief The data movement of one (fused) collective, as non-blocking state machines the
 *        communication thread advances between its other duties (control messages, deadlines,
 *        liveness checks). Allreduce and broadcast: collective_data_phase.cc; allgather:
 *        collective_allgather.cc.
 */
#ifndef MXNET_KVSTORE_COLLECTIVE_DATA_PHASE_H_
#define MXNET_KVSTORE_COLLECTIVE_DATA_PHASE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "kvstore/transport.h"

namespace mxnet {
namespace kvstore {

/*!
 * \brief Data messages are cut into chunks of at most this many bytes: large enough that the
 *        cost per message (microseconds) is small next to its copy (about 100 us per MiB over
 *        shared memory), small enough that the slice of a large buffer spans several chunks,
 *        so that summing one overlaps the transfer of the next and the receive space stays
 *        bounded (kReceiveWindow chunks per peer). On 2 ranks over shared memory, 1 MiB was as
 *        fast as 128 and 256 KiB from 1 MB buffers on, and faster at 1 MB.
 */
constexpr size_t kDefaultChunkBytes = 1 << 20;
/*! \brief Chunks a rank may receive ahead of its summing (allgather: have outstanding), per peer. */
constexpr size_t kReceiveWindow = 4;

/*! \brief Receive space reused across collectives (allocated once, grown when needed). */
class ScratchSpace {
 public:
  char* Get(size_t bytes);

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

class DataPhase {
 public:
  virtual ~DataPhase() = default;
  /*! \brief Advances without blocking; true once finished. Sets *progressed when anything moved. */
  virtual bool Progress(bool* progressed) = 0;
  /*! \brief Ranks with a send or receive of ours still outstanding (whom we wait for). */
  virtual std::vector<int> AwaitedPeers() const = 0;
};

/*!
 * \brief For the phases' implementations: tests a request once; a null one counts as completed.
 *        A completed one is reset and sets *progressed.
 */
bool RequestDone(std::unique_ptr<TransportRequest>* request, bool* progressed);

/*!
 * \brief Sum of count elements of dtype in place across all ranks: the buffer is cut into one
 *        near-equal contiguous slice per rank; rank j receives slice j from every rank, sums the
 *        contributions in rank order (collective_sum.h), then every rank receives every summed
 *        slice. Bit-identical on all ranks.
 */
std::unique_ptr<DataPhase> StartAllreduce(Transport* transport, void* data, size_t count, int dtype, size_t chunk_bytes,
                                          ScratchSpace* scratch);

/*! \brief Rank 0's bytes copied into every rank's buffer. */
std::unique_ptr<DataPhase> StartBroadcast(Transport* transport, void* data, size_t bytes, size_t chunk_bytes);

/*!
 * \brief data holds size() parts of count elements of dtype, this rank's filled in at
 *        [rank * count, (rank + 1) * count); every rank sends its part to every other and
 *        receives theirs straight into place. Chunks hold whole elements.
 */
std::unique_ptr<DataPhase> StartAllgather(Transport* transport, void* data, size_t count, int dtype,
                                          size_t chunk_bytes);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COLLECTIVE_DATA_PHASE_H_
