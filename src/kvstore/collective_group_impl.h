/*!
 * \file collective_group_impl.h
 * \brief The state of a collective group, shared by the API (collective_group.cc) and the
 *        communication thread's parts: the thread loop and data rounds
 *        (collective_group_thread.cc) and the negotiation (collective_group_negotiation.cc).
 */
#ifndef MXNET_KVSTORE_COLLECTIVE_GROUP_IMPL_H_
#define MXNET_KVSTORE_COLLECTIVE_GROUP_IMPL_H_

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kvstore/collective_data_phase.h"
#include "kvstore/collective_group.h"
#include "kvstore/collective_peers.h"
#include "kvstore/collective_protocol.h"
#include "kvstore/transport.h"

namespace mxnet {
namespace kvstore {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
/*! \brief Seconds as messages print them ("45", "0.5"). */
inline std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", s);
  return buf;
}

/*! \brief A non-zero rank waits this much longer than the timeout for rank 0's plan: rank 0 may
 *         itself wait the whole timeout for another rank before it answers with an error. */
constexpr double kPlanGraceSec = 10;
/*! \brief After a failure, how long the error notices to the peers may take to leave. */
constexpr double kNoticeGraceSec = 2;

/*! \brief One announced collective, until it completes. */
struct Slot {
  CollectiveDesc desc;
  bool started = false;
  bool abandoned = false;  // never started before Shutdown: cancelled on every rank
  void* data = nullptr;
  CollectiveDone done;
};

/*! \brief Runs a done callback; an exception from it is logged, never passed on. */
void CallDone(const CollectiveDone& done, const std::string& error);

struct OutgoingMessage {
  int dst = 0;
  std::vector<char> bytes;
  std::unique_ptr<TransportRequest> request;
};

struct CollectiveGroup::Impl {
  Impl(std::unique_ptr<Transport> transport, double timeout_sec, size_t fusion_bytes);

  // ---- configuration ----
  // A forked child (a data loader worker) inherits this object but neither the thread nor the
  // transport: there every call fails at once instead of waiting for a thread that is not there.
  const pid_t owner_pid;
  bool InForkedChild() const { return getpid() != owner_pid; }
  std::string ForkedChildError() const;
  std::unique_ptr<Transport> transport;
  const double timeout_sec;
  const size_t fusion_bytes;
  size_t chunk_bytes = kDefaultChunkBytes;
  std::atomic<int> rank{0};
  std::atomic<int> size{1};

  // ---- shared between callers and the communication thread (guarded by mu) ----
  mutable std::mutex mu;
  std::condition_variable wake_cv;   // the communication thread sleeps on it when idle
  std::condition_variable state_cv;  // callers wait on it for init and thread exit
  bool wake = false;
  bool init_done = false;
  bool init_abandoned = false;  // the constructor gave up waiting for Init
  std::string init_error;
  std::deque<Slot> slots;  // slots[i] is collective slots_base + i
  uint64_t slots_base = 0;
  uint64_t next_announce = 0;
  std::string error;
  bool shutdown_requested = false;
  bool thread_exited = false;
  std::vector<std::pair<CollectiveDone, std::string>> late_dones;  // Starts after a failure
  std::thread thread;
  std::thread::id thread_id;
  /*! \brief Whether the caller is the communication thread (a done callback). */
  bool OnOwnThread() const;

  // ---- the communication thread's own state ----
  std::unique_ptr<PeerTable> peers;
  std::vector<std::vector<char>> control_buffers;  // one posted receive per peer
  std::vector<std::unique_ptr<TransportRequest>> control_requests;
  std::list<OutgoingMessage> outgoing;
  std::vector<std::vector<char>> abandoned_messages;
  std::optional<Clock::time_point> failed_at;
  // Negotiation. planned_upto: first collective no plan covers yet.
  uint64_t planned_upto = 0;
  uint64_t next_report = 0;                                  // non-zero ranks: first one not reported
  std::optional<Clock::time_point> plan_wait_since;          // non-zero ranks: reported, no plan yet
  std::vector<std::deque<protocol::ReportedDesc>> reported;  // rank 0: per rank, from planned_upto
  std::vector<size_t> agreement_checked;                     // rank 0: entries of reported[r] checked
  std::optional<Clock::time_point> join_wait_since;          // rank 0: someone ready, not all
  // Rank 0: the first collective the ranks disagree on and the error; nothing from it on is
  // planned, and the ranks fail when they get there.
  std::optional<std::pair<uint64_t, std::string>> disagreement;
  bool fail_at_sent = false;
  // Execution.
  std::deque<protocol::Plan> plans;
  size_t group_index = 0;  // within plans.front()
  uint64_t exec_seq = 0;   // first collective of that group
  std::unique_ptr<DataPhase> running;
  struct RunningGroup {
    uint64_t first_seq = 0;
    std::vector<CollectiveDesc> descs;
    std::vector<void*> data;
    bool fused = false;
  } running_group;
  Clock::time_point last_data_progress;
  ScratchSpace receive_space, fusion_space;
  Clock::time_point next_liveness_check;

  // ---- collective_group_thread.cc ----
  void Run();
  void Setup();
  void Loop();
  void Teardown(bool healthy);
  bool PollControl();
  bool PollOutgoing();
  bool Execute();
  void StartGroup();
  void FinishGroup();
  void CheckDataDeadline(Clock::time_point now);
  void CheckLiveness(Clock::time_point now);
  bool DeliverLateDones();
  bool Busy() const;
  bool ShouldExit();
  void Send(int dst, std::vector<char> bytes);
  /*! \brief Records the first error, tells the peers (when it arose here) and fails every pending collective. */
  void Fail(std::string message, bool notify_peers);  // by value: message may live in what Fail clears
  bool failed() const { return failed_at.has_value(); }
  /*! \brief "collective #12 (allreduce of key 7 (1000 float32))" from this rank's own announcement. */
  std::string CollectiveName(uint64_t seq, const CollectiveDesc* fallback = nullptr);

  // ---- collective_group_negotiation.cc ----
  bool Negotiate();
  bool ReportReady();  // non-zero ranks
  bool PlanReady();    // rank 0
  /*! \brief The first collective (from planned_upto) where a report differs from rank 0's announcement, and the error.
   */
  std::optional<std::pair<uint64_t, std::string>> CheckAgreement();
  void CheckNegotiationDeadline(Clock::time_point now);
  void OnReport(int src, const protocol::ControlMessage& m);
  void OnPlan(int src, const protocol::ControlMessage& m);
  void OnFailAt(int src, const protocol::ControlMessage& m);
};

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_COLLECTIVE_GROUP_IMPL_H_
