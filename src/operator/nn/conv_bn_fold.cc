/*!
 * \file conv_bn_fold.cc
 * \brief BatchNorm folded into convolution parameters, cached per fused node (conv_bn_fold.h).
 */
#include "operator/nn/conv_bn_fold.h"

#include <cmath>
#include <utility>

#include "operator/common/parallel.h"

namespace mxnet {
namespace op {
namespace {

std::atomic<uint64_t> total_folds{0};

/*! \brief A per-channel vector of any real dtype, widened to double. */
std::vector<double> AsDoubles(const TBlob& b) {
  std::vector<double> v(b.Size());
  MXNET_REAL_TYPE_SWITCH(b.type_flag_, DType, {
    const DType* p = static_cast<const DType*>(b.dptr_);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

bool SameSource(const NDArray& held, uint64_t completed, uint32_t pushed, const NDArray& now) {
  if (held.is_none() || now.is_none()) return held.is_none() && now.is_none();
  return held.SameData(now) && held.shape() == now.shape() && held.dtype() == now.dtype() &&
         engine::VarVersion(now.var()) == completed && now.version() == pushed;
}

bool Current(const BNFolded& f, const std::vector<NDArray>& arrays) {
  if (f.sources.size() != arrays.size()) return false;
  for (size_t i = 0; i < arrays.size(); ++i)
    if (!SameSource(f.sources[i], f.completed[i], f.pushed[i], arrays[i])) return false;
  return true;
}

}  // namespace

void FoldBatchNorm(const std::vector<const TBlob*>& blobs, const BNFoldParams& p, const TBlob& w_out,
                   const TBlob& b_out) {
  const TBlob& w = *blobs[0];
  const int64_t F = w.shape_[0];
  const int64_t inner = F > 0 ? w.Size() / F : 0;
  const std::vector<double> gamma = AsDoubles(*blobs[2]), beta = AsDoubles(*blobs[3]);
  const std::vector<double> mean = AsDoubles(*blobs[4]), var = AsDoubles(*blobs[5]);
  const std::vector<double> bias = blobs[1] ? AsDoubles(*blobs[1]) : std::vector<double>(F, 0.0);
  std::vector<double> scale(F), shift(F);
  for (int64_t c = 0; c < F; ++c) {
    scale[c] = (p.fix_gamma ? 1.0 : gamma[c]) / std::sqrt(var[c] + p.eps);
    shift[c] = (bias[c] - mean[c]) * scale[c] + beta[c];
  }
  MXNET_REAL_TYPE_SWITCH(w.type_flag_, DType, {
    const DType* src = static_cast<const DType*>(w.dptr_);
    DType* dst = static_cast<DType*>(w_out.dptr_);
    ParallelFor(F * inner, [&](int64_t i) {
      dst[i] = static_cast<DType>(static_cast<double>(src[i]) * scale[i / inner]);
    });
    DType* b = static_cast<DType*>(b_out.dptr_);
    for (int64_t c = 0; c < F; ++c) b[c] = static_cast<DType>(shift[c]);
  });
}

std::shared_ptr<const BNFolded> BNFoldCache::Get(const std::vector<const TBlob*>& blobs,
                                                 const std::vector<NDArray>& arrays, const BNFoldParams& p) {
  if (!arrays.empty()) {
    std::lock_guard<std::mutex> lk(mu_);
    if (current_ && Current(*current_, arrays)) return current_;
  }
  auto made = std::make_shared<BNFolded>();
  // Counts first: a write pushed while folding shows as a newer count next time (a refold),
  // never as an older fold taken for current.
  for (const NDArray& a : arrays) {
    made->sources.push_back(a);
    made->completed.push_back(a.is_none() ? 0 : engine::VarVersion(a.var()));
    made->pushed.push_back(a.version());
  }
  const TBlob& w = *blobs[0];
  made->weight = NDArray(w.shape_, Context::CPU(), false, w.type_flag_);
  made->bias = NDArray(TShape{w.shape_[0]}, Context::CPU(), false, w.type_flag_);
  made->weight_blob = made->weight.data();
  made->bias_blob = made->bias.data();
  FoldBatchNorm(blobs, p, made->weight_blob, made->bias_blob);
  folds_.fetch_add(1);
  total_folds.fetch_add(1);
  if (arrays.empty()) return made;
  std::shared_ptr<const BNFolded> old;  // released outside the lock
  {
    std::lock_guard<std::mutex> lk(mu_);
    old = std::move(current_);
    current_ = made;
  }
  return made;
}

uint64_t BNFoldCache::TotalFolds() { return total_folds.load(); }

}  // namespace op
}  // namespace mxnet
