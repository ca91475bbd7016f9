/*!
 * \file collective_protocol.h
 * \brief The messages of the collective group's negotiation (hello, report, plan, error), the
 *        fusion planning rank 0 does, and the texts that describe collectives in errors.
 *
 * Every rank runs the same build on the same architecture, so messages are plain host-order
 * fixed-width fields.
 */
#ifndef MXNET_KVSTORE_COLLECTIVE_PROTOCOL_H_
#define MXNET_KVSTORE_COLLECTIVE_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kvstore/collective_group.h"

namespace mxnet {
namespace kvstore {
namespace protocol {

// Tags: the control stream carries every negotiation message between a pair of ranks; the
// data phases have a stream each, so a fast rank's next phase cannot match a slow rank's
// receives of the current one.
constexpr int kTagControl = 1;
constexpr int kTagReduceScatter = 2;
constexpr int kTagAllgather = 3;  // the allreduce's gather of the summed slices
constexpr int kTagBroadcast = 4;
constexpr int kTagGatherParts = 5;  // the allgather kind's parts

/*! \brief Key of the barrier a group holds when it shuts down (a kvstore's barriers use -1). */
constexpr int64_t kShutdownKey = -2;

constexpr size_t kMaxDescsPerReport = 1024;
constexpr size_t kMaxCollectivesPerPlan = 1024;
constexpr size_t kMaxErrorBytes = 8192;
/*! \brief Capacity of every control receive; the largest message is a full report. */
constexpr size_t kMaxControlBytes = 64 * 1024;

// kError fails the receiver at once; kFailAt (rank 0 to all, after the plans before that
// collective) fails it when its execution reaches the collective, so that collectives the
// ranks agreed on still complete everywhere.
enum class MessageType : uint32_t { kHello = 1, kReport = 2, kPlan = 3, kError = 4, kFailAt = 5 };

/*! \brief Who a rank is: for error messages and for the liveness check of same-host peers. */
struct PeerIdentity {
  std::string description;    // Transport::Describe(): "host:pid"
  std::string host;           // gethostname
  std::string pid_namespace;  // /proc/self/ns/pid: equal hosts in different containers differ
  int64_t pid = 0;
};

/*! \brief A collective as a rank reports it; abandoned: announced, never started, shutting down. */
struct ReportedDesc {
  CollectiveDesc desc;
  bool abandoned = false;
};

/*!
 * \brief One group of consecutive collectives that run as one: a fused allreduce (length >= 1),
 *        a broadcast, an allgather or a barrier (length 1), or a cancelled collective (some rank
 *        abandoned it).
 */
struct PlannedGroup {
  uint32_t length = 1;
  int32_t cancelled_by = -1;  // the rank that abandoned it, or -1
};

struct Plan {
  uint64_t first_seq = 0;
  std::vector<PlannedGroup> groups;
  std::string fail_message;  // set: not a plan but the point where the group fails (kFailAt)
};

std::vector<char> EncodeHello(const PeerIdentity& id);
std::vector<char> EncodeReport(uint64_t first_seq, const std::vector<ReportedDesc>& descs);
std::vector<char> EncodePlan(const Plan& plan);
std::vector<char> EncodeError(const std::string& text);
std::vector<char> EncodeFailAt(uint64_t seq, const std::string& text);

/*! \brief A decoded control message; throws std::runtime_error on a malformed one. */
struct ControlMessage {
  MessageType type{MessageType::kError};
  PeerIdentity hello;
  uint64_t first_seq = 0;           // report
  std::vector<ReportedDesc> descs;  // report
  Plan plan;
  std::string error;  // error, fail-at
};
ControlMessage DecodeControl(const char* data, size_t bytes);

/*!
 * \brief Cuts a prefix of collectives ready on every rank into groups: consecutive allreduces
 *        of one dtype are fused while their total stays within fusion_bytes (one larger than
 *        that runs alone; 0 disables fusion); every other kind runs alone; abandoned[i] >= 0
 *        cancels collective i (that rank abandoned it).
 */
std::vector<PlannedGroup> PlanGroups(const std::vector<CollectiveDesc>& descs, const std::vector<int>& abandoned_by,
                                     size_t fusion_bytes);

/*!
 * \brief "allreduce of key 7 (1000 float32)", "broadcast of key 3 (12 int64)", "allgather of
 *        key 5 (40 float32 per rank)", "barrier", or "its shutdown (the end of its distributed
 *        kvstore)".
 */
std::string DescribeCollective(const CollectiveDesc& desc);
/*! \brief Same kind and key, and for data collectives the same count and dtype. */
bool SameCollective(const CollectiveDesc& a, const CollectiveDesc& b);
/*! \brief Bytes of the collective's data (0 for a barrier; one rank's part for an allgather). */
size_t CollectiveBytes(const CollectiveDesc& desc);

}  // namespace protocol
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COLLECTIVE_PROTOCOL_H_
