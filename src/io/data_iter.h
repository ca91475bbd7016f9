/*!
 * \file data_iter.h
 * \brief The data-iterator framework behind mx.io's C iterators: what one batch is
 *        (DataBatch), what an iterator does (DataIter), the registry the C API lists and
 *        creates from (MXNET_REGISTER_IO_ITER), and strict parsing of the string kwargs.
 *
 *        Building blocks an iterator can stack (see docs/io_iterators.md):
 *        - io/batch_loader.h: per-instance source (InstIter) -> batches, round_batch rules;
 *        - io/prefetcher_iter.h: runs a DataIter on a background thread, bounded queue.
 *
 *        Batch arrays: every batch the framework's blocks produce owns new arrays; a batch a
 *        caller still holds is never written again (unlike MXNet, which reuses its buffers
 *        after prefetch_buffer more calls). Iterators wrapped by PrefetcherIter must keep to
 *        this: Value() must stay valid after the next Next().
 */
#ifndef MXNET_IO_DATA_ITER_H_
#define MXNET_IO_DATA_ITER_H_

#include <dmlc/parameter.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mxnet/error.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace io {

/*! \brief Parameters as the C API receives them: (key, value) strings, in call order. */
using IterKwargs = std::vector<std::pair<std::string, std::string>>;

/*!
 * \brief A batch array in CSR form (LibSVMIter): values (nnz,), int64 column indices (nnz,),
 *        int64 row starts (rows+1,), and the dense shape (rows, cols). There is no CSR NDArray:
 *        Python builds its CSRNDArray from the three arrays (MXDataIterGetCSRData).
 */
struct CSRBatchArray {
  NDArray data, indices, indptr;
  int64_t rows = 0, cols = 0;
};

/*! \brief What one Next() exposes. */
struct DataBatch {
  std::vector<NDArray> data;    // the data arrays (usually 1)
  std::vector<NDArray> label;   // the label arrays (usually 1)
  std::vector<uint64_t> index;  // per-sample index, may be empty
  int num_batch_padd = 0;       // trailing samples that are filler, not data
  // Set when the first data / label array is CSR; `data` / `label` are then empty.
  std::optional<CSRBatchArray> data_csr, label_csr;
};

class DataIter {
 public:
  virtual ~DataIter() = default;
  /*!
   * \brief Configures the iterator from string kwargs. An unknown key, a value that does not
   *        parse and a missing required key are errors naming the key and the iterator.
   */
  virtual void Init(const IterKwargs& kwargs) = 0;
  /*! \brief Back to the start of the data (the next Next() gives the first batch). */
  virtual void BeforeFirst() = 0;
  /*! \brief Moves to the next batch; false at the end of the epoch. */
  virtual bool Next() = 0;
  /*! \brief The current batch; valid after Next() returned true. */
  virtual const DataBatch& Value() const = 0;
};

// ---- registry ------------------------------------------------------------------------------

/*!
 * \brief One registered iterator: what MXListDataIters lists and MXDataIterGetIterInfo tells.
 *        Every key the iterator accepts must be registered (add_argument(s)): Create rejects
 *        the others before Init sees them.
 */
struct DataIterReg {
  struct Arg {
    std::string name, type_info, description;
  };
  std::string name, description;
  std::vector<Arg> arguments;
  std::function<DataIter*()> body;

  DataIterReg& describe(const std::string& text);
  DataIterReg& add_argument(const std::string& arg_name, const std::string& type_info, const std::string& doc);
  /*! \brief Adds a dmlc::Parameter struct's fields: add_arguments(P::__FIELDS__()). */
  DataIterReg& add_arguments(const std::vector<dmlc::ParamFieldInfo>& fields);
  DataIterReg& set_body(std::function<DataIter*()> fn);
  /*! \brief body() then Init(kwargs). */
  std::unique_ptr<DataIter> Create(const IterKwargs& kwargs) const;
};

/*! \brief The process registry. Registration happens during static initialisation only. */
class DataIterRegistry {
 public:
  static DataIterRegistry* Get();
  /*! \brief A new entry; a second registration of one name is a bug and aborts loudly. */
  DataIterReg& Register(const std::string& name);
  const DataIterReg* Find(const std::string& name) const;
  /*! \brief Every entry, sorted by name (registration order depends on link order). */
  std::vector<const DataIterReg*> List() const;

 private:
  std::vector<std::unique_ptr<DataIterReg>> entries_;
  std::unordered_map<std::string, DataIterReg*> by_name_;
};

#define MXNET_IO_ITER_CONCAT_(a, b) a##b
#define MXNET_IO_ITER_CONCAT(a, b) MXNET_IO_ITER_CONCAT_(a, b)
/*! \brief MXNET_REGISTER_IO_ITER(CSVIter).describe(...).add_arguments(...).set_body(...); */
#define MXNET_REGISTER_IO_ITER(name)                                                                                 \
  static ::mxnet::io::DataIterReg& MXNET_IO_ITER_CONCAT(mxnet_io_iter_reg_##name##_, __COUNTER__) [[maybe_unused]] = \
      ::mxnet::io::DataIterRegistry::Get()->Register(#name)

// ---- strict kwargs parsing -----------------------------------------------------------------

namespace detail {
/*! \brief Field names of one dmlc::Parameter struct. */
template <typename P>
const std::vector<std::string>& FieldNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& f : P::__FIELDS__()) out.push_back(f.name);
    return out;
  }();
  return names;
}
bool Contains(const std::vector<std::string>& names, const std::string& key);
/*! \brief Throws ValueError "<iter>: unknown argument '<key>'; valid arguments: ...". */
void ThrowUnknownKey(const std::string& iter_name, const std::string& key,
                     const std::vector<const std::vector<std::string>*>& known);
/*!
 * \brief Turns a dmlc::ParamError into a ValueError naming the iterator and, where one key
 *        alone fails (try_one throws for it), that key and its value.
 */
void ThrowParamError(const std::string& iter_name, const IterKwargs& mine, const char* what,
                     const std::function<void(const std::pair<std::string, std::string>&)>& try_one);

template <typename P>
void InitParam(const std::string& iter_name, const IterKwargs& kwargs, P* param) {
  IterKwargs mine;
  for (const auto& kv : kwargs)
    if (Contains(FieldNames<P>(), kv.first)) mine.push_back(kv);
  try {
    param->Init(mine);
  } catch (const dmlc::ParamError& e) {
    ThrowParamError(iter_name, mine, e.what(), [](const std::pair<std::string, std::string>& kv) {
      P scratch;
      scratch.UpdateAllowUnknown(IterKwargs{kv});
    });
  }
}
}  // namespace detail

/*!
 * \brief Parses kwargs into the given dmlc::Parameter structs (a key may feed several). Every
 *        key must belong to one of them. Errors are ValueErrors that name iter_name and the key:
 *        unknown key (with the valid ones), unparsable or out-of-range value, missing required key.
 *        ParseIterParams("CSVIter", kwargs, &csv_param, &batch_param, &prefetch_param);
 */
template <typename... P>
void ParseIterParams(const std::string& iter_name, const IterKwargs& kwargs, P*... params) {
  const std::vector<const std::vector<std::string>*> known = {&detail::FieldNames<P>()...};
  for (const auto& kv : kwargs) {
    bool found = false;
    for (const auto* names : known) found = found || detail::Contains(*names, kv.first);
    if (!found) detail::ThrowUnknownKey(iter_name, kv.first, known);
  }
  (detail::InitParam(iter_name, kwargs, params), ...);
}

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_DATA_ITER_H_
