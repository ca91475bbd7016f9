/*!
 * \file kernel_list.cc
 * \brief The table of registered kernel implementations and each op's list, built on first use
 *        (implementations may register before or after their op: static-init order is free).
 */
#include <algorithm>
#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "mxnet/op.h"

namespace mxnet {
namespace op {
namespace {

struct PendingKernel {
  std::string op_name;
  int dev;
  KernelImpl impl;
};

/*! \brief deque: builders returned by RegisterKernel stay valid while others are added. */
std::deque<PendingKernel>& Pending() {
  static std::deque<PendingKernel> table;
  return table;
}

int DevKey(Context::DeviceType dev) { return dev == Context::kGPU ? Context::kGPU : Context::kCPU; }

void BuildLists() {
  OpRegistry* reg = OpRegistry::Get();
  for (const Op* op : reg->List()) {
    for (const auto& c : op->compute) {
      KernelImpl& ref = op->reference_kernels[c.first];
      ref.name = kReferenceKernel;
      ref.compute = c.second;
      ref.layouts = KernelLayouts::kPlain;  // reference kernels read plain memory only
    }
  }
  for (const PendingKernel& k : Pending()) {
    const Op* op = reg->Find(k.op_name);
    MX_CHECK(op != nullptr) << "kernel '" << k.impl.name << "' registered for unknown operator '" << k.op_name << "'";
    MX_CHECK(op->name == k.op_name) << "kernel '" << k.impl.name << "' registered for '" << k.op_name
                                    << "', an alias: use the operator's name '" << op->name << "'";
    MX_CHECK(k.impl.compute) << op->name << ": kernel '" << k.impl.name << "' has no compute function";
    MX_CHECK(k.impl.name != kReferenceKernel) << op->name << ": 'reference' is the name of set_compute's kernel";
    op->kernel_lists[k.dev].impls.push_back(&k.impl);
  }
  for (const Op* op : reg->List()) {
    for (auto& r : op->reference_kernels) op->kernel_lists[r.first].impls.push_back(&r.second);
    for (auto& l : op->kernel_lists) {
      auto& v = l.second.impls;
      // The reference stays last; the others by rank, then name (deterministic across builds).
      std::stable_sort(v.begin(), v.end(), [](const KernelImpl* a, const KernelImpl* b) {
        const bool ra = a->name == kReferenceKernel, rb = b->name == kReferenceKernel;
        if (ra != rb) return rb;
        return a->rank != b->rank ? a->rank < b->rank : a->name < b->name;
      });
      for (size_t i = 1; i < v.size(); ++i)
        MX_CHECK(v[i]->name != v[i - 1]->name) << op->name << ": two kernels named '" << v[i]->name << "'";
      for (const KernelImpl* k : v) {
        l.second.any_layouts |= k->layouts == KernelLayouts::kAny;
        l.second.cache_choice |= (k->accepts && !k->cheap_accepts) || k->worth;
      }
    }
  }
}

}  // namespace

bool KernelImpl::HasTag(const std::string& t) const { return std::find(tags.begin(), tags.end(), t) != tags.end(); }

KernelImpl& RegisterKernel(const std::string& op_name, Context::DeviceType dev, const std::string& impl_name) {
  Pending().push_back(PendingKernel{op_name, DevKey(dev), KernelImpl{}});
  Pending().back().impl.name = impl_name;
  return Pending().back().impl;
}

const KernelList& Op::Kernels(Context::DeviceType dev) const {
  static std::once_flag built;
  std::call_once(built, BuildLists);
  static const KernelList kEmpty;
  auto it = kernel_lists.find(DevKey(dev));
  return it == kernel_lists.end() ? kEmpty : it->second;
}

}  // namespace op
}  // namespace mxnet
