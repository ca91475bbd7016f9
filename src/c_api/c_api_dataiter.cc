/*!
 * \file c_api_dataiter.cc
 * \brief MXDataIter* entry points. A DataIterCreator is a registry entry (DataIterReg*); a
 *        DataIterHandle is a heap DataIter owned by the caller (MXDataIterFree).
 */
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "io/data_iter.h"
#include "mxnet/c_api.h"
#include "mxnet/ndarray.h"

using mxnet::NDArray;
using mxnet::io::DataBatch;
using mxnet::io::DataIter;
using mxnet::io::DataIterReg;

namespace {
struct ListTag {};
struct InfoTag {};

const DataIterReg* AsReg(DataIterCreator creator) {
  MX_CHECK_KIND(creator != nullptr, "ValueError") << "data iterator creator is NULL";
  return static_cast<const DataIterReg*>(creator);
}

DataIter* AsIter(DataIterHandle handle) {
  MX_CHECK_KIND(handle != nullptr, "ValueError") << "data iterator handle is NULL";
  return static_cast<DataIter*>(handle);
}

/*! \brief The first array of data or label in the current batch, as a new handle. */
NDArrayHandle FirstArray(DataIterHandle handle, bool label) {
  const DataBatch& b = AsIter(handle)->Value();
  const std::vector<NDArray>& arrays = label ? b.label : b.data;
  MX_CHECK_KIND(!(label ? b.label_csr : b.data_csr).has_value(), "TypeError")
      << "the data iterator's current " << (label ? "label" : "data")
      << " is a CSR matrix, which has no single NDArray: read it with MXDataIterGetCSRData";
  MX_CHECK(!arrays.empty()) << "the data iterator has no current " << (label ? "label" : "data")
                            << " array (no batch read yet, or the iterator gives none)";
  return new NDArray(arrays[0]);
}
}  // namespace

int MXListDataIters(mx_uint* out_size, DataIterCreator** out_array) {
  API_BEGIN();
  auto& ret = mxnet::capi::ThreadLocalReturn<ListTag, std::vector<DataIterCreator>>();
  ret.clear();
  for (const DataIterReg* reg : mxnet::io::DataIterRegistry::Get()->List())
    ret.push_back(const_cast<DataIterReg*>(reg));
  *out_size = static_cast<mx_uint>(ret.size());
  *out_array = ret.data();
  API_END();
}

int MXDataIterGetIterInfo(DataIterCreator creator, const char** name, const char** description, mx_uint* num_args,
                          const char*** arg_names, const char*** arg_type_infos, const char*** arg_descriptions) {
  API_BEGIN();
  const DataIterReg* reg = AsReg(creator);
  auto& bufs = mxnet::capi::ThreadLocalReturn<InfoTag, std::vector<std::vector<const char*>>>();
  bufs.assign(3, {});
  for (const auto& a : reg->arguments) {
    bufs[0].push_back(a.name.c_str());
    bufs[1].push_back(a.type_info.c_str());
    bufs[2].push_back(a.description.c_str());
  }
  *name = reg->name.c_str();
  *description = reg->description.c_str();
  *num_args = static_cast<mx_uint>(reg->arguments.size());
  *arg_names = bufs[0].data();
  *arg_type_infos = bufs[1].data();
  *arg_descriptions = bufs[2].data();
  API_END();
}

int MXDataIterCreateIter(DataIterCreator creator, mx_uint num_param, const char** keys, const char** vals,
                         DataIterHandle* out) {
  API_BEGIN();
  const DataIterReg* reg = AsReg(creator);
  MX_CHECK_KIND(num_param == 0 || (keys != nullptr && vals != nullptr), "ValueError")
      << reg->name << ": parameter keys or values are NULL";
  mxnet::io::IterKwargs kwargs;
  for (mx_uint i = 0; i < num_param; ++i) {
    MX_CHECK_KIND(keys[i] != nullptr && vals[i] != nullptr, "ValueError")
        << reg->name << ": parameter " << i << " has a NULL key or value";
    kwargs.emplace_back(keys[i], vals[i]);
  }
  *out = reg->Create(kwargs).release();
  API_END();
}

int MXDataIterFree(DataIterHandle handle) {
  API_BEGIN();
  delete static_cast<DataIter*>(handle);
  API_END();
}

int MXDataIterNext(DataIterHandle handle, int* out) {
  API_BEGIN();
  *out = AsIter(handle)->Next() ? 1 : 0;
  API_END();
}

int MXDataIterBeforeFirst(DataIterHandle handle) {
  API_BEGIN();
  AsIter(handle)->BeforeFirst();
  API_END();
}

int MXDataIterGetData(DataIterHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  *out = FirstArray(handle, false);
  API_END();
}

int MXDataIterGetLabel(DataIterHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  *out = FirstArray(handle, true);
  API_END();
}

int MXDataIterGetIndex(DataIterHandle handle, uint64_t** out_index, uint64_t* out_size) {
  API_BEGIN();
  // Points into the iterator's current batch (MXNet's convention); Python copies it.
  auto& index = const_cast<std::vector<uint64_t>&>(AsIter(handle)->Value().index);
  *out_index = index.empty() ? nullptr : index.data();
  *out_size = index.size();
  API_END();
}

int MXDataIterGetPadNum(DataIterHandle handle, int* pad) {
  API_BEGIN();
  *pad = AsIter(handle)->Value().num_batch_padd;
  API_END();
}

int MXDataIterGetCSRData(DataIterHandle handle, int which, NDArrayHandle out[3], int64_t* rows, int64_t* cols,
                         int* is_csr) {
  API_BEGIN();
  MX_CHECK_KIND(which == 0 || which == 1, "ValueError")
      << "MXDataIterGetCSRData: which must be 0 (data) or 1 (label), got " << which;
  MX_CHECK_KIND(out != nullptr && rows != nullptr && cols != nullptr && is_csr != nullptr, "ValueError")
      << "MXDataIterGetCSRData: an output pointer is NULL";
  const DataBatch& b = AsIter(handle)->Value();
  const auto& csr = which == 0 ? b.data_csr : b.label_csr;
  *is_csr = csr.has_value() ? 1 : 0;
  out[0] = out[1] = out[2] = nullptr;
  *rows = *cols = 0;
  if (csr) {
    out[0] = new NDArray(csr->data);
    out[1] = new NDArray(csr->indices);
    out[2] = new NDArray(csr->indptr);
    *rows = csr->rows;
    *cols = csr->cols;
  }
  API_END();
}
