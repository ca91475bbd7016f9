#include "io/batch_loader.h"

#include <cstring>

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(BatchParam);

BatchLoader::BatchLoader(std::unique_ptr<InstIter> base, size_t num_data_fields, Context ctx)
    : base_(std::move(base)), num_data_fields_(num_data_fields), ctx_(ctx) {
  MX_CHECK(base_ != nullptr) << "BatchLoader needs a source";
  // Instances are copied in with memcpy on this thread.
  MX_CHECK_KIND(ctx_.IsHostMemory(), "ValueError")
      << "BatchLoader: batch arrays must be in host memory, got " << ctx_.ToString();
}

void BatchLoader::Configure(const BatchParam& param) {
  param_ = param;
  configured_ = true;
}

void BatchLoader::Init(const IterKwargs& kwargs) {
  BatchParam p;
  ParseIterParams("BatchLoader", kwargs, &p);
  Configure(p);
}

void BatchLoader::BeforeFirst() {
  if (num_overflow_ != 0) {
    // Completing the last batch rewound the source already; the new epoch goes on from there.
    num_overflow_ = 0;
    return;
  }
  base_->BeforeFirst();
}

void BatchLoader::StartBatch(const DataInst& first) {
  MX_CHECK(first.fields.size() >= num_data_fields_)
      << "BatchLoader: an instance has " << first.fields.size() << " fields, expected at least " << num_data_fields_;
  const uint32_t bs = param_.batch_size;
  out_ = DataBatch();
  out_.index.assign(bs, 0);
  dst_.clear();
  field_bytes_.clear();
  for (size_t i = 0; i < first.fields.size(); ++i) {
    const TBlob& f = first.fields[i];
    std::vector<dim_t> dims{static_cast<dim_t>(bs)};
    dims.insert(dims.end(), f.shape_.begin(), f.shape_.end());
    NDArray arr(TShape(dims), ctx_, false, f.type_flag_);
    dst_.push_back(static_cast<char*>(arr.data().dptr_));
    field_bytes_.push_back(f.Bytes());
    (i < num_data_fields_ ? out_.data : out_.label).push_back(std::move(arr));
  }
}

void BatchLoader::CopyInstance(const DataInst& inst, uint32_t row) {
  MX_CHECK(inst.fields.size() == dst_.size()) << "BatchLoader: instance " << inst.index << " has " << inst.fields.size()
                                              << " fields, the batch has " << dst_.size();
  for (size_t i = 0; i < dst_.size(); ++i) {
    const TBlob& f = inst.fields[i];
    const NDArray& arr = i < num_data_fields_ ? out_.data[i] : out_.label[i - num_data_fields_];
    MX_CHECK(f.type_flag_ == arr.dtype() && f.Bytes() == field_bytes_[i])
        << "BatchLoader: field " << i << " of instance " << inst.index << " is " << DTypeName(f.type_flag_) << " "
        << f.shape_ << ", earlier instances gave " << DTypeName(arr.dtype()) << " with " << field_bytes_[i] << " bytes";
    if (field_bytes_[i] != 0) std::memcpy(dst_[i] + row * field_bytes_[i], f.dptr_, field_bytes_[i]);
  }
  out_.index[row] = inst.index;
}

bool BatchLoader::Next() {
  MX_CHECK(configured_) << "BatchLoader: call Configure() or Init() before Next()";
  if (num_overflow_ != 0) return false;  // the epoch ended with a completed batch
  if (!base_->Next()) return false;
  StartBatch(base_->Value());
  const uint32_t bs = param_.batch_size;
  uint32_t top = 0;
  CopyInstance(base_->Value(), top++);
  while (top < bs && base_->Next()) CopyInstance(base_->Value(), top++);
  if (top == bs) return true;
  if (param_.round_batch) {
    base_->BeforeFirst();
    for (uint32_t wrapped = 0; top < bs; ++top, ++wrapped) {
      if (!base_->Next()) {
        num_overflow_ = 0;  // let BeforeFirst rewind
        MX_THROW("ValueError") << "the data has " << wrapped << " instances, fewer than batch_size " << bs
                               << ": round_batch cannot complete a batch";
      }
      CopyInstance(base_->Value(), top);
      num_overflow_ = wrapped + 1;
    }
    out_.num_batch_padd = static_cast<int>(num_overflow_);
  } else {
    for (size_t i = 0; i < dst_.size(); ++i)
      if (field_bytes_[i] != 0) std::memset(dst_[i] + top * field_bytes_[i], 0, (bs - top) * field_bytes_[i]);
    out_.num_batch_padd = static_cast<int>(bs - top);
  }
  return true;
}

}  // namespace io
}  // namespace mxnet
