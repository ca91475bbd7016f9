/*!
 * \file onednn_operand.cc
 * \brief Operands in a primitive's format from possibly blocked arrays (see onednn_operand.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_operand.h"

#include <utility>

namespace mxnet {
namespace op {
namespace onednn {
namespace {

struct ReorderEntry {
  dnnl::reorder prim;
  dnnl::memory src, dst;
};

}  // namespace

void Reorder(const dnnl::memory& src, const dnnl::memory& dst) {
  thread_local PrimitiveCache<ReorderEntry> cache;
  Key key;
  AddDescKey(&key, src.get_desc());
  AddDescKey(&key, dst.get_desc());
  ReorderEntry& e = cache.Get(key, [&] {
    dnnl::memory s(src.get_desc(), CpuEngine(), DNNL_MEMORY_NONE), d(dst.get_desc(), CpuEngine(), DNNL_MEMORY_NONE);
    return ReorderEntry{dnnl::reorder(s, d), s, d};
  });
  e.src.set_data_handle(src.get_data_handle());
  e.dst.set_data_handle(dst.get_data_handle());
  e.prim.execute(ThreadStream(), e.src, e.dst);
}

InputOperand::InputOperand(size_t i, const TBlob& x, const dnnl::memory::desc& plain, const dnnl::memory::desc& want) {
  blocked_ = BlockedInput(i, x);
  if (blocked_ && blocked_->desc() == want) {
    mem_ = dnnl::memory(want, CpuEngine(), blocked_->ptr());
    return;
  }
  dnnl::memory from;
  if (blocked_ && plain != want) {  // another blocked format: one reorder straight into `want`
    from = dnnl::memory(blocked_->desc(), CpuEngine(), blocked_->ptr());
  } else {  // the array's plain memory, made current (once, for every reader) if it was blocked
    blocked_.reset();
    PlainInput(i);
    from = dnnl::memory(plain, CpuEngine(), x.dptr_);
    if (plain == want) {
      mem_ = from;
      return;
    }
  }
  tmp_ = Storage::Get()->Alloc(want.get_size(), Context::CPU());
  mem_ = dnnl::memory(want, CpuEngine(), tmp_.dptr);
  Reorder(from, mem_);
}

InputOperand::~InputOperand() {
  if (tmp_.dptr) Storage::Get()->Free(tmp_);
}

OutputOperand::OutputOperand(size_t i, const TBlob& y, const dnnl::memory::desc& plain, const dnnl::memory::desc& want)
    : index_(i) {
  plain_ = dnnl::memory(plain, CpuEngine(), y.dptr_);
  if (plain == want) {
    mem_ = plain_;
  } else if (CanLeaveBlocked(i, y)) {
    blocked_ = std::make_shared<BlockedData>(want, plain);
    mem_ = dnnl::memory(want, CpuEngine(), blocked_->ptr());
  } else {
    tmp_ = Storage::Get()->Alloc(want.get_size(), Context::CPU());
    mem_ = dnnl::memory(want, CpuEngine(), tmp_.dptr);
  }
}

OutputOperand::~OutputOperand() {
  if (tmp_.dptr) Storage::Get()->Free(tmp_);
}

void OutputOperand::Finish() {
  if (blocked_) {
    SetBlockedOutput(index_, std::move(blocked_));
  } else if (tmp_.dptr) {
    Reorder(mem_, plain_);
  }
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
