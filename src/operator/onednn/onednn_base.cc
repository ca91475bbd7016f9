/*!
 * \file onednn_base.cc
 * \brief oneDNN engine, streams, descriptors and the cache bound (see onednn_base.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_base.h"

#include <atomic>
#include <cstring>
#include <utility>

#include "operator/common/parallel.h"
#include "operator/kernel_dispatch.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {
std::atomic<int> enabled_override{-1};
std::atomic<uint64_t> primitives_built{0};
}  // namespace

bool Enabled() {
  const int o = enabled_override.load(std::memory_order_relaxed);
  if (o >= 0) return o != 0;
  static const bool from_env = env::GetBool(env::Var::MXNET_ONEDNN_ENABLED);
  return from_env;
}

void SetEnabledOverride(int mode) { enabled_override.store(mode < 0 ? -1 : (mode ? 1 : 0)); }

namespace {
// Kernel lists skip every implementation tagged "onednn" while oneDNN is switched off.
const bool onednn_switch [[maybe_unused]] = [] {
  RegisterKernelTagSwitch("onednn", [] { return Enabled(); });
  return true;
}();
}  // namespace

int64_t CacheCapacity() {
  static const int64_t cap = env::GetInt(env::Var::MXNET_ONEDNN_CACHE_NUM);
  return cap;
}

uint64_t PrimitivesBuilt() { return primitives_built.load(); }
void CountPrimitiveBuilt() { primitives_built.fetch_add(1, std::memory_order_relaxed); }

bool CpuHasAvx512Core() {
  static const bool has = [] {
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const auto need = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
    return (isa & need) == need;  // ISA values are feature masks: avx2_vnni is not a superset
  }();
  return has;
}

bool CpuHasBfloat16Kernels() { return CpuHasAvx512Core(); }

dnnl::memory::format_tag NativeChannelBlocking() {
  return CpuHasAvx512Core() ? dnnl::memory::format_tag::aBcd16b : dnnl::memory::format_tag::aBcd8b;
}

bool ChannelLanes(const dnnl::memory::desc& d, dnnl::memory::format_tag* tag, int64_t* lanes) {
  using ft = dnnl::memory::format_tag;
  const int nd = d.data.ndims;
  if (nd < 3 || nd > 5) return false;
  const auto dims = d.dims();
  const ft plain[] = {ft::abc, ft::abcd, ft::abcde}, by8[] = {ft::aBc8b, ft::aBcd8b, ft::aBcde8b},
           by16[] = {ft::aBc16b, ft::aBcd16b, ft::aBcde16b}, last[] = {ft::acb, ft::acdb, ft::acdeb};
  const int i = nd - 3;
  for (auto [t, b] : {std::pair<ft, int64_t>{plain[i], 1}, {by8[i], 8}, {by16[i], 16}, {last[i], dims[1]}}) {
    if (d == dnnl::memory::desc(dims, d.data_type(), t)) {
      *tag = t;
      *lanes = b;
      return true;
    }
  }
  return false;
}

dnnl::engine& CpuEngine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream s(CpuEngine());
  return s;
}

dnnl::memory::data_type DataType(int dtype) {
  switch (dtype) {
    case kFloat32:
      return dnnl::memory::data_type::f32;
    case kBfloat16:
      return dnnl::memory::data_type::bf16;
    case kFloat16:
      return dnnl::memory::data_type::f16;
    case kInt32:
      return dnnl::memory::data_type::s32;
    case kInt8:
      return dnnl::memory::data_type::s8;
    case kUint8:
      return dnnl::memory::data_type::u8;
    default:
      return dnnl::memory::data_type::undef;
  }
}

dnnl::memory::dims Dims(const TShape& s) {
  dnnl::memory::dims d(s.begin(), s.end());
  if (d.empty()) d.push_back(1);  // a scalar is a 1-element vector to oneDNN
  return d;
}

dnnl::memory::format_tag PlainTag(int ndim) {
  using tag = dnnl::memory::format_tag;
  switch (ndim) {
    case 0:
    case 1:
      return tag::a;
    case 2:
      return tag::ab;
    case 3:
      return tag::abc;
    case 4:
      return tag::abcd;
    case 5:
      return tag::abcde;
    case 6:
      return tag::abcdef;
    default:
      MX_THROW("ValueError") << "oneDNN: tensors of rank " << ndim << " are not supported";
  }
  return tag::undef;
}

dnnl::memory::desc PlainDesc(const TShape& s, int dtype) {
  return dnnl::memory::desc(Dims(s), DataType(dtype), PlainTag(s.ndim()));
}

dnnl::primitive_attr PostOps::ToAttr() const {
  dnnl::primitive_attr attr;
  if (empty()) return attr;
  dnnl::post_ops ops;
  if (sum_scale != 0.f) ops.append_sum(sum_scale);
  for (const auto& e : eltwise) ops.append_eltwise(1.f, e.alg, e.alpha, e.beta);
  attr.set_post_ops(ops);
  return attr;
}

void PostOps::AppendKey(std::vector<int64_t>* key) const {
  auto bits = [](float f) {
    int32_t i;
    static_assert(sizeof(i) == sizeof(f));
    std::memcpy(&i, &f, sizeof(f));
    return static_cast<int64_t>(i);
  };
  key->push_back(bits(sum_scale));
  key->push_back(static_cast<int64_t>(eltwise.size()));
  for (const auto& e : eltwise) {
    key->push_back(static_cast<int64_t>(e.alg));
    key->push_back(bits(e.alpha));
    key->push_back(bits(e.beta));
  }
}

bool SameFormatCopy(const dnnl::memory::desc& from, const void* src, const dnnl::memory::desc& to, void* dst) {
  if (from != to) return false;
  if (src != dst) {
    const auto* in = static_cast<const char*>(src);
    auto* out = static_cast<char*>(dst);
    ParallelChunks(static_cast<int64_t>(from.get_size()),
                   [&](int64_t b, int64_t e) { std::memcpy(out + b, in + b, static_cast<size_t>(e - b)); });
  }
  return true;
}

LayoutBridge::LayoutBridge(const dnnl::memory::desc& user, const dnnl::memory::desc& want)
    : user_desc_(user), inner_desc_(want) {
  user_ = dnnl::memory(user, CpuEngine(), DNNL_MEMORY_NONE);
  needs_reorder_ = user != want;
  if (needs_reorder_) {
    inner_ = dnnl::memory(want, CpuEngine());  // owned buffer, reused by every call of this entry
    to_prim_ = dnnl::reorder(user_, inner_);
    from_prim_ = dnnl::reorder(inner_, user_);
  }
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
