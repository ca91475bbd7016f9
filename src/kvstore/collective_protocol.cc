#include "kvstore/collective_protocol.h"

#include <cstring>
#include <stdexcept>

#include "mxnet/tensor.h"

namespace mxnet {
namespace kvstore {
namespace protocol {

namespace {

struct Header {
  uint32_t type;
  uint32_t count;
  uint64_t seq;
};

struct WireDesc {
  int32_t kind;
  int32_t dtype;
  int64_t key;
  int64_t count;
  uint32_t abandoned;
  uint32_t reserved;
};

struct WireGroup {
  uint32_t length;
  int32_t cancelled_by;
};

class Writer {
 public:
  template <typename T>
  void Put(const T& v) {
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  void PutString(const std::string& s) {
    Put(static_cast<uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }
  std::vector<char> Take() { return std::move(out_); }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  Reader(const char* data, size_t bytes) : data_(data), left_(bytes) {}
  template <typename T>
  T Get() {
    T v;
    Need(sizeof(T));
    std::memcpy(&v, data_, sizeof(T));
    data_ += sizeof(T);
    left_ -= sizeof(T);
    return v;
  }
  std::string GetString() {
    const uint32_t n = Get<uint32_t>();
    Need(n);
    std::string s(data_, n);
    data_ += n;
    left_ -= n;
    return s;
  }

 private:
  void Need(size_t n) const {
    if (n > left_) throw std::runtime_error("malformed control message from a peer (truncated)");
  }
  const char* data_;
  size_t left_;
};

Header MakeHeader(MessageType type, size_t count, uint64_t seq) {
  return Header{static_cast<uint32_t>(type), static_cast<uint32_t>(count), seq};
}

std::string DTypeText(int dtype) {
  try {
    return DTypeName(dtype);
  } catch (const std::exception&) {
    return "dtype " + std::to_string(dtype);
  }
}

}  // namespace

std::vector<char> EncodeHello(const PeerIdentity& id) {
  Writer w;
  w.Put(MakeHeader(MessageType::kHello, 0, 0));
  w.Put(id.pid);
  w.PutString(id.description);
  w.PutString(id.host);
  w.PutString(id.pid_namespace);
  return w.Take();
}

std::vector<char> EncodeReport(uint64_t first_seq, const std::vector<ReportedDesc>& descs) {
  Writer w;
  w.Put(MakeHeader(MessageType::kReport, descs.size(), first_seq));
  for (const ReportedDesc& r : descs) {
    w.Put(
        WireDesc{static_cast<int32_t>(r.desc.kind), r.desc.dtype, r.desc.key, r.desc.count, r.abandoned ? 1u : 0u, 0u});
  }
  return w.Take();
}

std::vector<char> EncodePlan(const Plan& plan) {
  Writer w;
  w.Put(MakeHeader(MessageType::kPlan, plan.groups.size(), plan.first_seq));
  for (const PlannedGroup& g : plan.groups) w.Put(WireGroup{g.length, g.cancelled_by});
  return w.Take();
}

namespace {
std::vector<char> EncodeText(MessageType type, uint64_t seq, const std::string& text) {
  const std::string clipped = text.substr(0, kMaxErrorBytes);
  Writer w;
  w.Put(MakeHeader(type, clipped.size(), seq));
  std::vector<char> out = w.Take();
  out.insert(out.end(), clipped.begin(), clipped.end());
  return out;
}
}  // namespace

std::vector<char> EncodeError(const std::string& text) { return EncodeText(MessageType::kError, 0, text); }
std::vector<char> EncodeFailAt(uint64_t seq, const std::string& text) {
  return EncodeText(MessageType::kFailAt, seq, text);
}

ControlMessage DecodeControl(const char* data, size_t bytes) {
  Reader r(data, bytes);
  const Header h = r.Get<Header>();
  ControlMessage m;
  m.type = static_cast<MessageType>(h.type);
  switch (m.type) {
    case MessageType::kHello:
      m.hello.pid = r.Get<int64_t>();
      m.hello.description = r.GetString();
      m.hello.host = r.GetString();
      m.hello.pid_namespace = r.GetString();
      break;
    case MessageType::kReport:
      m.first_seq = h.seq;
      m.descs.reserve(h.count);
      for (uint32_t i = 0; i < h.count; ++i) {
        const WireDesc w = r.Get<WireDesc>();
        ReportedDesc d;
        d.desc.kind = static_cast<CollectiveKind>(w.kind);
        d.desc.dtype = w.dtype;
        d.desc.key = w.key;
        d.desc.count = w.count;
        d.abandoned = w.abandoned != 0;
        m.descs.push_back(d);
      }
      break;
    case MessageType::kPlan:
      m.plan.first_seq = h.seq;
      for (uint32_t i = 0; i < h.count; ++i) {
        const WireGroup g = r.Get<WireGroup>();
        m.plan.groups.push_back(PlannedGroup{g.length, g.cancelled_by});
      }
      break;
    case MessageType::kError:
    case MessageType::kFailAt:
      if (h.count > bytes - sizeof(Header)) throw std::runtime_error("malformed error message from a peer");
      m.first_seq = h.seq;
      m.error.assign(data + sizeof(Header), h.count);
      break;
    default:
      throw std::runtime_error("unknown control message type " + std::to_string(h.type) + " from a peer");
  }
  return m;
}

std::vector<PlannedGroup> PlanGroups(const std::vector<CollectiveDesc>& descs, const std::vector<int>& abandoned_by,
                                     size_t fusion_bytes) {
  std::vector<PlannedGroup> groups;
  size_t fused_bytes = 0;
  bool open_fusion = false;  // the last group is an allreduce that may take more
  for (size_t i = 0; i < descs.size(); ++i) {
    const CollectiveDesc& d = descs[i];
    if (abandoned_by[i] >= 0) {
      groups.push_back(PlannedGroup{1, abandoned_by[i]});
      open_fusion = false;
      continue;
    }
    const size_t bytes = CollectiveBytes(d);
    if (d.kind == CollectiveKind::kAllreduceSum && open_fusion && descs[i - 1].dtype == d.dtype &&
        fused_bytes + bytes <= fusion_bytes) {
      groups.back().length += 1;
      fused_bytes += bytes;
      continue;
    }
    groups.push_back(PlannedGroup{1, -1});
    open_fusion = d.kind == CollectiveKind::kAllreduceSum && bytes <= fusion_bytes;
    fused_bytes = bytes;
  }
  return groups;
}

std::string DescribeCollective(const CollectiveDesc& d) {
  switch (d.kind) {
    case CollectiveKind::kAllreduceSum:
      return "allreduce of key " + std::to_string(d.key) + " (" + std::to_string(d.count) + " " + DTypeText(d.dtype) +
             ")";
    case CollectiveKind::kBroadcast:
      return "broadcast of key " + std::to_string(d.key) + " (" + std::to_string(d.count) + " " + DTypeText(d.dtype) +
             ")";
    case CollectiveKind::kAllgather:
      return "allgather of key " + std::to_string(d.key) + " (" + std::to_string(d.count) + " " + DTypeText(d.dtype) +
             " per rank)";
    case CollectiveKind::kBarrier:
      return d.key == kShutdownKey ? "its shutdown (the end of its distributed kvstore)" : "barrier";
  }
  return "collective of unknown kind " + std::to_string(static_cast<int>(d.kind));
}

bool SameCollective(const CollectiveDesc& a, const CollectiveDesc& b) {
  if (a.kind != b.kind || a.key != b.key) return false;
  return a.kind == CollectiveKind::kBarrier || (a.count == b.count && a.dtype == b.dtype);
}

size_t CollectiveBytes(const CollectiveDesc& d) {
  if (d.kind == CollectiveKind::kBarrier) return 0;
  return static_cast<size_t>(d.count) * DTypeSize(d.dtype);
}

}  // namespace protocol
}  // namespace kvstore
}  // namespace mxnet
