/*!
 * \file ndarray_io.cc
 * \brief MXNet's binary NDArray list format (formats.md (a)), every record layout it ever
 *        wrote. Input is never trusted: each count and size is checked against the bytes
 *        left before anything is allocated, and errors name the source and byte offset.
 */
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fstream>
#include <sstream>

#include "mxnet/ndarray.h"
#include "storage/device_allocators.h"

namespace mxnet {
namespace {

constexpr uint64_t kListMagic = 0x112;
constexpr uint32_t kV1Magic = 0xF993FAC8u, kV2Magic = 0xF993FAC9u, kV3Magic = 0xF993FACAu;
constexpr int kMaxDims = 64;  // far above any real tensor; bounds a corrupt ndim

class Reader {
 public:
  Reader(const char* data, size_t size, const std::string& source) : p_(data), size_(size), source_(source) {}
  template <typename T>
  T Read(const char* what) {
    T v;
    Need(sizeof(T), what);
    std::memcpy(&v, p_ + off_, sizeof(T));
    off_ += sizeof(T);
    return v;
  }
  const char* Take(size_t n, const char* what) {
    Need(n, what);
    const char* r = p_ + off_;
    off_ += n;
    return r;
  }
  size_t offset() const { return off_; }
  size_t left() const { return size_ - off_; }
  [[noreturn]] void Fail(const std::string& msg, size_t at) const {
    MX_THROW("MXNetError") << "Invalid NDArray file format: " << source_ << " at offset " << at << ": " << msg;
    std::abort();
  }
  void Need(size_t n, const char* what) const {
    if (n > size_ - off_) {
      std::ostringstream os;
      os << "truncated while reading " << what << " (need " << n << " bytes, " << (size_ - off_) << " left)";
      Fail(os.str(), off_);
    }
  }

 private:
  const char* p_;
  size_t size_;
  size_t off_{0};
  std::string source_;
};

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

TShape ReadShape64(Reader* r) {
  const size_t at = r->offset();
  const int32_t ndim = r->Read<int32_t>("shape ndim");
  if (ndim < -1 || ndim > kMaxDims) r->Fail("invalid ndim " + std::to_string(ndim), at);
  if (ndim < 0) return TShape();
  r->Need(static_cast<size_t>(ndim) * 8, "shape dims");
  std::vector<dim_t> dims(ndim);
  for (int i = 0; i < ndim; ++i) {
    const size_t dat = r->offset();
    dims[i] = r->Read<int64_t>("shape dim");
    if (dims[i] < 0) r->Fail("negative dimension " + std::to_string(dims[i]), dat);
  }
  return TShape(dims);
}

NDArray ReadRecord(Reader* r) {
  const size_t start = r->offset();
  const uint32_t magic = r->Read<uint32_t>("record magic");
  TShape shape;
  if (magic == kV2Magic || magic == kV3Magic) {
    const size_t sat = r->offset();
    const int32_t stype = r->Read<int32_t>("storage type");
    if (stype == 1 || stype == 2)
      r->Fail("sparse storage (row_sparse/csr) arrays are not supported by this runtime", sat);
    if (stype != 0 && stype != -1) r->Fail("invalid storage type " + std::to_string(stype), sat);
    shape = ReadShape64(r);
    // V2 marks a none array with ndim 0; V3 (NumPy semantics) with ndim -1.
    if (shape.ndim() < 0 || (magic == kV2Magic && shape.ndim() == 0)) return NDArray();
  } else if (magic == kV1Magic) {
    shape = ReadShape64(r);
    if (shape.ndim() <= 0) return NDArray();
  } else {
    // Pre-V1: the word just read is ndim, dims are uint32.
    if (magic > static_cast<uint32_t>(kMaxDims)) r->Fail("unknown record magic or ndim " + std::to_string(magic), start);
    std::vector<dim_t> dims(magic);
    r->Need(static_cast<size_t>(magic) * 4, "shape dims");
    for (uint32_t i = 0; i < magic; ++i) dims[i] = r->Read<uint32_t>("shape dim");
    if (magic == 0) return NDArray();
    shape = TShape(dims);
  }
  const size_t cat = r->offset();
  const int32_t dev_type = r->Read<int32_t>("device type");
  const int32_t dev_id = r->Read<int32_t>("device id");
  if (dev_type != 1 && dev_type != 2 && dev_type != 3 && dev_type != 5)
    r->Fail("invalid device type " + std::to_string(dev_type), cat);
  const size_t tat = r->offset();
  const int32_t dtype = r->Read<int32_t>("dtype");
  if (!DTypeSupported(dtype)) r->Fail("unsupported dtype flag " + std::to_string(dtype), tat);
  // Size check before allocating: elements * bytes must fit in what is left.
  const uint64_t elem = DTypeSize(dtype);
  uint64_t count = 1;
  for (dim_t d : shape) {
    if (d != 0 && count > r->left() / static_cast<uint64_t>(d)) r->Fail("data larger than the input", r->offset());
    count *= static_cast<uint64_t>(d);
  }
  if (count > r->left() / elem) r->Fail("data larger than the input", r->offset());
  const char* bytes = r->Take(count * elem, "array data");
  NDArray arr(shape, Context::CPU(), false, dtype);
  arr.SyncCopyFromCPU(bytes, count);
  // A GPU array goes back to its GPU where this process has that GPU (as 1.x loads it), and
  // stays on the CPU otherwise, so files saved on a GPU machine load anywhere.
  const int32_t saved_id = dev_id;
  if (dev_type == Context::kGPU && saved_id >= 0 && saved_id < storage::VisibleGpuCount()) {
    NDArray on_gpu(shape, Context::GPU(saved_id), false, dtype);
    CopyFromTo(arr, on_gpu);
    return on_gpu;
  }
  return arr;
}

void WriteRecord(std::string* out, const NDArray& arr) {
  Put<uint32_t>(out, kV2Magic);
  if (arr.is_none()) {
    Put<int32_t>(out, -1);
    Put<int32_t>(out, 0);
    return;
  }
  Put<int32_t>(out, 0);
  Put<int32_t>(out, arr.shape().ndim());
  for (dim_t d : arr.shape()) Put<int64_t>(out, d);
  const Context ctx = arr.ctx();
  Put<int32_t>(out, static_cast<int32_t>(ctx.dev_type));
  Put<int32_t>(out, ctx.dev_id);
  Put<int32_t>(out, arr.dtype());
  const size_t bytes = static_cast<size_t>(arr.Size()) * DTypeSize(arr.dtype());
  const size_t at = out->size();
  out->resize(at + bytes);
  if (bytes) arr.SyncCopyToCPU(&(*out)[at], static_cast<size_t>(arr.Size()));
}

}  // namespace

void NDArraySaveRecord(std::string* out, const NDArray& arr) { WriteRecord(out, arr); }

NDArray NDArrayLoadRecord(const char* data, size_t size, const std::string& source) {
  Reader r(data, size, source);
  return ReadRecord(&r);
}

void NDArraySaveList(std::string* out, const std::vector<NDArray>& arrays, const std::vector<std::string>& names) {
  MX_CHECK_KIND(names.empty() || names.size() == arrays.size(), "ValueError")
      << "save: " << names.size() << " names for " << arrays.size() << " arrays";
  Put<uint64_t>(out, kListMagic);
  Put<uint64_t>(out, 0);
  Put<uint64_t>(out, arrays.size());
  for (const auto& a : arrays) WriteRecord(out, a);
  Put<uint64_t>(out, names.size());
  for (const auto& n : names) {
    Put<uint64_t>(out, n.size());
    out->append(n);
  }
}

void NDArrayLoadList(const char* data, size_t size, const std::string& source, std::vector<NDArray>* arrays,
                     std::vector<std::string>* names) {
  Reader r(data, size, source);
  const uint64_t header = r.Read<uint64_t>("header");
  if (header != kListMagic) r.Fail("bad header (not an NDArray list file)", 0);
  r.Read<uint64_t>("reserved");
  const size_t cat = r.offset();
  const uint64_t count = r.Read<uint64_t>("array count");
  // Each record takes at least 8 bytes: a count beyond that is corrupt, not a reason to allocate.
  if (count > r.left() / 8) r.Fail("array count " + std::to_string(count) + " exceeds the input", cat);
  arrays->clear();
  names->clear();
  for (uint64_t i = 0; i < count; ++i) arrays->push_back(ReadRecord(&r));
  const size_t nat = r.offset();
  const uint64_t nnames = r.Read<uint64_t>("name count");
  if (nnames != 0 && nnames != count)
    r.Fail("name count " + std::to_string(nnames) + " differs from array count " + std::to_string(count), nat);
  for (uint64_t i = 0; i < nnames; ++i) {
    const size_t lat = r.offset();
    const uint64_t len = r.Read<uint64_t>("name length");
    if (len > r.left()) r.Fail("name length " + std::to_string(len) + " exceeds the input", lat);
    const char* s = r.Take(len, "name");
    names->emplace_back(s, len);
  }
}

void NDArraySaveFile(const std::string& fname, const std::vector<NDArray>& arrays,
                     const std::vector<std::string>& names) {
  std::string buf;
  NDArraySaveList(&buf, arrays, names);
  // Replace the real file behind a symlink, not the link itself.
  std::string target = fname;
  struct stat st {};
  if (::lstat(fname.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(fname.c_str(), resolved) != nullptr) target = resolved;
  }
  // A device or pipe (/dev/null, a FIFO) is written in place: renaming a temporary file
  // over it would replace the device node with a regular file.
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    std::ofstream os(target, std::ios::binary);
    MX_CHECK_KIND(os.good(), "OSError") << "cannot open " << fname << " for writing";
    os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    os.flush();
    MX_CHECK_KIND(os.good(), "OSError") << "write failed while saving " << fname;
    return;
  }
  // Regular files: write a temporary beside the target and rename it into place, so an
  // interrupted save never destroys the old file.
  const std::string tmp = target + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    MX_CHECK_KIND(os.good(), "OSError") << "cannot open " << tmp << " for writing (saving " << fname << ")";
    os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    os.flush();
    if (!os.good()) {
      os.close();
      std::remove(tmp.c_str());
      MX_THROW("OSError") << "write failed while saving " << fname;
    }
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    std::remove(tmp.c_str());
    MX_THROW("OSError") << "cannot rename " << tmp << " to " << fname << ": " << std::strerror(errno);
  }
}

void NDArrayLoadFile(const std::string& fname, std::vector<NDArray>* arrays, std::vector<std::string>* names) {
  std::ifstream is(fname, std::ios::binary);
  MX_CHECK_KIND(is.good(), "OSError") << "cannot open " << fname << " for reading";
  std::string buf((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  NDArrayLoadList(buf.data(), buf.size(), fname, arrays, names);
}

}  // namespace mxnet
