/*!
 * \file c_predict_ndlist.cc
 * \brief MXNDList*: the arrays of an NDArray list blob (mean images and the like) as plain
 *        float buffers, for programs that use only the predict API.
 */
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_predict_api.h"
#include "mxnet/ndarray.h"

namespace {

/*! \brief Copied out of the NDArrays so the pointers handed out stay valid and plain. */
struct NDList {
  std::vector<std::string> keys;
  std::vector<std::vector<mx_float>> data;
  std::vector<std::vector<mx_uint>> shapes;
};

NDList* List(NDListHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "NDListHandle is NULL";
  return static_cast<NDList*>(h);
}

}  // namespace

int MXNDListCreate(const char* nd_file_bytes, int nd_file_size, NDListHandle* out, mx_uint* out_length) {
  API_BEGIN();
  MX_CHECK_KIND(out != nullptr && out_length != nullptr, "ValueError") << "MXNDListCreate: out or out_length is NULL";
  MX_CHECK_KIND(nd_file_size >= 0, "ValueError") << "MXNDListCreate: nd_file_size must be >= 0, got " << nd_file_size;
  MX_CHECK_KIND(nd_file_bytes != nullptr || nd_file_size == 0, "ValueError") << "MXNDListCreate: nd_file_bytes is NULL";
  std::vector<mxnet::NDArray> arrays;
  std::vector<std::string> names;
  mxnet::NDArrayLoadList(nd_file_bytes, static_cast<size_t>(nd_file_size), "NDArray list blob", &arrays, &names);
  auto list = std::make_unique<NDList>();
  for (size_t i = 0; i < arrays.size(); ++i) {
    const mxnet::NDArray& a = arrays[i];
    list->keys.push_back(names.empty() ? std::string() : names[i]);
    std::vector<mx_uint> shape;
    std::vector<mx_float> data;
    if (!a.is_none()) {
      for (mxnet::dim_t d : a.shape()) {
        MX_CHECK_KIND(d <= static_cast<mxnet::dim_t>(UINT32_MAX), "ValueError")
            << "MXNDListCreate: array " << i << " has shape " << a.shape() << ", beyond 32-bit dims";
        shape.push_back(static_cast<mx_uint>(d));
      }
      data.resize(static_cast<size_t>(a.Size()));
      mxnet::NDArray f32 = a;
      if (a.dtype() != mxnet::kFloat32) {  // handed out as floats whatever was saved
        f32 = mxnet::NDArray(a.shape(), mxnet::Context::CPU(), false, mxnet::kFloat32);
        mxnet::CopyFromTo(a, f32);
      }
      f32.SyncCopyToCPU(data.data(), data.size());
    }
    list->shapes.push_back(std::move(shape));
    list->data.push_back(std::move(data));
  }
  *out_length = static_cast<mx_uint>(arrays.size());
  *out = list.release();
  API_END();
}

int MXNDListGet(NDListHandle handle, mx_uint index, const char** out_key, const mx_float** out_data,
                const mx_uint** out_shape, mx_uint* out_ndim) {
  API_BEGIN();
  const NDList* list = List(handle);
  MX_CHECK_KIND(out_key && out_data && out_shape && out_ndim, "ValueError") << "MXNDListGet: an output pointer is NULL";
  MX_CHECK_KIND(index < list->keys.size(), "IndexError")
      << "MXNDListGet: index " << index << " is out of range: the list has " << list->keys.size() << " array(s)";
  *out_key = list->keys[index].c_str();
  *out_data = list->data[index].data();
  *out_shape = list->shapes[index].data();
  *out_ndim = static_cast<mx_uint>(list->shapes[index].size());
  API_END();
}

int MXNDListFree(NDListHandle handle) {
  API_BEGIN();
  delete static_cast<NDList*>(handle);
  API_END();
}
