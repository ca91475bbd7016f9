#include "io/iter_image_recordio_mean.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "mxnet/error.h"
#include "mxnet/ndarray.h"
#if MXNET_USE_OPENCV
#include "io/iter_image_recordio_normalize.h"
#include "io/iter_image_recordio_decoder.h"
#endif

namespace mxnet {
namespace io {

std::vector<float> LoadMeanImage(const std::string& path, int c, int h, int w) {
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  NDArrayLoadFile(path, &arrays, &names);
  MX_CHECK(!arrays.empty()) << "the mean image file " << path << " holds no array";
  const NDArray& a = arrays[0];
  const TShape want{c, h, w};
  MX_CHECK(a.shape() == want && a.dtype() == kFloat32)
      << "the mean image in " << path << " is " << DTypeName(a.dtype()) << " " << a.shape() << ", expected float32 "
      << want << " (data_shape); delete the file to have it recomputed";
  std::vector<float> out(static_cast<size_t>(a.Size()));
  a.SyncCopyToCPU(out.data(), out.size());
  return out;
}

void SaveMeanImage(const std::string& path, const std::vector<float>& mean, int c, int h, int w) {
  NDArray a(TShape{c, h, w}, Context::CPU(0), false, kFloat32);
  a.SyncCopyFromCPU(mean.data(), mean.size());
  NDArraySaveFile(path, {a}, {"mean_img"});
}

#if MXNET_USE_OPENCV
std::vector<float> ComputeMeanImage(const RecordShard& shard, int threads, int c, int h, int w, uint64_t aug_seed,
                                    const std::function<std::unique_ptr<ImageRecordDecoder>()>& make_decoder) {
  const size_t n = shard.offsets.size();
  MX_CHECK(n > 0) << "no records to compute the mean image from";
  const size_t pixels = static_cast<size_t>(c) * h * w;
  // Pixels are 8-bit integers, so double sums are exact (far below 2^53) in any order: each
  // thread keeps its own sum and the result cannot depend on the thread count.
  std::vector<double> total(pixels, 0.0);
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  size_t error_index = SIZE_MAX;
  auto work = [&] {
    std::unique_ptr<ImageRecordDecoder> decoder;
    std::vector<double> acc(pixels, 0.0);
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        if (!decoder) decoder = make_decoder();
        PlannedImage img;
        img.offset = shard.offsets[i];
        img.position = shard.first_position + i;
        img.epoch = UINT64_MAX;  // one fixed draw per image, unlike any training epoch
        std::mt19937 rng = ImageRecordDecoder::ImageRng(aug_seed, img);
        ImageNormalizer::Accumulate(decoder->Load(img, nullptr, &rng), acc.data());
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (i < error_index) {
          error = std::current_exception();
          error_index = i;
        }
        next.store(n);  // stop every thread early
      }
    }
    std::lock_guard<std::mutex> lk(mu);
    for (size_t k = 0; k < pixels; ++k) total[k] += acc[k];
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  std::vector<float> mean(pixels);
  for (size_t i = 0; i < pixels; ++i) mean[i] = static_cast<float>(total[i] / static_cast<double>(n));
  return mean;
}
#endif

}  // namespace io
}  // namespace mxnet
