/*!
 * \file onednn_concat.cc
 * \brief Concat of blocked (and plain) inputs on dnnl::concat (see onednn_concat.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/nn/onednn/onednn_concat.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <utility>

#include "operator/nn/onednn/onednn_layout.h"
#include "operator/tensor/join_split.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

struct ConcatEntry {
  dnnl::concat prim;
  std::vector<dnnl::memory> src;
  dnnl::memory dst;
  std::unordered_map<int, dnnl::memory> args;  // holds handles to src and dst: rebinding those updates it
};

/*!
 * \brief Joins inputs that all hold one dense channel-blocked format, with whole blocks of
 *        channels each, along the channels: per image, each input is one contiguous run of the
 *        output, so the join is the plain row copy with blocks of channels as rows. oneDNN's
 *        concat moves such data a block at a time, at a quarter of the memory bandwidth.
 */
bool JoinChannelBlocks(const std::vector<std::shared_ptr<const BlockedData>>& blocked, const TBlob& out, int axis) {
  const dnnl::memory::desc& d0 = blocked[0]->desc();
  dnnl::memory::format_tag tag;
  int64_t b;
  // Blocks of channels (an inner block), not channel-last, whose lanes are also all of C.
  if (axis != 1 || !ChannelLanes(d0, &tag, &b) || d0.data.format_desc.blocking.inner_nblks != 1) return false;
  const auto dt = d0.data_type();
  std::vector<int64_t> mids;
  std::vector<float*> ptrs;
  for (const auto& bx : blocked) {
    const auto& dims = bx->desc().dims();
    if (dims[1] % b != 0 || bx->desc() != dnnl::memory::desc(dims, dt, tag)) return false;
    mids.push_back(dims[1] / b);
    ptrs.push_back(static_cast<float*>(bx->ptr()));
  }
  const auto plain = PlainDesc(out);
  auto joined = std::make_shared<BlockedData>(dnnl::memory::desc(plain.dims(), dt, tag), plain);
  // Rows are copied whole, so bfloat16 data moves as floats of twice the inner size.
  const int64_t inner = out.shape_.ProdShape(2, out.ndim()) * b * static_cast<int64_t>(DTypeSize(out.type_flag_));
  MX_CHECK(inner % sizeof(float) == 0) << "channel blocks of " << b << " are whole floats";
  JoinSplit<float>(true, ptrs, mids, out.shape_[0], inner / static_cast<int64_t>(sizeof(float)),
                   static_cast<float*>(joined->ptr()), {kWriteTo});
  SetBlockedOutput(0, std::move(joined));
  return true;
}

}  // namespace

bool ConcatForward(const std::vector<TBlob>& in, const TBlob& out, int axis, OpReqType req) {
  if (!Enabled() || !SupportedType(out.type_flag_) || req != kWriteTo || out.Size() == 0) return false;
  std::vector<std::shared_ptr<const BlockedData>> blocked(in.size());
  bool any_blocked = false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].Size() == 0 || in[i].type_flag_ != out.type_flag_) return false;
    blocked[i] = BlockedInput(i, in[i]);
    any_blocked = any_blocked || blocked[i] != nullptr;
  }
  if (!any_blocked) return false;  // the plain copy is a memcpy per row: nothing to gain
  const bool leave_blocked = CanLeaveBlocked(0, out);
  const bool all_blocked = std::find(blocked.begin(), blocked.end(), nullptr) == blocked.end();
  if (all_blocked && leave_blocked && JoinChannelBlocks(blocked, out, axis)) return true;
  for (size_t i = 0; i < in.size(); ++i)
    if (!blocked[i]) PlainInput(i);
  const auto plain_dst = PlainDesc(out);

  Key key;
  key.Add(axis).Add(out).Add(leave_blocked ? 1 : 0).Add(static_cast<int64_t>(in.size()));
  std::vector<dnnl::memory::desc> src_desc;
  for (size_t i = 0; i < in.size(); ++i) {
    src_desc.push_back(blocked[i] ? blocked[i]->desc() : PlainDesc(in[i]));
    AddDescKey(&key, src_desc.back());
  }
  thread_local PrimitiveCache<ConcatEntry> cache;
  ConcatEntry& e = cache.Get(key, [&] {
    // Leaving the output blocked lets the primitive pick the format (that of the inputs).
    auto pd = leave_blocked ? dnnl::concat::primitive_desc(axis, src_desc, CpuEngine())
                            : dnnl::concat::primitive_desc(plain_dst, axis, src_desc, CpuEngine());
    ConcatEntry n{dnnl::concat(pd), {}, dnnl::memory(pd.dst_desc(), CpuEngine(), DNNL_MEMORY_NONE), {}};
    for (size_t i = 0; i < src_desc.size(); ++i) {
      n.src.push_back(dnnl::memory(src_desc[i], CpuEngine(), DNNL_MEMORY_NONE));
      n.args.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), n.src.back());
    }
    n.args.emplace(DNNL_ARG_DST, n.dst);
    return n;
  });
  std::shared_ptr<BlockedData> by;
  if (e.dst.get_desc() != plain_dst) by = std::make_shared<BlockedData>(e.dst.get_desc(), plain_dst);
  for (size_t i = 0; i < in.size(); ++i) e.src[i].set_data_handle(blocked[i] ? blocked[i]->ptr() : in[i].dptr_);
  e.dst.set_data_handle(by ? by->ptr() : out.dptr_);
  dnnl::stream& s = ThreadStream();
  e.prim.execute(s, e.args);
  s.wait();
  if (by) SetBlockedOutput(0, std::move(by));
  return true;
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
