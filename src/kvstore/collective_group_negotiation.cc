// The negotiation of a collective group. Every non-zero rank reports to rank 0, as they become
// ready, the collectives it started (or abandoned at shutdown), in sequence order. Rank 0
// checks that the reports agree with its own announcements, and once every rank has the next
// collective ready it plans the longest prefix ready everywhere (fused into groups) and sends
// that plan to all; every rank then runs the plan. Rank 0 alone decides, so every rank fuses
// identically; it alone waits on everyone, so it names who is late.
#include <algorithm>
#include <string>

#include "common/logging.h"
#include "kvstore/collective_group_impl.h"

namespace mxnet {
namespace kvstore {

bool CollectiveGroup::Impl::Negotiate() { return rank == 0 ? PlanReady() : ReportReady(); }

bool CollectiveGroup::Impl::ReportReady() {
  std::vector<protocol::ReportedDesc> ready;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (uint64_t seq = std::max(next_report, slots_base); seq - slots_base < slots.size(); ++seq) {
      const Slot& slot = slots[seq - slots_base];
      if (!slot.started && !slot.abandoned) break;
      ready.push_back(protocol::ReportedDesc{slot.desc, slot.abandoned});
      if (ready.size() == protocol::kMaxDescsPerReport) break;
    }
  }
  if (ready.empty()) return false;
  Send(0, protocol::EncodeReport(next_report, ready));
  next_report += ready.size();
  if (!plan_wait_since) plan_wait_since = Clock::now();
  return true;
}

void CollectiveGroup::Impl::OnPlan(int src, const protocol::ControlMessage& m) {
  if (src != 0 || rank == 0) throw std::runtime_error("a plan came from rank " + std::to_string(src));
  if (m.plan.first_seq != planned_upto) {
    throw std::runtime_error("rank 0 planned from collective #" + std::to_string(m.plan.first_seq) + " where #" +
                             std::to_string(planned_upto) + " was expected");
  }
  uint64_t covered = 0;
  for (const protocol::PlannedGroup& g : m.plan.groups) covered += g.length;
  if (planned_upto + covered > next_report)
    throw std::runtime_error("rank 0 planned collectives this rank never reported");
  planned_upto += covered;
  plans.push_back(m.plan);
  // Waiting for the next plan starts over: rank 0 may have to wait the timeout again.
  if (planned_upto < next_report) {
    plan_wait_since = Clock::now();
  } else {
    plan_wait_since.reset();
  }
}

void CollectiveGroup::Impl::OnFailAt(int src, const protocol::ControlMessage& m) {
  if (src != 0 || rank == 0) throw std::runtime_error("a fail-at message came from rank " + std::to_string(src));
  if (m.first_seq != planned_upto) {
    throw std::runtime_error("rank 0 failed the group at collective #" + std::to_string(m.first_seq) + " where #" +
                             std::to_string(planned_upto) + " was expected");
  }
  protocol::Plan marker;
  marker.first_seq = m.first_seq;
  marker.fail_message = m.error;
  plans.push_back(std::move(marker));
  plan_wait_since.reset();  // no plan is coming
}

void CollectiveGroup::Impl::OnReport(int src, const protocol::ControlMessage& m) {
  if (rank != 0) throw std::runtime_error("a report came to rank " + std::to_string(rank));
  std::deque<protocol::ReportedDesc>& known = reported[src];
  if (m.first_seq != planned_upto + known.size()) {
    throw std::runtime_error("rank " + std::to_string(src) + " reported from collective #" +
                             std::to_string(m.first_seq) + " where #" + std::to_string(planned_upto + known.size()) +
                             " was expected");
  }
  known.insert(known.end(), m.descs.begin(), m.descs.end());
}

std::optional<std::pair<uint64_t, std::string>> CollectiveGroup::Impl::CheckAgreement() {
  // Every report is compared with rank 0's own announcement at the same sequence number, as
  // soon as both exist; all ranks that differ at the earliest disagreement are named.
  std::lock_guard<std::mutex> lock(mu);
  uint64_t first_bad = UINT64_MAX;
  for (int r = 1; r < size; ++r) {
    const auto& known = reported[r];
    for (size_t& i = agreement_checked[r]; i < known.size(); ++i) {
      const uint64_t seq = planned_upto + i;
      if (seq - slots_base >= slots.size()) break;  // rank 0 has not announced it yet
      if (!protocol::SameCollective(known[i].desc, slots[seq - slots_base].desc)) {
        first_bad = std::min(first_bad, seq);
        break;
      }
    }
  }
  if (first_bad == UINT64_MAX) return std::nullopt;
  const CollectiveDesc own = slots[first_bad - slots_base].desc;
  std::string message;
  for (int r = 1; r < size; ++r) {
    const auto& known = reported[r];
    const size_t i = first_bad - planned_upto;
    if (i >= known.size() || protocol::SameCollective(known[i].desc, own)) continue;
    if (!message.empty()) message += "; ";
    message += peers->Name(r) + " announced " + protocol::DescribeCollective(known[i].desc);
  }
  message += " where rank 0 announced " + protocol::DescribeCollective(own) + " at collective #" +
             std::to_string(first_bad) + ": every rank must make the same kvstore calls in the same order";
  return std::make_pair(first_bad, message);
}

bool CollectiveGroup::Impl::PlanReady() {
  if (!disagreement) {
    disagreement = CheckAgreement();
    if (disagreement) common::LogWarning("distributed kvstore (rank 0): " + disagreement->second);
  }
  // How many collectives from planned_upto are ready here, and on every rank.
  std::vector<CollectiveDesc> descs;
  std::vector<int> abandoned_by;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (uint64_t seq = std::max(planned_upto, slots_base); seq - slots_base < slots.size(); ++seq) {
      const Slot& slot = slots[seq - slots_base];
      if ((!slot.started && !slot.abandoned) || descs.size() == protocol::kMaxCollectivesPerPlan) break;
      descs.push_back(slot.desc);
      abandoned_by.push_back(slot.abandoned ? 0 : -1);
    }
  }
  size_t ready = descs.size();
  bool anyone_ready = ready > 0;
  for (int r = 1; r < size; ++r) {
    ready = std::min(ready, reported[r].size());
    anyone_ready = anyone_ready || !reported[r].empty();
  }
  if (disagreement) {
    // What came before still runs everywhere; the ranks fail where they disagree, after it.
    ready = std::min<uint64_t>(ready, disagreement->first - planned_upto);
    if (planned_upto == disagreement->first) {
      join_wait_since.reset();
      if (fail_at_sent) return false;
      fail_at_sent = true;
      const std::vector<char> message = protocol::EncodeFailAt(planned_upto, disagreement->second);
      for (int r = 1; r < size; ++r) Send(r, message);
      protocol::Plan marker;
      marker.first_seq = planned_upto;
      marker.fail_message = disagreement->second;
      plans.push_back(std::move(marker));
      return true;
    }
  }
  if (ready == 0) {
    if (!anyone_ready) {
      join_wait_since.reset();
    } else if (!join_wait_since) {
      join_wait_since = Clock::now();
    }
    return false;
  }
  descs.resize(ready);
  abandoned_by.resize(ready);
  for (int r = 1; r < size; ++r) {
    for (size_t i = 0; i < ready; ++i) {
      if (reported[r][i].abandoned && abandoned_by[i] < 0) abandoned_by[i] = r;
    }
    reported[r].erase(reported[r].begin(), reported[r].begin() + ready);
    agreement_checked[r] -= std::min(agreement_checked[r], ready);
  }
  protocol::Plan plan;
  plan.first_seq = planned_upto;
  plan.groups = protocol::PlanGroups(descs, abandoned_by, fusion_bytes);
  const std::vector<char> message = protocol::EncodePlan(plan);
  for (int r = 1; r < size; ++r) Send(r, message);
  plans.push_back(std::move(plan));
  planned_upto += ready;
  join_wait_since.reset();  // the next round's wait starts when someone is ready for it
  return true;
}

void CollectiveGroup::Impl::CheckNegotiationDeadline(Clock::time_point now) {
  if (rank != 0) {
    if (!plan_wait_since || Seconds(now - *plan_wait_since) <= timeout_sec + kPlanGraceSec) return;
    Fail(peers->Name(0) + " sent no plan for " + CollectiveName(planned_upto) + " within " +
             FormatSeconds(timeout_sec + kPlanGraceSec) + " s (MXNET_KVSTORE_TIMEOUT + " +
             FormatSeconds(kPlanGraceSec) + " s): it is stuck or gone",
         true);
    return;
  }
  if (!join_wait_since || Seconds(now - *join_wait_since) <= timeout_sec) return;
  std::vector<int> late;
  const CollectiveDesc* reference = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    const uint64_t seq = planned_upto;
    const bool own_ready = seq >= slots_base && seq - slots_base < slots.size() &&
                           (slots[seq - slots_base].started || slots[seq - slots_base].abandoned);
    if (!own_ready) late.push_back(0);
  }
  for (int r = 1; r < size; ++r) {
    if (reported[r].empty()) {
      late.push_back(r);
    } else if (!reference) {
      reference = &reported[r].front().desc;
    }
  }
  Fail(peers->Names(late) + " did not join " + CollectiveName(planned_upto, reference) + " within " +
           FormatSeconds(timeout_sec) + " s; MXNET_KVSTORE_TIMEOUT sets the limit",
       true);
}

}  // namespace kvstore
}  // namespace mxnet
