/*!
 * \file error.h
 * \brief The error model: every failure is an mxnet::Error carrying a Python-style
 *        type name; the C API boundary turns it into -1 and a thread-local message.
 */
#ifndef MXNET_ERROR_H_
#define MXNET_ERROR_H_

#include <sstream>
#include <stdexcept>
#include <string>

namespace mxnet {

/*! \brief An error a user can act on. `kind` becomes the Python exception class. */
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg, const char* kind = "MXNetError")
      : std::runtime_error(msg), kind_(kind) {}
  const char* kind() const noexcept { return kind_; }

 private:
  const char* kind_;
};

namespace detail {
/*! \brief Collects a message with operator<< and throws it when destroyed. */
class ErrorThrower {
 public:
  ErrorThrower(const char* kind, const char* file, int line) : kind_(kind), file_(file), line_(line) {}
  template <typename T>
  ErrorThrower& operator<<(const T& v) {
    stream_ << v;
    return *this;
  }
  ~ErrorThrower() noexcept(false);

 private:
  const char* kind_;
  const char* file_;
  int line_;
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace mxnet

/*! \brief Throw an error of a given Python kind: MX_THROW("ValueError") << "bad " << x; */
#define MX_THROW(kind) ::mxnet::detail::ErrorThrower(kind, __FILE__, __LINE__)
/*! \brief Check a condition that user input can violate; message follows with <<. */
#define MX_CHECK(cond) \
  if (cond) {              \
  } else                   \
    MX_THROW("MXNetError") << "Check failed: " #cond ": "
#define MX_CHECK_KIND(cond, kind) \
  if (cond) {                     \
  } else                          \
    MX_THROW(kind)

#endif  // MXNET_ERROR_H_
