/*!
 * \file onednn_fc_sparse_input.cc
 * \brief FullyConnected at batch 1 through the zeros of its input (see onednn_ops.h): the
 *        weight's transpose is cached on the weight array like the reordered weights of the
 *        oneDNN primitives, and its rows of zero inputs are skipped.
 */
#if MXNET_USE_ONEDNN

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "operator/nn/fc_gemv.h"
#include "operator/onednn/onednn_layout.h"
#include "operator/onednn/onednn_ops.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

/*! \brief w^T (K, H) of a weight w (H, K), and whether every value of w is finite. */
class TransposedWeight : public OpaqueLayout {
 public:
  TransposedWeight(const float* w, int64_t H, int64_t K) : H_(H), K_(K), wt_(static_cast<size_t>(H * K)) {
    constexpr int64_t kTile = 32;  // tiles of 32 x 32 keep both sides' lines in cache
#pragma omp parallel for schedule(static)
    for (int64_t h0 = 0; h0 < H; h0 += kTile)
      for (int64_t k0 = 0; k0 < K; k0 += kTile)
        for (int64_t h = h0; h < std::min(H, h0 + kTile); ++h)
          for (int64_t k = k0; k < std::min(K, k0 + kTile); ++k) wt_[k * H + h] = w[h * K + k];
    finite_ = std::all_of(w, w + H * K, [](float v) { return std::isfinite(v); });
  }
  void ToPlain(void* dst) const override {
    float* w = static_cast<float*>(dst);
    for (int64_t k = 0; k < K_; ++k)
      for (int64_t h = 0; h < H_; ++h) w[h * K_ + k] = wt_[k * H_ + h];
  }
  bool Fits(int64_t H, int64_t K) const { return H == H_ && K == K_; }
  bool finite() const { return finite_; }
  const float* data() const { return wt_.data(); }

 private:
  int64_t H_, K_;
  std::vector<float> wt_;
  bool finite_;
};

}  // namespace

bool FCSparseInputForward(const TBlob& x, const TBlob& w, const TBlob* bias, const TBlob& y, int64_t K, int64_t H,
                          bool add) {
  thread_local std::vector<int64_t> nz;
  const int64_t n = NonzeroIndices(x.dptr<float>(), K, &nz);
  if (static_cast<double>(n) > kFCSparseInputMaxDensity * static_cast<double>(K)) return false;
  // Without replacing: a weight that also serves larger batches keeps oneDNN's copy rather
  // than trading copies on every call.
  auto held = CachedDerivedInput(
      1, w,
      [&](const OpaqueLayout& have) {
        auto* t = dynamic_cast<const TransposedWeight*>(&have);
        return t != nullptr && t->Fits(H, K);
      },
      [&] { return std::make_shared<const TransposedWeight>(w.dptr<float>(), H, K); }, false);
  const auto* wt = static_cast<const TransposedWeight*>(held.get());
  if (wt == nullptr || !wt->finite()) return false;
  FCGemvSparseInput(x.dptr<float>(), wt->data(), nz, bias ? bias->dptr<float>() : nullptr, y.dptr<float>(), H, add);
  return true;
}

}  // namespace onednn
}  // namespace op
}  // namespace mxnet

#endif  // MXNET_USE_ONEDNN
