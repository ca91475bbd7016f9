/*!
 * \file iter_libsvm.cc
 * \brief LibSVMIter: LibSVM text (zero-based, sorted column indices) in CSR batches. The label
 *        is each line's leading value (dense, (batch_size,)), or the rows of a second LibSVM
 *        file (CSR). Batches always hold batch_size rows: round_batch completes the last one
 *        from the start (pad counts those rows; the next epoch continues after them), or,
 *        with round_batch=False, with empty rows. Read ahead by PrefetcherIter.
 */
#include <dmlc/parameter.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/batch_loader.h"
#include "io/data_iter.h"
#include "io/libsvm_parser.h"
#include "io/prefetcher_iter.h"
#include "mxnet/op.h"

namespace mxnet {
namespace io {

struct LibSVMIterParam : public dmlc::Parameter<LibSVMIterParam> {
  std::string data_libsvm;
  TShape data_shape;
  std::string label_libsvm;
  TShape label_shape;
  int num_parts, part_index;
  int dtype;  // kUnknownType for None: float32
  int ctx;    // accepted for 1.x scripts; batches are always built in CPU memory
  DMLC_DECLARE_PARAMETER(LibSVMIterParam) {
    DMLC_DECLARE_FIELD(data_libsvm)
        .describe(
            "The LibSVM file of the data (zero-based, sorted column indices), or a directory of such files read in "
            "name order.");
    DMLC_DECLARE_FIELD(data_shape).describe("(number of columns,): the shape of one row of data.");
    DMLC_DECLARE_FIELD(label_libsvm)
        .set_default("NULL")
        .describe(
            "A LibSVM file (or directory) whose rows are the labels, in CSR form; 'NULL' takes each data line's "
            "leading value as its label.");
    DMLC_DECLARE_FIELD(label_shape)
        .set_default(TShape{1})
        .describe("(number of label columns,); must be (1,) without label_libsvm.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).set_lower_bound(1).describe(
        "Split the data into this many parts of about equal bytes, each a contiguous range of lines.");
    DMLC_DECLARE_FIELD(part_index).set_default(0).set_lower_bound(0).describe("The part this iterator reads.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("None", kUnknownType)
        .add_enum("float32", kFloat32)
        .add_enum("float64", kFloat64)
        .set_default(kUnknownType)
        .describe("The element type of the values and labels; None means float32.");
    DMLC_DECLARE_FIELD(ctx).add_enum("cpu", 1).add_enum("gpu", 2).set_default(2).describe(
        "Accepted for compatibility and ignored: batches are built in CPU memory.");
  }
};
DMLC_REGISTER_PARAMETER(LibSVMIterParam);

namespace {

/*! \brief The rows of one part: the data line and, with label_libsvm, the matching label line. */
template <typename T>
class LibSVMRows {
 public:
  explicit LibSVMRows(const LibSVMIterParam& p)
      : data_(p.data_libsvm, "LibSVMIter: data_libsvm", p.num_parts, p.part_index),
        cols_(p.data_shape[0]),
        label_cols_(p.label_shape[0]) {
    if (p.label_libsvm == "NULL") return;
    label_ = std::make_unique<LibSVMLines>(p.label_libsvm, "LibSVMIter: label_libsvm");
    check_label_end_ = p.num_parts == 1;
    // Label rows follow the data rows: a later part starts at the label row of its first data row.
    if (p.part_index > 0) {
      const uint64_t before = data_.RowsBeforePart();
      MX_CHECK_KIND(label_->SkipRows(before), "ValueError")
          << "LibSVMIter: label_libsvm has fewer rows than the " << before << " data rows before part " << p.part_index;
      label_->MarkStart();
    }
  }

  void Rewind() {
    data_.Rewind();
    if (label_) label_->Rewind();
    row_ = 0;
  }

  /*! \brief Reads the next row; false at the end of the part. */
  bool Next() {
    if (!NextRow(&data_, cols_, &data_row_)) {
      if (label_ && check_label_end_) {
        MX_CHECK_KIND(!NextRow(label_.get(), label_cols_, &label_row_), "ValueError")
            << "LibSVMIter: label_libsvm has more rows than data_libsvm (" << row_ << "); the first extra one is at "
            << label_->Where();
      }
      return false;
    }
    if (label_) {
      MX_CHECK_KIND(NextRow(label_.get(), label_cols_, &label_row_), "ValueError")
          << "LibSVMIter: label_libsvm ends before data_libsvm: no label row for the row at " << data_.Where();
    }
    index_ = row_++;
    return true;
  }

  const LibSVMRow<T>& data_row() const { return data_row_; }
  const LibSVMRow<T>& label_row() const { return label_row_; }
  uint64_t index() const { return index_; }
  int64_t cols() const { return cols_; }
  int64_t label_cols() const { return label_cols_; }
  bool label_is_csr() const { return label_ != nullptr; }

 private:
  static bool NextRow(LibSVMLines* lines, int64_t cols, LibSVMRow<T>* row) {
    std::string_view line;
    bool blank = true;
    while (blank) {
      if (!lines->Next(&line)) return false;
      const std::string err = ParseLibSVMLine(line, cols, row, &blank);
      MX_CHECK_KIND(err.empty(), "ValueError") << lines->what() << " " << lines->Where() << ": " << err;
    }
    return true;
  }

  LibSVMLines data_;
  std::unique_ptr<LibSVMLines> label_;
  int64_t cols_, label_cols_;
  bool check_label_end_ = false;
  LibSVMRow<T> data_row_, label_row_;
  uint64_t row_ = 0, index_ = 0;
};

/*! \brief A CSR matrix being filled row by row. */
template <typename T>
struct CSRBuilder {
  std::vector<T> values;
  std::vector<int64_t> indices;
  std::vector<int64_t> indptr{0};

  void Add(const LibSVMRow<T>& row) {
    values.insert(values.end(), row.values.begin(), row.values.end());
    indices.insert(indices.end(), row.indices.begin(), row.indices.end());
    indptr.push_back(static_cast<int64_t>(values.size()));
  }
  void AddEmpty() { indptr.push_back(static_cast<int64_t>(values.size())); }
};

template <typename V>
NDArray HostArray(const std::vector<V>& v) {
  NDArray a(TShape{static_cast<dim_t>(v.size())}, Context::CPU(), false, DTypeOf<V>::value);
  if (!v.empty()) std::memcpy(a.data().dptr_, v.data(), v.size() * sizeof(V));
  return a;
}

template <typename T>
CSRBatchArray ToBatchArray(const CSRBuilder<T>& b, int64_t cols) {
  CSRBatchArray out;
  out.data = HostArray(b.values);
  out.indices = HostArray(b.indices);
  out.indptr = HostArray(b.indptr);
  out.rows = static_cast<int64_t>(b.indptr.size()) - 1;
  out.cols = cols;
  return out;
}

/*! \brief Rows into batches of new arrays, with BatchLoader's round_batch rules. */
template <typename T>
class LibSVMBatcher : public DataIter {
 public:
  LibSVMBatcher(const LibSVMIterParam& p, const BatchParam& batch) : rows_(p), batch_(batch) {}

  void Init(const IterKwargs&) override { MX_THROW("MXNetError") << "LibSVMBatcher is configured by its constructor"; }

  void BeforeFirst() override {
    if (num_overflow_ != 0) {
      // Completing the last batch rewound the rows already; the new epoch goes on from there.
      num_overflow_ = 0;
      return;
    }
    rows_.Rewind();
  }

  bool Next() override {
    if (num_overflow_ != 0) return false;  // the epoch ended with a completed batch
    const uint32_t bs = batch_.batch_size;
    Batch b;
    while (b.size < bs && rows_.Next()) Add(&b);
    if (b.size == 0) return false;
    int pad = 0;
    if (b.size < bs && batch_.round_batch) {
      rows_.Rewind();
      for (uint32_t wrapped = 0; b.size < bs; ++wrapped) {
        if (!rows_.Next()) {
          num_overflow_ = 0;  // let BeforeFirst rewind
          MX_THROW("ValueError") << "LibSVMIter: the data has " << wrapped << " rows, fewer than batch_size " << bs
                                 << ": round_batch cannot complete a batch";
        }
        Add(&b);
        num_overflow_ = wrapped + 1;
      }
      pad = static_cast<int>(num_overflow_);
    } else if (b.size < bs) {
      pad = static_cast<int>(bs - b.size);
      for (; b.size < bs; ++b.size) {
        b.data.AddEmpty();
        b.label_csr.AddEmpty();
        b.label.push_back(T(0));
        b.index.push_back(0);
      }
    }
    out_ = DataBatch();
    out_.data_csr = ToBatchArray(b.data, rows_.cols());
    if (rows_.label_is_csr()) {
      out_.label_csr = ToBatchArray(b.label_csr, rows_.label_cols());
    } else {
      out_.label.push_back(HostArray(b.label));
    }
    out_.index = std::move(b.index);
    out_.num_batch_padd = pad;
    return true;
  }

  const DataBatch& Value() const override { return out_; }

 private:
  struct Batch {
    uint32_t size = 0;
    CSRBuilder<T> data, label_csr;
    std::vector<T> label;
    std::vector<uint64_t> index;
  };

  void Add(Batch* b) {
    b->data.Add(rows_.data_row());
    if (rows_.label_is_csr())
      b->label_csr.Add(rows_.label_row());
    else
      b->label.push_back(rows_.data_row().label);
    b->index.push_back(rows_.index());
    ++b->size;
  }

  LibSVMRows<T> rows_;
  BatchParam batch_;
  uint32_t num_overflow_ = 0;  // rows taken from the start to complete the last batch
  DataBatch out_;
};

void CheckColumns(const TShape& s, const char* name) {
  MX_CHECK_KIND(s.ndim() == 1 && s[0] > 0, "ValueError")
      << "LibSVMIter: " << name << " must be (number of columns,) with a positive size, got " << s;
}

class LibSVMIter : public PrefetchedIter {
 public:
  LibSVMIter() : PrefetchedIter("LibSVMIter") {}
  void Init(const IterKwargs& kwargs) override {
    LibSVMIterParam p;
    BatchParam batch;
    PrefetcherParam prefetch;
    ParseIterParams("LibSVMIter", kwargs, &p, &batch, &prefetch);
    CheckColumns(p.data_shape, "data_shape");
    CheckColumns(p.label_shape, "label_shape");
    MX_CHECK_KIND(p.label_libsvm != "NULL" || p.label_shape == TShape{1}, "ValueError")
        << "LibSVMIter: label_shape must be (1,) when label_libsvm is 'NULL' (the label is each line's leading "
           "value), got "
        << p.label_shape;
    MX_CHECK_KIND(p.part_index < p.num_parts, "ValueError")
        << "LibSVMIter: part_index " << p.part_index << " must be less than num_parts " << p.num_parts;
    std::unique_ptr<DataIter> batcher;
    if (p.dtype == kFloat64)
      batcher = std::make_unique<LibSVMBatcher<double>>(p, batch);
    else
      batcher = std::make_unique<LibSVMBatcher<float>>(p, batch);
    Start(std::move(batcher), prefetch);
  }
};

}  // namespace

MXNET_REGISTER_IO_ITER(LibSVMIter)
    .describe(
        "Iterates over LibSVM text in batches of CSR rows. Each line is `label idx:val idx:val ...` with zero-based "
        "column indices in increasing order; the data batch is a CSRNDArray of shape (batch_size, data_shape[0]).\n\n"
        "Without label_libsvm the label is each line's leading value (a dense (batch_size,) array, label_shape "
        "(1,)); with it the label is a CSRNDArray of the label file's rows (their leading values are ignored).\n\n"
        "round_batch=True (the default) completes a short last batch with rows from the start (pad says how many) "
        "and the next epoch continues after them; round_batch=False completes it with empty rows.\n\n"
        "num_parts / part_index read one of num_parts contiguous ranges of lines (split by bytes, so parts need "
        "not hold equal numbers of rows). A negative, out-of-range or unsorted column index or a malformed token "
        "is an error naming the file and line.")
    .add_arguments(LibSVMIterParam::__FIELDS__())
    .add_arguments(BatchParam::__FIELDS__())
    .add_arguments(PrefetcherParam::__FIELDS__())
    .set_body([]() { return new LibSVMIter(); });

}  // namespace io
}  // namespace mxnet
