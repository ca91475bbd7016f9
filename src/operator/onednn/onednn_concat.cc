/*!
 * \file onednn_concat.cc
 * \brief Concat of blocked (and plain) inputs on dnnl::concat (see onednn_concat.h).
 */
#if MXNET_USE_ONEDNN

#include "operator/onednn/onednn_concat.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <unordered_map>
#include <utility>

#include "operator/onednn/onednn_layout.h"
#include "operator/tensor/join_split.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

std::atomic<uint64_t> row_copy_joins{0};

struct ConcatEntry {
  dnnl::concat prim;
  std::vector<dnnl::memory> src;
  dnnl::memory dst;
  std::unordered_map<int, dnnl::memory> args;  // holds handles to src and dst: rebinding those updates it
};

/*!
 * \brief Joins inputs that all hold one dense channel-lane format along the channels, as the
 *        plain row copy. Blocked by 8 or 16 channels (whole blocks each): per image, each input
 *        is one contiguous run of the output, so blocks of channels are the rows. Channel-last
 *        (what oneDNN's AVX-512 convolutions write): per pixel, each input's channels are one
 *        run. oneDNN's concat moves such data a block or pixel at a time, at a fraction of the
 *        memory bandwidth.
 */
bool JoinChannelLanes(const std::vector<std::shared_ptr<const BlockedData>>& blocked, const TBlob& out, int axis) {
  const dnnl::memory::desc& d0 = blocked[0]->desc();
  dnnl::memory::format_tag tag;
  int64_t b;
  if (axis != 1 || !ChannelLanes(d0, &tag, &b)) return false;
  const int blocks = d0.data.format_desc.blocking.inner_nblks;
  const bool channel_last = blocks == 0 && d0.dims()[1] == b && d0.data.format_desc.blocking.strides[1] == 1;
  if (blocks != 1 && !channel_last) return false;  // plain: the plain concat is already a row copy
  const auto dt = d0.data_type();
  const int64_t esize = static_cast<int64_t>(DTypeSize(out.type_flag_)), spatial = out.shape_.ProdShape(2, out.ndim());
  std::vector<int64_t> mids;
  std::vector<float*> ptrs;
  for (const auto& bx : blocked) {
    const auto& dims = bx->desc().dims();
    if (bx->desc() != dnnl::memory::desc(dims, dt, tag)) return false;
    // Rows are copied as whole floats, so bfloat16 data moves as floats of twice the size.
    const int64_t run = channel_last ? dims[1] * esize : b * esize;
    if ((!channel_last && dims[1] % b != 0) || run % int64_t{sizeof(float)} != 0) return false;
    mids.push_back(channel_last ? run / int64_t{sizeof(float)} : dims[1] / b);
    ptrs.push_back(static_cast<float*>(bx->ptr()));
  }
  const auto plain = PlainDesc(out);
  auto joined = std::make_shared<BlockedData>(dnnl::memory::desc(plain.dims(), dt, tag), plain);
  const int64_t outer = channel_last ? out.shape_[0] * spatial : out.shape_[0];
  const int64_t inner = channel_last ? 1 : spatial * b * esize / int64_t{sizeof(float)};
  JoinSplit<float>(true, ptrs, mids, outer, inner, static_cast<float*>(joined->ptr()), {kWriteTo});
  SetBlockedOutput(0, std::move(joined));
  row_copy_joins.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace

bool ConcatForward(const std::vector<TBlob>& in, const TBlob& out, int axis, OpReqType req) {
  if (!SupportedType(out.type_flag_) || req != kWriteTo || out.Size() == 0) return false;
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
  if (all_blocked && leave_blocked && JoinChannelLanes(blocked, out, axis)) return true;
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

uint64_t RowCopyJoins() { return row_copy_joins.load(); }

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
