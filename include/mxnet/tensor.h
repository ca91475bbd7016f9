/*!
 * \file tensor.h
 * \brief Plain tensor vocabulary shared by NDArray, operators and the graph: dtype flags
 *        (MXNet's mshadow TypeFlag values), half/bfloat16 storage types, TShape and TBlob.
 */
#ifndef MXNET_TENSOR_H_
#define MXNET_TENSOR_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/error.h"
#include "mxnet/xinline.h"

namespace mxnet {

/*! \brief dtype codes; values are MXNet's TypeFlag (saved in .params files, passed by the C API). */
enum TypeFlag : int {
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBool = 7,
  kInt16 = 8,
  kUint16 = 9,
  kUint32 = 10,
  kUint64 = 11,
  kBfloat16 = 12,
  kUnknownType = -1
};

/*! \brief IEEE binary16 storage; arithmetic goes through float. */
struct half_t {
  uint16_t bits{0};
  half_t() = default;
  MXNET_XINLINE half_t(float f) : bits(FromFloat(f)) {}  // NOLINT(runtime/explicit): behaves like a number
  MXNET_XINLINE operator float() const { return ToFloat(bits); }

  MXNET_XINLINE static uint16_t FromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);  // inf/nan
    if (absx >= 0x477ff000u) return sign | 0x7c00u;                                       // overflow
    if (absx < 0x38800000u) {  // subnormal half (or zero): round to nearest even in fixed point
      if (absx < 0x33000000u) return sign;
      const uint32_t e = absx >> 23;
      const uint32_t m = (absx & 0x7fffffu) | 0x800000u;
      const uint32_t shift = 126 - e;  // half subnormal = m * 2^-24 = m >> (126 - e)
      const uint32_t rem = m & ((1u << shift) - 1);
      const uint32_t half = 1u << (shift - 1);
      uint32_t res = m >> shift;
      if (rem > half || (rem == half && (res & 1u))) ++res;
      return static_cast<uint16_t>(sign | res);
    }
    uint32_t res = ((absx - 0x38000000u) >> 13);
    const uint32_t rem = absx & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (res & 1u))) ++res;
    return static_cast<uint16_t>(sign | res);
  }
  MXNET_XINLINE static float ToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    uint32_t x;
    if (e == 0x1f) {
      x = sign | 0x7f800000u | (m << 13);
    } else if (e == 0) {
      if (m == 0) {
        x = sign;
      } else {  // normalise the subnormal
        e = 113;
        while (!(m & 0x400u)) {
          m <<= 1;
          --e;
        }
        x = sign | (e << 23) | ((m & 0x3ffu) << 13);
      }
    } else {
      x = sign | ((e + 112) << 23) | (m << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};

/*! \brief bfloat16 storage (upper half of a float32, round to nearest even). */
struct bf16_t {
  uint16_t bits{0};
  bf16_t() = default;
  MXNET_XINLINE bf16_t(float f) : bits(FromFloat(f)) {}  // NOLINT(runtime/explicit)
  MXNET_XINLINE operator float() const { return ToFloat(bits); }
  MXNET_XINLINE static uint16_t FromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
  }
  MXNET_XINLINE static float ToFloat(uint16_t b) {
    const uint32_t x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};

/*! \brief Bytes per element of a dtype flag; throws on an unknown flag. */
size_t DTypeSize(int dtype);
/*! \brief "float32", "bfloat16", ... as numpy/MXNet print them; throws on an unknown flag. */
const char* DTypeName(int dtype);
/*! \brief Inverse of DTypeName; returns kUnknownType for an unknown name. */
int DTypeFromName(const std::string& name);
/*! \brief Whether this build has kernels-level support for the flag (the 9 types of issue 5). */
bool DTypeSupported(int dtype);

template <typename T>
struct DTypeOf;
#define MXNET_DTYPE_OF_(T, flag) \
  template <>                    \
  struct DTypeOf<T> {            \
    static constexpr int value = flag; \
  }
MXNET_DTYPE_OF_(float, kFloat32);
MXNET_DTYPE_OF_(double, kFloat64);
MXNET_DTYPE_OF_(half_t, kFloat16);
MXNET_DTYPE_OF_(uint8_t, kUint8);
MXNET_DTYPE_OF_(int32_t, kInt32);
MXNET_DTYPE_OF_(int8_t, kInt8);
MXNET_DTYPE_OF_(int64_t, kInt64);
MXNET_DTYPE_OF_(bool, kBool);
MXNET_DTYPE_OF_(bf16_t, kBfloat16);
#undef MXNET_DTYPE_OF_

}  // namespace mxnet

/*!
 * \brief Runs `...` with DType bound to the C++ type of `type` (one of the 9 supported flags);
 *        throws naming the dtype otherwise.  MXNET_TYPE_SWITCH(t, DType, { f<DType>(); });
 */
#define MXNET_TYPE_SWITCH(type, DType, ...)                                                  \
  switch (type) {                                                                           \
    case ::mxnet::kFloat32: { using DType = float; {__VA_ARGS__} } break;                   \
    case ::mxnet::kFloat64: { using DType = double; {__VA_ARGS__} } break;                  \
    case ::mxnet::kFloat16: { using DType = ::mxnet::half_t; {__VA_ARGS__} } break;         \
    case ::mxnet::kBfloat16: { using DType = ::mxnet::bf16_t; {__VA_ARGS__} } break;        \
    case ::mxnet::kUint8: { using DType = uint8_t; {__VA_ARGS__} } break;                   \
    case ::mxnet::kInt8: { using DType = int8_t; {__VA_ARGS__} } break;                     \
    case ::mxnet::kInt32: { using DType = int32_t; {__VA_ARGS__} } break;                   \
    case ::mxnet::kInt64: { using DType = int64_t; {__VA_ARGS__} } break;                   \
    case ::mxnet::kBool: { using DType = bool; {__VA_ARGS__} } break;                       \
    default: MX_THROW("TypeError") << "unsupported dtype flag " << static_cast<int>(type); \
  }

/*! \brief As MXNET_TYPE_SWITCH over float32/float64/float16/bfloat16 only. */
#define MXNET_REAL_TYPE_SWITCH(type, DType, ...)                                               \
  switch (type) {                                                                             \
    case ::mxnet::kFloat32: { using DType = float; {__VA_ARGS__} } break;                     \
    case ::mxnet::kFloat64: { using DType = double; {__VA_ARGS__} } break;                    \
    case ::mxnet::kFloat16: { using DType = ::mxnet::half_t; {__VA_ARGS__} } break;           \
    case ::mxnet::kBfloat16: { using DType = ::mxnet::bf16_t; {__VA_ARGS__} } break;          \
    default: MX_THROW("TypeError") << "expected a floating-point dtype, got "                 \
                                   << ::mxnet::DTypeName(static_cast<int>(type));              \
  }

namespace mxnet {

/*!
 * \brief A shape. ndim -1 = unknown (NumPy-shape semantics); a dim of -1 = unknown dim.
 *        ndim 0 is a scalar shape () in NumPy mode and "unknown" in legacy mode; callers
 *        that care decide with IsKnown(). Dims are int64.
 */
class TShape {
 public:
  /*! \brief Dims kept inside the object; longer shapes use the heap. An op call copies
   *         shapes a dozen times, and one heap block per copy was a large part of its cost. */
  static constexpr int kInlineDims = 6;

  TShape() = default;  // unknown
  explicit TShape(int ndim, dim_t fill = -1) {
    Resize(ndim);
    for (int i = 0; i < ndim; ++i) Data()[i] = fill;
  }
  TShape(std::initializer_list<dim_t> dims) : TShape(dims.begin(), dims.end()) {}
  template <typename It>
  TShape(It begin, It end) {
    ndim_ = 0;
    for (; begin != end; ++begin) PushBack(static_cast<dim_t>(*begin));
  }
  explicit TShape(const std::vector<dim_t>& dims) : TShape(dims.begin(), dims.end()) {}

  int ndim() const { return ndim_; }
  dim_t operator[](int i) const { return Data()[i]; }
  dim_t& operator[](int i) { return Data()[i]; }
  const dim_t* data() const { return Data(); }
  /*! \brief The dims as a vector (a copy). */
  std::vector<dim_t> dims() const { return std::vector<dim_t>(begin(), end()); }
  const dim_t* begin() const { return Data(); }
  const dim_t* end() const { return Data() + (ndim_ > 0 ? ndim_ : 0); }

  /*! \brief ndim known and every dim known. */
  bool IsKnown() const {
    if (ndim_ < 0) return false;
    for (dim_t d : *this)
      if (d < 0) return false;
    return true;
  }
  /*! \brief Legacy-mode "unknown": ndim <= 0 or an unknown dim. */
  bool IsNone() const { return ndim_ <= 0; }
  /*! \brief Number of elements (1 for a scalar shape); unknown dims count as 0. */
  int64_t Size() const {
    int64_t n = 1;
    for (dim_t d : *this) n *= d < 0 ? 0 : d;
    return n;
  }
  /*! \brief Product of dims [begin, end). */
  int64_t ProdShape(int begin, int end) const {
    int64_t n = 1;
    for (int i = begin; i < end; ++i) n *= Data()[i];
    return n;
  }
  bool operator==(const TShape& o) const {
    if (ndim_ != o.ndim_) return false;
    for (int i = 0; i < ndim_; ++i)
      if (Data()[i] != o.Data()[i]) return false;
    return true;
  }
  bool operator!=(const TShape& o) const { return !(*this == o); }
  /*! \brief "(2, 3)", "(5,)", "()", "None" for unknown ndim; as Python prints tuples. */
  std::string ToString() const;
  /*! \brief Parses "(2, 3)", "[2,3]", "2", "()" ("None" -> unknown); throws ValueError. */
  static TShape Parse(const std::string& text);

 private:
  const dim_t* Data() const { return ndim_ > kInlineDims ? heap_.data() : inline_; }
  dim_t* Data() { return ndim_ > kInlineDims ? heap_.data() : inline_; }
  /*! \brief Sets ndim (contents unspecified). */
  void Resize(int ndim) {
    ndim_ = ndim;
    if (ndim > kInlineDims) heap_.resize(ndim);
  }
  void PushBack(dim_t d) {
    if (ndim_ < kInlineDims) {
      inline_[ndim_++] = d;
      return;
    }
    if (ndim_ == kInlineDims) heap_.assign(inline_, inline_ + kInlineDims);
    heap_.push_back(d);
    ++ndim_;
  }

  int ndim_{-1};
  dim_t inline_[kInlineDims] = {};
  std::vector<dim_t> heap_;  // used only above kInlineDims dims
};

inline std::ostream& operator<<(std::ostream& os, const TShape& s) { return os << s.ToString(); }

/*! \brief A view of memory as a typed tensor: what kernels receive. Does not own memory. */
struct TBlob {
  void* dptr_{nullptr};
  TShape shape_;
  int type_flag_{kFloat32};
  Context ctx_;

  TBlob() = default;
  TBlob(void* dptr, const TShape& shape, int dtype, Context ctx)
      : dptr_(dptr), shape_(shape), type_flag_(dtype), ctx_(ctx) {}

  template <typename DType>
  DType* dptr() const {
    MX_CHECK_KIND(DTypeOf<DType>::value == type_flag_, "TypeError")
        << "TBlob holds " << DTypeName(type_flag_) << ", accessed as " << DTypeName(DTypeOf<DType>::value);
    return static_cast<DType*>(dptr_);
  }
  int64_t Size() const { return shape_.Size(); }
  int ndim() const { return shape_.ndim(); }
  size_t Bytes() const { return static_cast<size_t>(Size()) * DTypeSize(type_flag_); }
};

}  // namespace mxnet

#endif  // MXNET_TENSOR_H_
