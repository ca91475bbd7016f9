#include "io/iter_image_recordio_plan.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>

#include "io/recordio.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {
uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::vector<uint64_t> ReadIdxOffsets(const std::string& idx_path, uint64_t file_size) {
  std::ifstream in(idx_path);
  MX_CHECK_KIND(in.good(), "IOError") << "cannot open the record index " << idx_path;
  std::vector<uint64_t> offsets;
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    // "<key>\t<offset>": only the offset matters here (labels come from the records).
    std::istringstream fields(line);
    std::string key, offset_text;
    fields >> key >> offset_text;
    char* end = nullptr;
    errno = 0;
    const unsigned long long offset = std::strtoull(offset_text.c_str(), &end, 10);
    MX_CHECK(!offset_text.empty() && errno == 0 && *end == '\0' && offset_text[0] != '-')
        << idx_path << " line " << line_no << ": expected '<key>\\t<offset>', got '" << line << "'";
    MX_CHECK(offset < file_size && offset % 4 == 0)
        << idx_path << " line " << line_no << ": offset " << offset << " is not a record start of a "
        << file_size << "-byte .rec file";
    offsets.push_back(offset);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  return offsets;
}
}  // namespace

uint64_t MixSeed(uint64_t a, uint64_t b, uint64_t c) {
  return SplitMix64(SplitMix64(SplitMix64(a) ^ b) ^ c);
}

RecordShard LoadRecordShard(const std::string& rec_path, const std::string& idx_path, int num_parts,
                            int part_index) {
  MX_CHECK_KIND(num_parts >= 1 && part_index >= 0 && part_index < num_parts, "ValueError")
      << "part_index " << part_index << " is not in [0, num_parts=" << num_parts << ")";
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(rec_path, ec);
  MX_CHECK_KIND(!ec, "IOError") << "cannot open the record file " << rec_path << ": " << ec.message();
  std::vector<uint64_t> all;
  if (idx_path.empty()) {
    for (size_t o : ScanRecordOffsets(rec_path)) all.push_back(o);
  } else {
    all = ReadIdxOffsets(idx_path, file_size);
  }
  RecordShard shard;
  shard.file_records = all.size();
  const uint64_t n = all.size(), parts = num_parts, k = part_index;
  const uint64_t base = n / parts, extra = n % parts;
  const uint64_t begin = k * base + std::min(k, extra);
  const uint64_t count = base + (k < extra ? 1 : 0);
  shard.first_position = begin;
  shard.offsets.assign(all.begin() + begin, all.begin() + begin + count);
  return shard;
}

BatchPlanner::BatchPlanner(const RecordShard* shard, int batch_size, bool round_batch, bool shuffle,
                           uint64_t shuffle_seed)
    : shard_(shard),
      n_(shard->offsets.size()),
      batch_size_(static_cast<size_t>(batch_size)),
      round_batch_(round_batch),
      shuffle_(shuffle),
      seed_(shuffle_seed) {
  MX_CHECK(batch_size >= 1 && n_ >= batch_size_) << "a batch planner needs at least batch_size records";
}

const std::vector<uint32_t>& BatchPlanner::Order(uint64_t epoch) {
  // Only consecutive epochs are needed together, so epoch parity picks the slot.
  const int slot = static_cast<int>(epoch % 2);
  if (cached_epoch_[slot] == epoch) return cached_order_[slot];
  std::vector<uint32_t>& order = cached_order_[slot];
  order.resize(n_);
  std::iota(order.begin(), order.end(), 0u);
  if (shuffle_) {
    // Fisher-Yates with our own index draw: the order depends only on (seed, epoch).
    std::mt19937_64 rng(MixSeed(seed_, epoch, 0x5348554646ull /* "SHUFF" */));
    for (size_t i = n_; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  }
  cached_epoch_[slot] = epoch;
  return order;
}

PlannedImage BatchPlanner::At(uint64_t epoch, size_t i) {
  const uint32_t local = Order(epoch)[i];
  PlannedImage img;
  img.offset = shard_->offsets[local];
  img.position = shard_->first_position + local;
  img.epoch = epoch;
  return img;
}

bool BatchPlanner::Plan(PlannedBatch* out) {
  out->images.clear();
  out->pad = 0;
  if (done_ || pos_ >= n_) {
    done_ = true;
    return false;
  }
  const size_t take = std::min(batch_size_, n_ - pos_);
  for (size_t i = 0; i < take; ++i) out->images.push_back(At(epoch_, pos_ + i));
  pos_ += take;
  if (take < batch_size_) {
    const size_t missing = batch_size_ - take;
    if (round_batch_) {
      for (size_t i = 0; i < missing; ++i) out->images.push_back(At(epoch_ + 1, i));
      overflow_ = missing;
    }
    out->pad = static_cast<int>(missing);
    done_ = true;
  } else if (pos_ == n_) {
    done_ = true;
  }
  return true;
}

void BatchPlanner::BeforeFirst(bool pass_consumed) {
  const size_t start = pass_consumed && done_ ? overflow_ : 0;
  ++epoch_;
  pos_ = start;
  overflow_ = 0;
  done_ = false;
}

}  // namespace io
}  // namespace mxnet
