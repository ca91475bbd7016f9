// dmlc::optional fields: GCC flags optional<T>::swap inside dmlc::Parameter parsing as
// maybe-uninitialized, a false positive of dmlc/optional.h reported where parsing is instantiated.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "io/iter_image_recordio.h"

#include <filesystem>
#include <sstream>

#include "common/logging.h"
#include "io/image_aug_param.h"
#include "io/iter_image_recordio_threads.h"
#include "io/iter_image_recordio_param.h"
#if MXNET_USE_OPENCV
#include "io/image_aug.h"
#include "io/iter_image_recordio_lst.h"
#include "io/iter_image_recordio_mean.h"
#include "io/iter_image_recordio_normalize.h"
#include "io/iter_image_recordio_decoder.h"
#endif

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(ImageRecParserParam);
DMLC_REGISTER_PARAMETER(ImageRecordParam);
DMLC_REGISTER_PARAMETER(ImageRecPrefetchParam);

ImageRecordIter::ImageRecordIter(const char* name, int forced_dtype) : name_(name), forced_dtype_(forced_dtype) {}

ImageRecordIter::~ImageRecordIter() = default;

void ImageRecordIter::BeforeFirst() {
  MX_CHECK(pipeline_ != nullptr) << name_ << " is not initialised";
  pipeline_->BeforeFirst();
}

bool ImageRecordIter::Next() {
  MX_CHECK(pipeline_ != nullptr) << name_ << " is not initialised";
  return pipeline_->Next(&out_);
}

#if MXNET_USE_OPENCV
namespace {

bool HasKey(const IterKwargs& kwargs, const char* key) {
  for (const auto& kv : kwargs)
    if (kv.first == key) return true;
  return false;
}

NormalizeConfig MakeNormalizeConfig(const ImageNormalizeParam& n, int dtype, const TShape& shape) {
  NormalizeConfig c;
  c.dtype = dtype;
  c.channels = static_cast<int>(shape[0]);
  c.height = static_cast<int>(shape[1]);
  c.width = static_cast<int>(shape[2]);
  c.mirror = n.mirror;
  c.rand_mirror = n.rand_mirror;
  const float means[4] = {n.mean_r, n.mean_g, n.mean_b, n.mean_a};
  const float stds[4] = {n.std_r, n.std_g, n.std_b, n.std_a};
  for (int k = 0; k < 4; ++k) {
    c.mean[k] = means[k];
    c.std[k] = stds[k];
  }
  c.scale = n.scale;
  c.max_random_contrast = n.max_random_contrast;
  c.max_random_illumination = n.max_random_illumination;
  return c;
}

}  // namespace

void ImageRecordIter::Init(const IterKwargs& kwargs) {
  pipeline_.reset();
  const char* name = name_.c_str();
  ImageRecParserParam parser;
  ImageRecordParam record;
  ImageRecPrefetchParam prefetch;
  ImageAugParam aug;
  ImageNormalizeParam norm;
  int dtype = forced_dtype_;
  if (forced_dtype_ < 0) {
    ParseIterParams(name_, kwargs, &parser, &record, &prefetch, &aug, &norm);
    dtype = prefetch.dtype.has_value() ? prefetch.dtype.value() : kFloat32;
  } else {
    ImageMirrorParam mirror;
    ParseIterParams(name_, kwargs, &parser, &record, &prefetch, &aug, &mirror);
    norm.Init(IterKwargs{});
    norm.mirror = mirror.mirror;
    norm.rand_mirror = mirror.rand_mirror;
    MX_CHECK_KIND(!prefetch.dtype.has_value() || prefetch.dtype.value() == forced_dtype_, "ValueError")
        << name << ": dtype is always " << DTypeName(forced_dtype_) << " here, got "
        << DTypeName(prefetch.dtype.value()) << " (use ImageRecordIter for other dtypes)";
  }

  // ---- cross-field checks, with the parameter named
  const TShape& shape = parser.data_shape;
  MX_CHECK_KIND(shape.ndim() == 3 && (shape[0] == 1 || shape[0] == 3 || shape[0] == 4) && shape[1] >= 1 &&
                    shape[2] >= 1,
                "ValueError")
      << name << ": data_shape must be (channels, height, width) with 1, 3 or 4 channels, got " << shape;
  MX_CHECK_KIND(parser.aug_seq == "aug_default", "ValueError")
      << name << ": aug_seq '" << parser.aug_seq << "' is not an augmenter; the only one is aug_default";
  MX_CHECK_KIND(parser.part_index < parser.num_parts, "ValueError")
      << name << ": part_index " << parser.part_index << " must be less than num_parts " << parser.num_parts;
  MX_CHECK_KIND(norm.mean_img.empty() || dtype == kFloat32, "ValueError")
      << name << ": mean_img applies to float32 output only, not " << DTypeName(dtype);
  ValidateImageAugParam(aug, name);
  ValidateImageNormalizeParam(norm, name);
  const int c = static_cast<int>(shape[0]), h = static_cast<int>(shape[1]), w = static_cast<int>(shape[2]);

  // ---- records of this part
  shard_ = LoadRecordShard(parser.path_imgrec, parser.path_imgidx, parser.num_parts, parser.part_index);
  MX_CHECK(shard_.offsets.size() >= static_cast<size_t>(record.batch_size))
      << name << ": " << parser.path_imgrec << " part " << parser.part_index << " of " << parser.num_parts
      << " holds " << shard_.offsets.size() << " images, fewer than batch_size " << record.batch_size;

  // ---- per-image work: shared, read-only configuration
  auto config = std::make_shared<ImageDecodeConfig>();
  config->rec_path = parser.path_imgrec;
  config->channels = c;
  config->label_width = parser.label_width;
  config->aug_seed = parser.seed_aug.has_value()
                         ? MixSeed(0x5EEDA06ull, static_cast<uint64_t>(parser.seed_aug.value()), 1)
                         : MixSeed(0x5EEDA06ull, static_cast<uint64_t>(record.seed), 0);
  if (!parser.path_imglist.empty())
    config->label_list = std::make_shared<ImageLabelList>(parser.path_imglist, parser.label_width);
  config->augmenter = std::make_shared<ImageAugmenter>(aug, h, w);
  const bool ctx_cpu = prefetch.ctx == 0;
  const int threads = PreprocessThreads(HasKey(kwargs, "preprocess_threads"), parser.preprocess_threads, ctx_cpu);

  NormalizeConfig ncfg = MakeNormalizeConfig(norm, dtype, shape);
  if (!norm.mean_img.empty()) {
    std::vector<float> mean;
    if (std::filesystem::exists(norm.mean_img)) {
      mean = LoadMeanImage(norm.mean_img, c, h, w);
    } else {
      if (parser.verbose) common::LogInfo(name_ + ": computing the mean image into " + norm.mean_img);
      const std::shared_ptr<const ImageDecodeConfig> cfg = config;
      mean = ComputeMeanImage(shard_, threads, c, h, w, config->aug_seed,
                              [cfg] { return std::make_unique<ImageRecordDecoder>(cfg); });
      SaveMeanImage(norm.mean_img, mean, c, h, w);
    }
    ncfg.mean_img = std::make_shared<const std::vector<float>>(std::move(mean));
  }
  config->normalizer = std::make_shared<ImageNormalizer>(ncfg);

  // ---- batches
  const bool shuffle = record.shuffle || parser.shuffle_chunk_size > 0;
  const int shuffle_seed = record.shuffle ? record.seed : parser.shuffle_chunk_seed;
  planner_ = std::make_unique<BatchPlanner>(&shard_, record.batch_size, record.round_batch, shuffle,
                                            static_cast<uint64_t>(static_cast<int64_t>(shuffle_seed)));
  BatchLayout layout;
  layout.data_shape = TShape{record.batch_size, c, h, w};
  layout.dtype = dtype;
  layout.label_shape = parser.label_width == 1 ? TShape{record.batch_size} : TShape{record.batch_size, parser.label_width};
  layout.ctx = ctx_cpu || parser.device_id < 0 ? Context::CPU(0) : Context::CPUPinned(parser.device_id);
  const std::shared_ptr<const ImageDecodeConfig> cfg = config;
  pipeline_ = std::make_unique<ImageBatchPipeline>(layout, planner_.get(), threads, prefetch.prefetch_buffer,
                                                   [cfg] { return std::make_unique<ImageRecordDecoder>(cfg); });
  if (parser.verbose) {
    std::ostringstream os;
    os << name_ << ": " << shard_.offsets.size() << " images of " << parser.path_imgrec;
    if (parser.num_parts > 1) os << " (part " << parser.part_index << " of " << parser.num_parts << ")";
    os << ", batch " << record.batch_size << ", " << threads << " decode threads, " << DTypeName(dtype)
       << (shuffle ? ", shuffled" : "");
    common::LogInfo(os.str());
  }
}
#else
void ImageRecordIter::Init(const IterKwargs&) {
  MX_THROW("MXNetError") << name_ << " needs image decoding, and this build has no OpenCV (USE_OPENCV=OFF)";
}
#endif  // MXNET_USE_OPENCV

namespace {
DataIterReg& AddImageRecordArgs(DataIterReg& reg, bool normalize) {
  reg.add_arguments(ImageRecParserParam::__FIELDS__())
      .add_arguments(ImageRecordParam::__FIELDS__())
      .add_arguments(ImageRecPrefetchParam::__FIELDS__())
      .add_arguments(ImageAugParam::__FIELDS__());
  return normalize ? reg.add_arguments(ImageNormalizeParam::__FIELDS__())
                   : reg.add_arguments(ImageMirrorParam::__FIELDS__());
}
}  // namespace

// Registered even without OpenCV, so the iterator is listed and says why it cannot run.
static DataIterReg& image_record_iter_reg [[maybe_unused]] = AddImageRecordArgs(
    DataIterRegistry::Get()
        ->Register("ImageRecordIter")
        .describe("Batches of images from a RecordIO (.rec) file, decoded and augmented on worker threads. "
                  "data: (batch_size, c, h, w) RGB float32 (or dtype uint8/int8); label: (batch_size,) or "
                  "(batch_size, label_width) float32.")
        .set_body([] { return new ImageRecordIter("ImageRecordIter", -1); }),
    true);
static DataIterReg& image_record_uint8_iter_reg [[maybe_unused]] = AddImageRecordArgs(
    DataIterRegistry::Get()
        ->Register("ImageRecordUInt8Iter")
        .describe("Deprecated: ImageRecordIter with dtype='uint8' (raw pixels, no normalisation).")
        .set_body([] { return new ImageRecordIter("ImageRecordUInt8Iter", kUint8); }),
    false);
static DataIterReg& image_record_int8_iter_reg [[maybe_unused]] = AddImageRecordArgs(
    DataIterRegistry::Get()
        ->Register("ImageRecordInt8Iter")
        .describe("Deprecated: ImageRecordIter with dtype='int8' (pixels saturated to int8).")
        .set_body([] { return new ImageRecordIter("ImageRecordInt8Iter", kInt8); }),
    false);

}  // namespace io
}  // namespace mxnet
