/*!
 * \file batch_loader.h
 * \brief Turns a per-instance source into batches (MXNet's round_batch rules, data.md §5):
 *        - a full batch per batch_size instances;
 *        - round_batch=true: a short last batch is completed from the start of the data
 *          (num_batch_padd = how many), and the BeforeFirst that follows does not rewind:
 *          the next epoch continues after the samples used to complete it;
 *        - round_batch=false: a short last batch keeps its real rows first, the rest are zero,
 *          num_batch_padd = how many are missing.
 *        Fewer instances than batch_size with round_batch is an error (nothing to wrap with).
 *        Every batch gets new arrays (see data_iter.h).
 */
#ifndef MXNET_IO_BATCH_LOADER_H_
#define MXNET_IO_BATCH_LOADER_H_

#include <dmlc/parameter.h>

#include <memory>
#include <string>
#include <vector>

#include "io/data_iter.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace io {

/*!
 * \brief One instance: its fields in host memory owned by the source, valid until the source's
 *        next Next() or BeforeFirst(). The first num_data_fields fields (BatchLoader's
 *        constructor) become DataBatch::data, the rest DataBatch::label. A field's batch array
 *        has shape (batch_size, *field shape) and the field's dtype: give a scalar label the
 *        shape () to get a (batch_size,) label. Shapes and dtypes must not change.
 */
struct DataInst {
  uint64_t index = 0;
  std::vector<TBlob> fields;
};

/*! \brief A per-instance source. */
class InstIter {
 public:
  virtual ~InstIter() = default;
  virtual void BeforeFirst() = 0;
  virtual bool Next() = 0;
  virtual const DataInst& Value() const = 0;
};

struct BatchParam : public dmlc::Parameter<BatchParam> {
  uint32_t batch_size;
  bool round_batch;
  DMLC_DECLARE_PARAMETER(BatchParam) {
    DMLC_DECLARE_FIELD(batch_size).set_lower_bound(1).describe("Number of samples per batch.");
    DMLC_DECLARE_FIELD(round_batch)
        .set_default(true)
        .describe(
            "Complete a short last batch with samples from the start of the data (the pad count says "
            "how many); the reset that follows then continues after them. Without it the short batch "
            "is zero-filled and pad says how many rows are missing.");
  }
};

class BatchLoader : public DataIter {
 public:
  /*! \brief ctx: where batch arrays live; host memory only (cpu, cpu_pinned, cpu_shared). */
  explicit BatchLoader(std::unique_ptr<InstIter> base, size_t num_data_fields = 1, Context ctx = Context::CPU());
  /*! \brief Sets batch_size and round_batch; call before the first Next(). */
  void Configure(const BatchParam& param);
  /*! \brief Standalone use: parses batch_size and round_batch ("BatchLoader" in errors). */
  void Init(const IterKwargs& kwargs) override;
  void BeforeFirst() override;
  bool Next() override;
  const DataBatch& Value() const override { return out_; }
  InstIter* base() const { return base_.get(); }

 private:
  void StartBatch(const DataInst& first);
  void CopyInstance(const DataInst& inst, uint32_t row);

  std::unique_ptr<InstIter> base_;
  size_t num_data_fields_;
  Context ctx_;
  BatchParam param_;
  bool configured_ = false;
  // Samples taken from the start to complete the last batch; while non-zero the epoch has
  // ended and the next BeforeFirst leaves the source where it is.
  uint32_t num_overflow_ = 0;
  DataBatch out_;
  std::vector<char*> dst_;           // out_ arrays' memory, field order
  std::vector<size_t> field_bytes_;  // bytes of one instance per field
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_BATCH_LOADER_H_
