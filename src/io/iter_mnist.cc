/*!
 * \file iter_mnist.cc
 * \brief MNISTIter: the idx files of MNIST (or any idx3 uint8 images with idx1 uint8 labels)
 *        held in memory; pixels / 256, shuffled once at load, a partial last batch dropped.
 *        Read ahead by PrefetcherIter.
 */
#include <dmlc/parameter.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/logging.h"
#include "io/data_iter.h"
#include "io/prefetcher_iter.h"

namespace mxnet {
namespace io {

struct MNISTParam : public dmlc::Parameter<MNISTParam> {
  std::string image, label;
  int batch_size;
  bool shuffle, flat, silent;
  int seed, num_parts, part_index;
  DMLC_DECLARE_PARAMETER(MNISTParam) {
    DMLC_DECLARE_FIELD(image).set_default("./train-images-idx3-ubyte").describe("Path of the idx3 image file.");
    DMLC_DECLARE_FIELD(label).set_default("./train-labels-idx1-ubyte").describe("Path of the idx1 label file.");
    DMLC_DECLARE_FIELD(batch_size).set_default(128).set_lower_bound(1).describe("Number of samples per batch.");
    DMLC_DECLARE_FIELD(shuffle).set_default(true).describe("Shuffle the samples once, when they are loaded.");
    DMLC_DECLARE_FIELD(flat).set_default(false).describe(
        "Give each image as a flat vector: data (batch_size, rows*cols) instead of (batch_size, 1, rows, cols).");
    DMLC_DECLARE_FIELD(seed).set_default(0).describe("Seed of the shuffle.");
    DMLC_DECLARE_FIELD(silent).set_default(false).describe("Do not log what was loaded.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).set_lower_bound(1).describe(
        "Split the samples into this many contiguous parts (the last takes the remainder)...");
    DMLC_DECLARE_FIELD(part_index).set_default(0).set_lower_bound(0).describe("...and iterate over this one.");
  }
};
DMLC_REGISTER_PARAMETER(MNISTParam);

namespace {

uint32_t BigEndian32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/*! \brief An idx file's dims and payload; every size checked against the file before reading it. */
struct IdxFile {
  std::vector<uint32_t> dims;
  std::vector<unsigned char> payload;
};

IdxFile ReadIdx(const std::string& path, const char* what, uint32_t magic, size_t ndim) {
  namespace fs = std::filesystem;
  std::error_code ec;
  MX_CHECK_KIND(fs::is_regular_file(path, ec), "IOError")
      << "MNISTIter: " << what << " file '" << path << "' does not exist";
  const uint64_t size = fs::file_size(path, ec);
  MX_CHECK_KIND(!ec, "IOError") << "MNISTIter: cannot stat " << what << " file '" << path << "': " << ec.message();
  std::ifstream in(path, std::ios::binary);
  MX_CHECK_KIND(in.is_open(), "IOError") << "MNISTIter: cannot open " << what << " file '" << path << "'";
  // The magic number first: a wrong kind of file is named as such, not as a short one.
  unsigned char head[16] = {0};
  const size_t header = 4 * (1 + ndim);
  in.read(reinterpret_cast<char*>(head), static_cast<std::streamsize>(std::min<uint64_t>(size, header)));
  MX_CHECK_KIND(!(size >= 2 && head[0] == 0x1f && head[1] == 0x8b), "ValueError")
      << "MNISTIter: " << what << " file '" << path << "' is gzip-compressed; decompress it first (gunzip)";
  const uint32_t got_magic = size >= 4 ? BigEndian32(head) : 0;
  MX_CHECK_KIND(got_magic == magic, "ValueError")
      << "MNISTIter: " << what << " file '" << path << "' has magic number " << got_magic << ", expected " << magic
      << " (idx" << ndim << " of unsigned bytes)";
  MX_CHECK_KIND(size >= header, "ValueError")
      << "MNISTIter: " << what << " file '" << path << "' has " << size << " bytes, too short for an idx header";
  IdxFile out;
  uint64_t count = 1;
  for (size_t i = 0; i < ndim; ++i) {
    const uint32_t d = BigEndian32(head + 4 * (i + 1));
    out.dims.push_back(d);
    // Checked before multiplying, so a hostile header cannot overflow the count.
    MX_CHECK_KIND(d == 0 || count <= size / d, "ValueError")
        << "MNISTIter: " << what << " file '" << path << "' is truncated: its header promises more bytes than it has";
    count *= d;
  }
  MX_CHECK_KIND(size - header >= count, "ValueError")
      << "MNISTIter: " << what << " file '" << path << "' is truncated: the header promises " << count
      << " bytes of data, the file has " << size - header;
  out.payload.resize(count);
  in.read(reinterpret_cast<char*>(out.payload.data()), static_cast<std::streamsize>(count));
  MX_CHECK_KIND(in.gcount() == static_cast<std::streamsize>(count), "IOError")
      << "MNISTIter: read error in " << what << " file '" << path << "'";
  return out;
}

class MNISTIter : public DataIter {
 public:
  void Init(const IterKwargs& kwargs) override {
    ParseIterParams("MNISTIter", kwargs, &param_);
    MX_CHECK_KIND(param_.part_index < param_.num_parts, "ValueError")
        << "MNISTIter: part_index " << param_.part_index << " must be below num_parts " << param_.num_parts;
    IdxFile images = ReadIdx(param_.image, "image", 2051, 3);
    IdxFile labels = ReadIdx(param_.label, "label", 2049, 1);
    const uint32_t n = images.dims[0];
    MX_CHECK_KIND(labels.dims[0] == n, "ValueError")
        << "MNISTIter: '" << param_.image << "' has " << n << " images but '" << param_.label << "' has "
        << labels.dims[0] << " labels";
    rows_ = images.dims[1];
    cols_ = images.dims[2];
    pixels_ = std::move(images.payload);
    labels_ = std::move(labels.payload);
    // Contiguous parts; the last one also takes the remainder.
    const uint32_t step = n / static_cast<uint32_t>(param_.num_parts);
    const uint32_t begin = step * static_cast<uint32_t>(param_.part_index);
    const uint32_t end = param_.part_index == param_.num_parts - 1 ? n : begin + step;
    order_.resize(end - begin);
    std::iota(order_.begin(), order_.end(), begin);
    if (param_.shuffle) {
      std::mt19937 rng(static_cast<uint32_t>(param_.seed));
      std::shuffle(order_.begin(), order_.end(), rng);
    }
    MX_CHECK_KIND(order_.size() >= static_cast<size_t>(param_.batch_size), "ValueError")
        << "MNISTIter: batch_size " << param_.batch_size << " is larger than the " << order_.size()
        << " images of part " << param_.part_index << " of " << param_.num_parts << " ('" << param_.image << "')";
    if (!param_.silent) {
      std::ostringstream os;
      os << "MNISTIter: loaded " << order_.size() << " of " << n << " images from '" << param_.image
         << "', shuffle=" << param_.shuffle << ", data shape " << DataShape();
      common::LogInfo(os.str());
    }
    loc_ = 0;
  }

  void BeforeFirst() override { loc_ = 0; }

  bool Next() override {
    const size_t bs = static_cast<size_t>(param_.batch_size);
    if (loc_ + bs > order_.size()) return false;  // a partial batch is dropped
    NDArray data(DataShape(), Context::CPU(), false, kFloat32);
    NDArray label(TShape{static_cast<dim_t>(bs)}, Context::CPU(), false, kFloat32);
    float* dst = static_cast<float*>(data.data().dptr_);
    float* lab = static_cast<float*>(label.data().dptr_);
    const size_t img = static_cast<size_t>(rows_) * cols_;
    out_ = DataBatch();
    out_.index.resize(bs);
    for (size_t i = 0; i < bs; ++i) {
      const uint32_t id = order_[loc_ + i];
      const unsigned char* src = pixels_.data() + static_cast<size_t>(id) * img;
      for (size_t k = 0; k < img; ++k) dst[i * img + k] = static_cast<float>(src[k]) / 256.0f;
      lab[i] = static_cast<float>(labels_[id]);
      out_.index[i] = id;
    }
    out_.data.push_back(std::move(data));
    out_.label.push_back(std::move(label));
    loc_ += bs;
    return true;
  }

  const DataBatch& Value() const override { return out_; }

 private:
  TShape DataShape() const {
    const dim_t bs = param_.batch_size;
    if (param_.flat) return TShape{bs, static_cast<dim_t>(rows_) * cols_};
    return TShape{bs, 1, static_cast<dim_t>(rows_), static_cast<dim_t>(cols_)};
  }

  MNISTParam param_;
  uint32_t rows_ = 0, cols_ = 0;
  std::vector<unsigned char> pixels_, labels_;
  std::vector<uint32_t> order_;
  size_t loc_ = 0;
  DataBatch out_;
};

}  // namespace

MXNET_REGISTER_IO_ITER(MNISTIter)
    .describe(
        "Iterates over MNIST-format idx files held in memory: uint8 images (idx3) and labels (idx1). "
        "Pixels are divided by 256; data is (batch_size, 1, rows, cols), or (batch_size, rows*cols) "
        "with flat; label is (batch_size,). The samples are shuffled once at load (shuffle, seed), "
        "and a partial last batch is dropped.")
    .add_arguments(MNISTParam::__FIELDS__())
    .add_arguments(PrefetcherParam::__FIELDS__())
    .set_body([]() { return new PrefetcherIter(new MNISTIter()); });

}  // namespace io
}  // namespace mxnet
