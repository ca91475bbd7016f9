#include "io/csv_reader.h"
#include "io/input_files.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "mxnet/error.h"
#include "mxnet/tensor.h"

namespace mxnet {
namespace io {


namespace {
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool ParseValue(const char* b, const char* e, float* out) {
  if (b != e && *b == '+') ++b;  // from_chars takes no '+'
  auto r = std::from_chars(b, e, *out);
  return r.ec == std::errc() && r.ptr == e;
}

template <typename I>
bool ParseValue(const char* b, const char* e, I* out) {
  if (b != e && *b == '+') ++b;
  int64_t v = 0;
  auto r = std::from_chars(b, e, v);
  if (r.ec != std::errc() || r.ptr != e) {
    // Integral values written as floats ("3.0", "1e3") are accepted; fractions are not.
    double d = 0;
    auto rd = std::from_chars(b, e, d);
    if (rd.ec != std::errc() || rd.ptr != e || std::trunc(d) != d || std::fabs(d) > 9.2e18) return false;
    v = static_cast<int64_t>(d);
  }
  if (v < std::numeric_limits<I>::min() || v > std::numeric_limits<I>::max()) return false;
  *out = static_cast<I>(v);
  return true;
}
}  // namespace

CSVReader::CSVReader(const std::string& path, const std::string& what) : what_(what) {
  files_ = ListInputFiles(path, what_);
  Rewind();
}

void CSVReader::Rewind() {
  file_pos_ = 0;
  line_no_ = 0;
  in_.close();
  in_.clear();
  in_.open(files_[0]);
  MX_CHECK_KIND(in_.is_open(), "IOError") << what_ << ": cannot open '" << files_[0] << "'";
}

bool CSVReader::NextLine() {
  while (true) {
    if (std::getline(in_, line_)) {
      ++line_no_;
      if (!std::all_of(line_.begin(), line_.end(), IsBlank)) return true;
      continue;  // blank lines carry no row
    }
    MX_CHECK_KIND(!in_.bad(), "IOError") << what_ << ": read error in '" << files_[file_pos_] << "'";
    if (file_pos_ + 1 >= files_.size()) return false;
    ++file_pos_;
    line_no_ = 0;
    in_.close();
    in_.clear();
    in_.open(files_[file_pos_]);
    MX_CHECK_KIND(in_.is_open(), "IOError") << what_ << ": cannot open '" << files_[file_pos_] << "'";
  }
}

std::string CSVReader::Where() const { return files_[file_pos_] + ":" + std::to_string(line_no_); }

template <typename T>
void CSVReader::ParseFields(size_t n, T* out) const {
  const char* p = line_.data();
  const char* end = p + line_.size();
  size_t count = 0;
  while (true) {
    const char* comma = std::find(p, end, ',');
    const char* b = p;
    const char* e = comma;
    while (b < e && IsBlank(*b)) ++b;
    while (e > b && IsBlank(e[-1])) --e;
    if (count < n) {
      MX_CHECK_KIND(ParseValue(b, e, out + count), "ValueError")
          << what_ << " " << Where() << ", field " << count + 1 << ": cannot read '" << std::string(b, e) << "' as "
          << DTypeName(DTypeOf<T>::value);
    }
    ++count;
    if (comma == end) break;
    p = comma + 1;
  }
  MX_CHECK_KIND(count == n, "ValueError")
      << what_ << " " << Where() << " has " << count << " values, the shape needs " << n;
}

bool CSVReader::NextRow(int dtype, size_t n, void* out) {
  if (!NextLine()) return false;
  switch (dtype) {
    case kFloat32:
      ParseFields(n, static_cast<float*>(out));
      break;
    case kInt32:
      ParseFields(n, static_cast<int32_t*>(out));
      break;
    case kInt64:
      ParseFields(n, static_cast<int64_t*>(out));
      break;
    default:
      MX_THROW("TypeError") << what_ << ": CSV values cannot be read as " << DTypeName(dtype);
  }
  return true;
}

}  // namespace io
}  // namespace mxnet
