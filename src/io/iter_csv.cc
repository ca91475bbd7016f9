/*!
 * \file iter_csv.cc
 * \brief CSVIter: rows of a CSV file (or a directory of them) reshaped to data_shape, with
 *        labels from a second CSV or zeros; batched by BatchLoader, read ahead by PrefetcherIter.
 */
#include <dmlc/parameter.h>

#include <memory>
#include <string>
#include <vector>

#include "io/batch_loader.h"
#include "io/csv_reader.h"
#include "io/data_iter.h"
#include "io/prefetcher_iter.h"
#include "mxnet/op.h"

namespace mxnet {
namespace io {

struct CSVIterParam : public dmlc::Parameter<CSVIterParam> {
  std::string data_csv;
  TShape data_shape;
  std::string label_csv;
  TShape label_shape;
  int dtype;  // kUnknownType for None (Python's dtype=None): float32
  DMLC_DECLARE_PARAMETER(CSVIterParam) {
    DMLC_DECLARE_FIELD(data_csv).describe("The CSV file of the data, or a directory of CSV files read in name order.");
    DMLC_DECLARE_FIELD(data_shape).describe("The shape of one sample; each row holds its values in row-major order.");
    DMLC_DECLARE_FIELD(label_csv).set_default("NULL").describe(
        "The CSV file (or directory) of the labels, one row per data row; 'NULL' gives zero labels.");
    DMLC_DECLARE_FIELD(label_shape)
        .set_default(TShape{1})
        .describe("The shape of one label; (1,) gives a label array of shape (batch_size,).");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", kUnknownType)
        .add_enum("float32", kFloat32)
        .add_enum("int32", kInt32)
        .add_enum("int64", kInt64)
        .set_default(kFloat32)
        .describe("The element type of the data and label arrays.");
  }
};
DMLC_REGISTER_PARAMETER(CSVIterParam);

namespace {

/*! \brief One row of data and one of labels per instance, in the chosen dtype. */
class CSVInstIter : public InstIter {
 public:
  CSVInstIter(const CSVIterParam& p, int dtype)
      : dtype_(dtype),
        data_shape_(p.data_shape),
        // (1,) labels are scalars per instance, so the batch label is (batch_size,) as in MXNet.
        label_shape_(p.label_shape == TShape{1} ? TShape(0) : p.label_shape),
        data_(p.data_csv, "CSVIter: data_csv") {
    if (p.label_csv != "NULL") label_ = std::make_unique<CSVReader>(p.label_csv, "CSVIter: label_csv");
    data_buf_.resize(data_shape_.Size() * DTypeSize(dtype));
    label_buf_.assign(label_shape_.Size() * DTypeSize(dtype), 0);
    inst_.fields = {TBlob(data_buf_.data(), data_shape_, dtype, Context::CPU()),
                    TBlob(label_buf_.data(), label_shape_, dtype, Context::CPU())};
  }

  void BeforeFirst() override {
    data_.Rewind();
    if (label_) label_->Rewind();
    row_ = 0;
  }

  bool Next() override {
    if (!data_.NextRow(dtype_, data_shape_.Size(), data_buf_.data())) {
      if (label_) {
        std::vector<char> scratch(label_buf_.size());
        MX_CHECK_KIND(!label_->NextRow(dtype_, label_shape_.Size(), scratch.data()), "ValueError")
            << "CSVIter: label_csv has more rows than data_csv (" << row_ << "); first extra at " << label_->Where();
      }
      return false;
    }
    if (label_) {
      MX_CHECK_KIND(label_->NextRow(dtype_, label_shape_.Size(), label_buf_.data()), "ValueError")
          << "CSVIter: label_csv ends before data_csv: no label for the row at " << data_.Where();
    }
    inst_.index = row_++;
    return true;
  }

  const DataInst& Value() const override { return inst_; }

 private:
  int dtype_;
  TShape data_shape_, label_shape_;
  CSVReader data_;
  std::unique_ptr<CSVReader> label_;
  std::vector<char> data_buf_, label_buf_;
  DataInst inst_;
  uint64_t row_ = 0;
};

void CheckShape(const TShape& s, const char* name) {
  bool ok = s.ndim() > 0;
  for (dim_t d : s) ok = ok && d > 0;
  MX_CHECK_KIND(ok, "ValueError") << "CSVIter: " << name << " must have positive dimensions, got " << s;
}

class CSVIter : public PrefetchedIter {
 public:
  CSVIter() : PrefetchedIter("CSVIter") {}
  void Init(const IterKwargs& kwargs) override {
    CSVIterParam csv;
    BatchParam batch;
    PrefetcherParam prefetch;
    ParseIterParams("CSVIter", kwargs, &csv, &batch, &prefetch);
    CheckShape(csv.data_shape, "data_shape");
    CheckShape(csv.label_shape, "label_shape");
    const int dtype = csv.dtype == kUnknownType ? kFloat32 : csv.dtype;
    auto loader = std::make_unique<BatchLoader>(std::make_unique<CSVInstIter>(csv, dtype));
    loader->Configure(batch);
    Start(std::move(loader), prefetch);
  }
};

}  // namespace

MXNET_REGISTER_IO_ITER(CSVIter)
    .describe(
        "Iterates over a CSV file (or a directory of CSV files) in batches. Each row is one sample, "
        "reshaped to data_shape; labels come from label_csv, row for row, or are zero.\n\n"
        "round_batch=True completes a short last batch with rows from the start (pad says how many) "
        "and the next epoch continues after them; round_batch=False zero-fills it.")
    .add_arguments(CSVIterParam::__FIELDS__())
    .add_arguments(BatchParam::__FIELDS__())
    .add_arguments(PrefetcherParam::__FIELDS__())
    .set_body([]() { return new CSVIter(); });

}  // namespace io
}  // namespace mxnet
