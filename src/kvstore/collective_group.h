/*!
 * \file collective_group.h
 * \brief Ordered, checked collectives for the distributed kvstore.
 *
 * Every collective is announced in program order (Announce, on the thread that calls the
 * kvstore; all ranks announce the same sequence) and started when its data is ready (Start,
 * usually from an engine operation once the gradient is computed). One communication thread
 * per process runs them strictly in announcement order. Before each round the ranks agree,
 * through rank 0, on which announced collectives are ready everywhere and fuse consecutive
 * small ones into one buffer (MXNET_KVSTORE_FUSION_BYTES); the agreement also checks that every
 * rank announced the same (kind, key, count, dtype) at each sequence number. A rank that
 * announces something else, or none within MXNET_KVSTORE_TIMEOUT seconds, or whose process has
 * died, makes every rank's pending and later collectives fail with an error naming that rank.
 *
 * An allgather moves each rank's part to every rank unchanged (compressed gradients, which each
 * rank then decodes and sums itself); it never fuses with other collectives.
 *
 * Sums are deterministic: each rank reduces one slice of the (fused) buffer, adding the ranks'
 * contributions in rank order 0..N-1, then the slices are gathered. So every rank receives
 * bit-identical results, the same in every run. float16 and bfloat16 are summed in float32
 * (in rank order) and rounded once, at the end; integers wrap around.
 *
 * How the rounds, fusion, failure detection and shutdown work: docs/architecture.md,
 * "Distributed kvstore transport".
 */
#ifndef MXNET_KVSTORE_COLLECTIVE_GROUP_H_
#define MXNET_KVSTORE_COLLECTIVE_GROUP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "kvstore/transport.h"

namespace mxnet {
namespace kvstore {

enum class CollectiveKind : int32_t {
  kAllreduceSum = 0,  // data: count elements of dtype, summed in place
  kBroadcast = 1,     // data: count elements of dtype, rank 0's value copied to every rank
  kBarrier = 2,       // no data
  kAllgather = 3,     // data: size() * count elements of dtype; rank r fills [r*count, (r+1)*count),
                      // every rank receives every part (compressed gradients)
};

/*! \brief What a collective is: every rank must announce the same description at a sequence number. */
struct CollectiveDesc {
  CollectiveKind kind{CollectiveKind::kBarrier};
  int64_t key{0};    // kvstore key (for messages and checks); -1 for barriers
  int64_t count{0};  // elements
  // mshadow type flag (kFloat32 = 0, ...); allreduce supports float32/64/16, bf16, int32/64, uint8, int8;
  // broadcast and allgather move any dtype's bytes
  int32_t dtype{0};
};

/*!
 * \brief Called on the communication thread when a collective finished; error is empty on
 *        success, else the message to raise (names the rank at fault).
 */
using CollectiveDone = std::function<void(const std::string& error)>;

class CollectiveGroup {
 public:
  /*!
   * \brief Starts the communication thread over a transport.
   * \param timeout_sec  how long a round may wait for a rank before failing (MXNET_KVSTORE_TIMEOUT)
   * \param fusion_bytes largest fused buffer (MXNET_KVSTORE_FUSION_BYTES); 0 disables fusion
   */
  CollectiveGroup(std::unique_ptr<Transport> transport, double timeout_sec, size_t fusion_bytes);
  /*! \brief Shutdown(), then stops the thread. */
  ~CollectiveGroup();
  CollectiveGroup(const CollectiveGroup&) = delete;
  CollectiveGroup& operator=(const CollectiveGroup&) = delete;

  int rank() const;
  int size() const;

  /*!
   * \brief Reserves the next sequence number for desc (thread-safe; call in program order).
   *        Throws for a dtype the kind does not support, a negative count, an allgather whose
   *        size() * count elements overflow, and in a forked child.
   */
  uint64_t Announce(const CollectiveDesc& desc);
  /*!
   * \brief The data of announced collective seq is ready: data (count elements of the dtype,
   *        size() * count for an allgather; may be null when there are none, as for a barrier)
   *        must stay valid until done runs. done runs exactly once, on the
   *        communication thread, possibly before Start returns if the group has already failed;
   *        on the caller's thread, with an error, once Shutdown has ended that thread or in a
   *        forked child. An exception thrown by done is logged and dropped.
   */
  void Start(uint64_t seq, void* data, CollectiveDone done);
  /*!
   * \brief Announce + Start + wait (for init-time broadcasts and barriers); throws mxnet::Error
   *        (MXNetError) with the group's error on failure. Not on the communication thread.
   */
  void RunBlocking(const CollectiveDesc& desc, void* data);
  /*! \brief Empty while healthy, else the first error (later collectives fail with it at once). */
  std::string error() const;

  /*!
   * \brief Ends the group: runs what was started; cancels announced collectives that were never
   *        started (on every rank, their done gets an error naming this rank); then a last
   *        barrier with the peers and Transport::Finalize. After a failure the finalize is
   *        skipped, since peers may be gone and it would wait for them. Later Starts fail at
   *        once (done then runs on the caller). Idempotent; the destructor calls it.
   */
  void Shutdown();
  /*!
   * \brief Ends the whole job through the transport (MPI_Abort) with an exit code. For exit
   *        after a failure: survivors that merely exited could leave mpirun waiting.
   */
  void AbortJob(int code);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/*!
 * \brief The process-wide group for distributed kvstores: created at the first call (MPI
 *        transport, MXNET_KVSTORE_TIMEOUT, MXNET_KVSTORE_FUSION_BYTES; thread-safe), shut down
 *        at exit (then, if it had failed, the job is aborted with exit code 1). Throws
 *        mxnet::Error when MPI cannot be loaded or started, and in a forked child.
 */
CollectiveGroup* ProcessCollectiveGroup();

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COLLECTIVE_GROUP_H_
