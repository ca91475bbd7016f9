/*!
 * \file c_api_ndarray.cc
 * \brief MXNDArray* entry points. Handles are heap NDArray objects (views), owned by the caller.
 */
#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>

#include "c_api/api_guard.h"
#include "mxnet/c_api.h"
#include "mxnet/imperative.h"
#include "mxnet/ndarray.h"
#include "mxnet/op.h"

using mxnet::NDArray;
using mxnet::TShape;

namespace {
NDArray* ND(NDArrayHandle h) {
  MX_CHECK_KIND(h != nullptr, "ValueError") << "NDArray handle is NULL";
  return static_cast<NDArray*>(h);
}
struct ShapeTag {};
struct Shape32Tag {};
struct Shape64Tag {};
struct LoadTag {};
struct RawTag {};

thread_local int tls_np_shape = 0;
std::atomic<int> global_np_shape{0};
bool NumpyShape() { return tls_np_shape != 0 || global_np_shape.load() != 0; }

int CreateImpl(const TShape& shape, int dev_type, int dev_id, int delay_alloc, int dtype, NDArrayHandle* out) {
  MX_CHECK_KIND(mxnet::DTypeSupported(dtype), "TypeError") << "unsupported dtype flag " << dtype;
  *out = new NDArray(shape, mxnet::Context::Create(dev_type, dev_id), delay_alloc != 0, dtype);
  return 0;
}

void ReturnLoaded(std::vector<NDArray>* arrays, std::vector<std::string>* names, mx_uint* out_size,
                  NDArrayHandle** out_arr, mx_uint* out_name_size, const char*** out_names) {
  auto& handles = mxnet::capi::ThreadLocalReturn<LoadTag, std::vector<NDArrayHandle>>();
  auto& name_store = mxnet::capi::ThreadLocalReturn<LoadTag, std::vector<std::string>>();
  auto& name_ptrs = mxnet::capi::ThreadLocalReturn<LoadTag, std::vector<const char*>>();
  handles.clear();
  for (auto& a : *arrays) handles.push_back(new NDArray(a));
  name_store = std::move(*names);
  name_ptrs.clear();
  for (auto& n : name_store) name_ptrs.push_back(n.c_str());
  *out_size = static_cast<mx_uint>(handles.size());
  *out_arr = handles.data();
  *out_name_size = static_cast<mx_uint>(name_ptrs.size());
  *out_names = name_ptrs.data();
}

std::vector<NDArray> Gather(mx_uint n, NDArrayHandle* args) {
  std::vector<NDArray> v;
  for (mx_uint i = 0; i < n; ++i) v.push_back(*ND(args[i]));
  return v;
}
}  // namespace

int MXNDArrayCreateNone(NDArrayHandle* out) {
  API_BEGIN();
  *out = new NDArray();
  API_END();
}

int MXNDArrayCreate(const mx_uint* shape, mx_uint ndim, int dev_type, int dev_id, int delay_alloc,
                    NDArrayHandle* out) {
  API_BEGIN();
  CreateImpl(TShape(shape, shape + ndim), dev_type, dev_id, delay_alloc, mxnet::kFloat32, out);
  API_END();
}

int MXNDArrayCreateEx(const mx_uint* shape, mx_uint ndim, int dev_type, int dev_id, int delay_alloc, int dtype,
                      NDArrayHandle* out) {
  API_BEGIN();
  CreateImpl(TShape(shape, shape + ndim), dev_type, dev_id, delay_alloc, dtype, out);
  API_END();
}

int MXNDArrayCreateEx64(const int64_t* shape, int ndim, int dev_type, int dev_id, int delay_alloc, int dtype,
                        NDArrayHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(ndim >= 0, "ValueError") << "MXNDArrayCreateEx64: negative ndim " << ndim;
  CreateImpl(TShape(shape, shape + ndim), dev_type, dev_id, delay_alloc, dtype, out);
  API_END();
}

int MXNDArrayFree(NDArrayHandle handle) {
  API_BEGIN();
  delete static_cast<NDArray*>(handle);
  API_END();
}

int MXNDArrayGetShape(NDArrayHandle handle, mx_uint* out_dim, const mx_uint** out_pdata) {
  API_BEGIN();
  const NDArray* a = ND(handle);
  auto& buf = mxnet::capi::ThreadLocalReturn<Shape32Tag, std::vector<mx_uint>>();
  buf.clear();
  for (auto d : a->shape()) buf.push_back(static_cast<mx_uint>(d));
  *out_dim = a->is_none() ? 0 : static_cast<mx_uint>(a->shape().ndim());
  *out_pdata = buf.data();
  API_END();
}

template <typename T, typename Tag>
static void GetShapeT(NDArrayHandle handle, int* out_dim, const T** out_pdata) {
  const NDArray* a = ND(handle);
  auto& buf = mxnet::capi::ThreadLocalReturn<Tag, std::vector<T>>();
  buf.clear();
  if (a->is_none()) {
    *out_dim = NumpyShape() ? -1 : 0;
  } else {
    for (auto d : a->shape()) buf.push_back(static_cast<T>(d));
    *out_dim = a->shape().ndim();
  }
  *out_pdata = buf.data();
}

int MXNDArrayGetShapeEx(NDArrayHandle handle, int* out_dim, const int** out_pdata) {
  API_BEGIN();
  GetShapeT<int, ShapeTag>(handle, out_dim, out_pdata);
  API_END();
}

int MXNDArrayGetShapeEx64(NDArrayHandle handle, int* out_dim, const int64_t** out_pdata) {
  API_BEGIN();
  GetShapeT<int64_t, Shape64Tag>(handle, out_dim, out_pdata);
  API_END();
}

int MXNDArrayGetDType(NDArrayHandle handle, int* out_dtype) {
  API_BEGIN();
  *out_dtype = ND(handle)->is_none() ? -1 : ND(handle)->dtype();
  API_END();
}

int MXNDArrayGetContext(NDArrayHandle handle, int* out_dev_type, int* out_dev_id) {
  API_BEGIN();
  const mxnet::Context c = ND(handle)->ctx();
  *out_dev_type = ND(handle)->is_none() ? 0 : c.dev_type;
  *out_dev_id = c.dev_id;
  API_END();
}

int MXNDArrayGetStorageType(NDArrayHandle handle, int* out_storage_type) {
  API_BEGIN();
  *out_storage_type = ND(handle)->is_none() ? -1 : 0;
  API_END();
}

int MXNDArrayGetData(NDArrayHandle handle, void** out_pdata) {
  API_BEGIN();
  *out_pdata = ND(handle)->is_none() ? nullptr : ND(handle)->data().dptr_;
  API_END();
}

int MXNDArrayGetVersion(NDArrayHandle handle, uint64_t* out_version) {
  API_BEGIN();
  MX_CHECK_KIND(out_version != nullptr, "ValueError") << "MXNDArrayGetVersion: out_version is NULL.";
  // Bumped when a write is pushed: a caller that derives data from this array by pushing
  // reads after seeing version v gets exactly the writes counted in v (the engine orders its
  // reads after them), and any later write shows as a new version before it has run.
  *out_version = ND(handle)->version();
  API_END();
}

int MXNDArrayGetVersions(uint32_t num, const NDArrayHandle* handles, uint64_t* out_versions) {
  API_BEGIN();
  MX_CHECK_KIND(num == 0 || (handles != nullptr && out_versions != nullptr), "ValueError")
      << "MXNDArrayGetVersions: handles or out_versions is NULL.";
  for (uint32_t i = 0; i < num; ++i) out_versions[i] = ND(handles[i])->version();
  API_END();
}

int MXNDArraySyncCopyFromCPU(NDArrayHandle handle, const void* data, size_t size) {
  API_BEGIN();
  ND(handle)->SyncCopyFromCPU(data, size);
  API_END();
}

int MXNDArraySyncCopyToCPU(NDArrayHandle handle, void* data, size_t size) {
  API_BEGIN();
  ND(handle)->SyncCopyToCPU(data, size);
  API_END();
}

int MXNDArraySyncCopyFromNDArray(NDArrayHandle handle_dst, const NDArrayHandle handle_src, const int i) {
  API_BEGIN();
  MX_CHECK_KIND(i == -1, "ValueError") << "MXNDArraySyncCopyFromNDArray: dense arrays have no aux data " << i;
  const NDArray* src = ND(handle_src);
  NDArray* dst = ND(handle_dst);
  MX_CHECK_KIND(src->shape() == dst->shape(), "ValueError")
      << "MXNDArraySyncCopyFromNDArray: shape " << src->shape() << " differs from " << dst->shape();
  mxnet::CopyFromTo(*src, *dst);
  dst->WaitToRead();
  API_END();
}

int MXNDArrayCopyFromTo(NDArrayHandle handle_src, NDArrayHandle handle_dst) {
  API_BEGIN();
  mxnet::CopyFromTo(*ND(handle_src), *ND(handle_dst));
  API_END();
}

int MXNDArrayWaitToRead(NDArrayHandle handle) {
  API_BEGIN();
  ND(handle)->WaitToRead();
  API_END();
}

int MXNDArrayWaitToWrite(NDArrayHandle handle) {
  API_BEGIN();
  ND(handle)->WaitToWrite();
  API_END();
}

int MXNDArrayWaitAll() {
  API_BEGIN();
  mxnet::Engine::Get()->WaitForAll();
  API_END();
}

namespace {

/*!
 * \brief Views share memory, but while autograd records they must also appear on the tape
 *        (as the op that would have produced them), or gradients through them are lost.
 */
void RecordView(const char* op_name, const std::unordered_map<std::string, std::string>& params, NDArray* in,
                NDArray* out) {
  if (!mxnet::imperative::IsRecording()) return;
  const mxnet::op::Op* op = mxnet::op::Op::Get(op_name);
  mxnet::imperative::RecordOp(mxnet::op::MakeAttrs(op, params), {in}, {out});
}

std::string ShapeText(const mxnet::TShape& s) {
  std::string t = "(";
  for (int i = 0; i < s.ndim(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + (s.ndim() == 1 ? ",)" : ")");
}

}  // namespace

int MXNDArraySlice64(NDArrayHandle handle, int64_t begin, int64_t end, NDArrayHandle* out) {
  API_BEGIN();
  NDArray* view = new NDArray(ND(handle)->Slice(begin, end));
  try {
    RecordView("slice_axis", {{"axis", "0"}, {"begin", std::to_string(begin)}, {"end", std::to_string(end)}},
               ND(handle), view);
  } catch (...) {
    delete view;
    throw;
  }
  *out = view;
  API_END();
}

int MXNDArraySlice(NDArrayHandle handle, mx_uint begin, mx_uint end, NDArrayHandle* out) {
  return MXNDArraySlice64(handle, begin, end, out);
}

int MXNDArrayAt64(NDArrayHandle handle, int64_t idx, NDArrayHandle* out) {
  API_BEGIN();
  *out = new NDArray(ND(handle)->At(idx));
  API_END();
}

int MXNDArrayAt(NDArrayHandle handle, mx_uint idx, NDArrayHandle* out) { return MXNDArrayAt64(handle, idx, out); }

int MXNDArrayReshape64(NDArrayHandle handle, int ndim, dim_t* dims, bool reverse, NDArrayHandle* out) {
  API_BEGIN();
  const NDArray* a = ND(handle);
  const TShape target = mxnet::InferReshape(TShape(dims, dims + ndim), a->shape(), reverse);
  NDArray* view = new NDArray(a->Reshape(target));
  try {
    RecordView("Reshape", {{"shape", ShapeText(target)}}, ND(handle), view);
  } catch (...) {
    delete view;
    throw;
  }
  *out = view;
  API_END();
}

int MXNDArrayReshape(NDArrayHandle handle, int ndim, int* dims, NDArrayHandle* out) {
  std::vector<dim_t> d(dims, dims + ndim);
  return MXNDArrayReshape64(handle, ndim, d.data(), false, out);
}

int MXNDArrayDetach(NDArrayHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  *out = new NDArray(ND(handle)->Detach());
  API_END();
}

int MXShallowCopyNDArray(NDArrayHandle src, NDArrayHandle* out) {
  API_BEGIN();
  *out = new NDArray(*ND(src));
  API_END();
}

int MXNDArrayGetGrad(NDArrayHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  NDArray g = mxnet::imperative::GetGrad(*ND(handle));
  *out = g.is_none() ? nullptr : new NDArray(g);
  API_END();
}

int MXNDArraySetGradState(NDArrayHandle handle, int state) {
  API_BEGIN();
  mxnet::imperative::SetFreshGrad(*ND(handle), state != 0);
  API_END();
}

int MXNDArrayGetGradState(NDArrayHandle handle, int* out) {
  API_BEGIN();
  *out = mxnet::imperative::GetFreshGrad(*ND(handle)) ? 1 : 0;
  API_END();
}

int MXNDArraySave(const char* fname, mx_uint num_args, NDArrayHandle* args, const char** keys) {
  API_BEGIN();
  MX_CHECK_KIND(fname != nullptr, "ValueError") << "MXNDArraySave: file name is NULL";
  std::vector<std::string> names;
  if (keys)
    for (mx_uint i = 0; i < num_args; ++i) names.emplace_back(keys[i]);
  mxnet::NDArraySaveFile(fname, Gather(num_args, args), names);
  API_END();
}

int MXNDArrayLegacySave(const char* fname, mx_uint num_args, NDArrayHandle* args, const char** keys) {
  return MXNDArraySave(fname, num_args, args, keys);
}

int MXNDArrayLoad(const char* fname, mx_uint* out_size, NDArrayHandle** out_arr, mx_uint* out_name_size,
                  const char*** out_names) {
  API_BEGIN();
  MX_CHECK_KIND(fname != nullptr, "ValueError") << "MXNDArrayLoad: file name is NULL";
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  mxnet::NDArrayLoadFile(fname, &arrays, &names);
  ReturnLoaded(&arrays, &names, out_size, out_arr, out_name_size, out_names);
  API_END();
}

int MXNDArrayLoadFromBuffer(const void* buf, size_t size, mx_uint* out_size, NDArrayHandle** out_arr,
                            mx_uint* out_name_size, const char*** out_names) {
  API_BEGIN();
  MX_CHECK_KIND(buf != nullptr || size == 0, "ValueError") << "MXNDArrayLoadFromBuffer: buffer is NULL";
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  mxnet::NDArrayLoadList(static_cast<const char*>(buf), size, "<buffer>", &arrays, &names);
  ReturnLoaded(&arrays, &names, out_size, out_arr, out_name_size, out_names);
  API_END();
}

int MXNDArraySaveRawBytes(NDArrayHandle handle, size_t* out_size, const char** out_buf) {
  API_BEGIN();
  auto& buf = mxnet::capi::ThreadLocalReturn<RawTag, std::string>();
  buf.clear();
  mxnet::NDArraySaveRecord(&buf, *ND(handle));
  *out_size = buf.size();
  *out_buf = buf.data();
  API_END();
}

int MXNDArrayLoadFromRawBytes(const void* buf, size_t size, NDArrayHandle* out) {
  API_BEGIN();
  MX_CHECK_KIND(buf != nullptr || size == 0, "ValueError") << "MXNDArrayLoadFromRawBytes: buffer is NULL";
  *out = new NDArray(mxnet::NDArrayLoadRecord(static_cast<const char*>(buf), size, "<raw bytes>"));
  API_END();
}

int MXIsNumpyShape(int* curr) {
  API_BEGIN();
  *curr = global_np_shape.load() ? 2 : tls_np_shape;
  API_END();
}

int MXSetIsNumpyShape(int is_np_shape, int* prev) {
  API_BEGIN();
  MX_CHECK_KIND(is_np_shape >= 0 && is_np_shape <= 2, "ValueError") << "MXSetIsNumpyShape: invalid value "
                                                                    << is_np_shape;
  *prev = global_np_shape.load() ? 2 : tls_np_shape;
  global_np_shape = is_np_shape == 2 ? 1 : 0;
  tls_np_shape = is_np_shape == 1 ? 1 : 0;
  API_END();
}
