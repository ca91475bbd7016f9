// The communication thread of a collective group: one loop that polls the control messages,
// negotiates (collective_group_negotiation.cc), advances the running data phase and watches
// deadlines and the peers' processes. Nothing in it blocks, so every wait has a deadline.
#include <algorithm>
#include <cstring>
#include <exception>

#include "common/logging.h"
#include "kvstore/collective_group_impl.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {

void CallDone(const CollectiveDone& done, const std::string& error) {
  if (!done) return;
  try {
    done(error);
  } catch (const std::exception& e) {
    // The caller's bug must not take the group, and every other rank's collectives, down.
    common::LogWarning(std::string("distributed kvstore: a collective's done callback threw: ") + e.what());
  }
}

void CollectiveGroup::Impl::Run() {
  try {
    transport->Init();
    rank = transport->rank();
    size = transport->size();
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mu);
    init_error = e.what();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    init_done = true;
    if (init_abandoned) return;  // nobody waits for this group any more
  }
  state_cv.notify_all();
  if (!init_error.empty()) return;
  bool healthy = false;
  try {
    Setup();
    Loop();
    healthy = !failed();
  } catch (const std::exception& e) {
    Fail(std::string("internal error in the communication thread: ") + e.what(), true);
  }
  Teardown(healthy);
}

void CollectiveGroup::Impl::Setup() {
  const int n = size, me = rank;
  peers = std::make_unique<PeerTable>(me, n, LocalIdentity(*transport));
  control_buffers.resize(n);
  control_requests.resize(n);
  reported.resize(n);
  agreement_checked.assign(n, 0);
  const std::vector<char> hello = protocol::EncodeHello(LocalIdentity(*transport));
  for (int p = 0; p < n; ++p) {
    if (p == me) continue;
    control_buffers[p].resize(protocol::kMaxControlBytes);
    control_requests[p] =
        transport->IRecv(control_buffers[p].data(), protocol::kMaxControlBytes, p, protocol::kTagControl);
    Send(p, hello);
  }
  next_liveness_check = Clock::now();
}

void CollectiveGroup::Impl::Loop() {
  Clock::time_point last_progress = Clock::now();
  while (true) {
    bool progressed = false;
    try {
      progressed |= PollControl();
      progressed |= PollOutgoing();
      if (!failed()) {
        progressed |= Negotiate();
        progressed |= Execute();
        const Clock::time_point now = Clock::now();
        CheckNegotiationDeadline(now);
        CheckDataDeadline(now);
        if (!ShouldExit()) CheckLiveness(now);
      }
    } catch (const std::exception& e) {
      Fail(peers->Name(rank) + ": transport error: " + e.what(), true);
    }
    progressed |= DeliverLateDones();
    if (ShouldExit()) return;
    const Clock::time_point now = Clock::now();
    if (progressed) {
      last_progress = now;
      continue;
    }
    // Progress over MPI happens only inside its calls, so while a collective is under way the
    // loop keeps polling (yielding the core), and for a while after the last one too: the
    // next usually follows at once (a training step's gradients), and waking a sleeping
    // thread costs more than the collective itself for small ones. Then it naps while
    // waiting for peers (longer after 50 ms), and sleeps until a caller wakes it when nothing
    // is pending.
    const bool busy = Busy();
    const auto idle = now - last_progress;
    if (idle < (busy ? std::chrono::milliseconds(5) : std::chrono::milliseconds(1))) {
      std::this_thread::yield();
      continue;
    }
    const auto nap = !busy                                  ? std::chrono::microseconds(2000)
                     : idle < std::chrono::milliseconds(50) ? std::chrono::microseconds(100)
                                                            : std::chrono::microseconds(1000);
    std::unique_lock<std::mutex> lock(mu);
    wake_cv.wait_for(lock, nap, [this] { return wake; });
    wake = false;
  }
}

void CollectiveGroup::Impl::Teardown(bool healthy) {
  running.reset();
  control_requests.clear();  // abandons the posted receives
  if (healthy) {
    try {
      transport->Finalize();
    } catch (const std::exception& e) {
      common::LogWarning(std::string("distributed kvstore: finalizing the transport failed: ") + e.what());
    }
  }
  // After a failure the finalize is skipped (it would wait for peers that may be gone).
  // Unfinished sends are abandoned, but the transport may still read their bytes: those live
  // as long as this group.
  for (auto& m : outgoing) {
    m.request.reset();
    abandoned_messages.push_back(std::move(m.bytes));
  }
  outgoing.clear();
  std::vector<std::pair<CollectiveDone, std::string>> dones;
  {
    std::lock_guard<std::mutex> lock(mu);
    thread_exited = true;
    dones.swap(late_dones);
  }
  for (auto& [done, message] : dones) CallDone(done, message);
  state_cv.notify_all();
}

bool CollectiveGroup::Impl::ShouldExit() {
  std::lock_guard<std::mutex> lock(mu);
  if (!shutdown_requested) return false;
  if (failed()) {
    // Messages to a dead peer never leave; the others get a moment to.
    const bool only_to_the_dead = std::all_of(outgoing.begin(), outgoing.end(), [this](const OutgoingMessage& m) {
      return !peers->Alive(m.dst, transport.get());
    });
    return only_to_the_dead || Seconds(Clock::now() - *failed_at) > kNoticeGraceSec;
  }
  return slots.empty() && outgoing.empty() && late_dones.empty();
}

bool CollectiveGroup::Impl::Busy() const {
  return running || !plans.empty() || plan_wait_since || join_wait_since || !outgoing.empty();
}

void CollectiveGroup::Impl::Send(int dst, std::vector<char> bytes) {
  outgoing.push_back(OutgoingMessage{dst, std::move(bytes), nullptr});
  OutgoingMessage& m = outgoing.back();
  m.request = transport->ISend(m.bytes.data(), m.bytes.size(), dst, protocol::kTagControl);
}

bool CollectiveGroup::Impl::PollOutgoing() {
  bool progressed = false;
  for (auto it = outgoing.begin(); it != outgoing.end();) {
    if (it->request->Test()) {
      it = outgoing.erase(it);
      progressed = true;
    } else {
      ++it;
    }
  }
  return progressed;
}

bool CollectiveGroup::Impl::PollControl() {
  bool progressed = false;
  for (int p = 0; p < size; ++p) {
    auto& request = control_requests[p];
    if (!request || !request->Test()) continue;
    progressed = true;
    const protocol::ControlMessage m = protocol::DecodeControl(control_buffers[p].data(), request->received_bytes());
    request = transport->IRecv(control_buffers[p].data(), protocol::kMaxControlBytes, p, protocol::kTagControl);
    switch (m.type) {
      case protocol::MessageType::kHello:
        peers->Learn(p, m.hello);
        break;
      case protocol::MessageType::kError:
        Fail(m.error, false);
        break;
      case protocol::MessageType::kReport:
        if (!failed()) OnReport(p, m);
        break;
      case protocol::MessageType::kPlan:
        if (!failed()) OnPlan(p, m);
        break;
      case protocol::MessageType::kFailAt:
        if (!failed()) OnFailAt(p, m);
        break;
    }
  }
  return progressed;
}

bool CollectiveGroup::Impl::Execute() {
  bool progressed = false;
  while (!failed()) {
    if (running) {
      bool moved = false;
      const bool finished = running->Progress(&moved);
      if (moved) {
        last_data_progress = Clock::now();
        progressed = true;
      }
      if (!finished) return progressed;
      running.reset();
      FinishGroup();
      progressed = true;
      continue;
    }
    if (plans.empty()) return progressed;
    if (!plans.front().fail_message.empty()) {
      Fail(plans.front().fail_message, false);  // every rank got the same marker
      return true;
    }
    StartGroup();
    progressed = true;
  }
  return progressed;
}

void CollectiveGroup::Impl::StartGroup() {
  const protocol::PlannedGroup group = plans.front().groups[group_index];
  RunningGroup& g = running_group;
  g = RunningGroup();
  g.first_seq = exec_seq;
  bool abandoned_here = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (uint32_t i = 0; i < group.length; ++i) {
      const Slot& slot = slots.at(exec_seq + i - slots_base);
      g.descs.push_back(slot.desc);
      g.data.push_back(slot.data);
      abandoned_here = abandoned_here || slot.abandoned;
    }
  }
  const CollectiveDesc& first = g.descs[0];
  if (group.cancelled_by >= 0) {
    std::string message = CollectiveName(exec_seq) + " was cancelled: " + peers->Name(group.cancelled_by) +
                          " shut down its distributed kvstore before starting it";
    std::vector<CollectiveDone> dones;
    {
      std::lock_guard<std::mutex> lock(mu);
      Slot& slot = slots.front();
      if (slot.started) dones.push_back(std::move(slot.done));
      slots.pop_front();
      ++slots_base;
    }
    for (auto& done : dones) CallDone(done, message);
    ++exec_seq;
    if (++group_index == plans.front().groups.size()) plans.pop_front(), group_index = 0;
    return;
  }
  if (abandoned_here) throw std::logic_error("an abandoned collective was planned without being cancelled");
  last_data_progress = Clock::now();
  if (size == 1 || first.kind == CollectiveKind::kBarrier) {
    FinishGroup();  // nothing to move: the plan's arrival was the barrier
    return;
  }
  if (first.kind == CollectiveKind::kBroadcast) {
    running = StartBroadcast(transport.get(), g.data[0], protocol::CollectiveBytes(first), chunk_bytes);
    return;
  }
  if (first.kind == CollectiveKind::kAllgather) {
    running = StartAllgather(transport.get(), g.data[0], first.count, first.dtype, chunk_bytes);
    return;
  }
  size_t count = 0;
  for (const CollectiveDesc& d : g.descs) count += d.count;
  void* buffer = g.data[0];
  if (g.descs.size() > 1) {
    g.fused = true;
    char* fused = fusion_space.Get(std::max<size_t>(1, count * DTypeSize(first.dtype)));
    for (size_t i = 0, at = 0; i < g.descs.size(); ++i) {
      const size_t bytes = protocol::CollectiveBytes(g.descs[i]);
      if (bytes) std::memcpy(fused + at, g.data[i], bytes);
      at += bytes;
    }
    buffer = fused;
  }
  running = StartAllreduce(transport.get(), buffer, count, first.dtype, chunk_bytes, &receive_space);
}

void CollectiveGroup::Impl::FinishGroup() {
  RunningGroup& g = running_group;
  if (g.fused) {
    const char* fused = fusion_space.Get(0);
    for (size_t i = 0, at = 0; i < g.descs.size(); ++i) {
      const size_t bytes = protocol::CollectiveBytes(g.descs[i]);
      if (bytes) std::memcpy(g.data[i], fused + at, bytes);
      at += bytes;
    }
  }
  std::vector<CollectiveDone> dones;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < g.descs.size(); ++i) {
      dones.push_back(std::move(slots.front().done));
      slots.pop_front();
      ++slots_base;
    }
  }
  exec_seq += g.descs.size();
  if (++group_index == plans.front().groups.size()) plans.pop_front(), group_index = 0;
  for (auto& done : dones) {
    CallDone(done, std::string());
  }
}

void CollectiveGroup::Impl::CheckDataDeadline(Clock::time_point now) {
  if (!running || Seconds(now - last_data_progress) <= timeout_sec) return;
  std::vector<int> awaited = running->AwaitedPeers();
  Fail(peers->Names(awaited) + (awaited.size() == 1 ? " has" : " have") + " not exchanged data for " +
           CollectiveName(running_group.first_seq) + " within " + FormatSeconds(timeout_sec) +
           " s; MXNET_KVSTORE_TIMEOUT sets the limit",
       true);
}

void CollectiveGroup::Impl::CheckLiveness(Clock::time_point now) {
  if (now < next_liveness_check) return;
  next_liveness_check =
      now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::min(1.0, timeout_sec / 4)));
  for (int p = 0; p < size; ++p) {
    if (p == rank || peers->Alive(p, transport.get())) continue;
    std::string message = peers->Name(p) + " has exited";
    std::optional<uint64_t> pending;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!slots.empty()) pending = slots_base;
    }
    if (pending) message += "; " + CollectiveName(*pending) + " and the collectives after it cannot complete";
    Fail(message, true);
    return;
  }
}

bool CollectiveGroup::Impl::DeliverLateDones() {
  std::vector<std::pair<CollectiveDone, std::string>> dones;
  {
    std::lock_guard<std::mutex> lock(mu);
    dones.swap(late_dones);
  }
  for (auto& [done, message] : dones) CallDone(done, message);
  return !dones.empty();
}

std::string CollectiveGroup::Impl::CollectiveName(uint64_t seq, const CollectiveDesc* fallback) {
  std::string name = "collective #" + std::to_string(seq);
  std::lock_guard<std::mutex> lock(mu);
  if (seq >= slots_base && seq - slots_base < slots.size()) {
    return name + " (" + protocol::DescribeCollective(slots[seq - slots_base].desc) + ")";
  }
  return fallback ? name + " (" + protocol::DescribeCollective(*fallback) + ")" : name;
}

void CollectiveGroup::Impl::Fail(std::string message, bool notify_peers) {
  std::vector<CollectiveDone> dones;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!error.empty()) return;
    error = message;
    for (Slot& slot : slots) {
      if (slot.started && slot.done) dones.push_back(std::move(slot.done));
    }
    slots.clear();
    slots_base = next_announce;
  }
  failed_at = Clock::now();
  if (notify_peers) {
    common::LogWarning("distributed kvstore (rank " + std::to_string(rank) + "): " + message);
    for (int p = 0; p < size; ++p) {
      if (p == rank) continue;
      try {
        Send(p, protocol::EncodeError(message));
      } catch (const std::exception&) {
        // best effort: a peer that cannot be reached learns through its own deadline
      }
    }
  }
  running.reset();
  plans.clear();
  plan_wait_since.reset();
  join_wait_since.reset();
  for (auto& done : dones) CallDone(done, message);
}

}  // namespace kvstore
}  // namespace mxnet
