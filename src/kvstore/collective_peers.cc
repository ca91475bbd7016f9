#include "kvstore/collective_peers.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace mxnet {
namespace kvstore {

namespace {

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

std::string PidNamespace() {
  char buf[128] = {0};
  const ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : std::string();
}

// kill(pid, 0) succeeds for a zombie too: a killed rank stays one until its launcher reaps it,
// so its state in /proc counts as well.
bool ProcessExists(int64_t pid) {
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const size_t close = line.rfind(')');        // the command name may hold spaces and parens
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

protocol::PeerIdentity LocalIdentity(const Transport& transport) {
  protocol::PeerIdentity id;
  id.description = transport.Describe();
  id.host = HostName();
  id.pid_namespace = PidNamespace();
  id.pid = getpid();
  return id;
}

PeerTable::PeerTable(int rank, int size, protocol::PeerIdentity self) : rank_(rank), entries_(size) {
  Learn(rank, self);
}

void PeerTable::Learn(int rank, const protocol::PeerIdentity& id) {
  if (rank < 0 || rank >= static_cast<int>(entries_.size())) return;
  entries_[rank].known = true;
  entries_[rank].id = id;
}

std::string PeerTable::Name(int rank) const {
  std::string name = "rank " + std::to_string(rank);
  if (rank < 0 || rank >= static_cast<int>(entries_.size())) return name;
  return name + (entries_[rank].known ? " (" + entries_[rank].id.description + ")" : " (not heard from)");
}

std::string PeerTable::Names(const std::vector<int>& ranks) const {
  if (ranks.size() == 1) return Name(ranks[0]);
  std::ostringstream out;
  out << "ranks ";
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (i) out << ", ";
    out << Name(ranks[i]).substr(5);  // drop "rank "
  }
  return out.str();
}

bool PeerTable::Alive(int rank, Transport* transport) const {
  if (!transport->PeerAlive(rank)) return false;
  const Entry& peer = entries_[rank];
  const Entry& self = entries_[rank_];
  if (!peer.known || peer.id.host != self.id.host || peer.id.pid_namespace != self.id.pid_namespace ||
      peer.id.pid == self.id.pid) {
    return true;  // another host or container, or this very process (threads as ranks)
  }
  return ProcessExists(peer.id.pid);
}

}  // namespace kvstore
}  // namespace mxnet
