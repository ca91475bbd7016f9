#include "io/libsvm_parser.h"
#include "io/input_files.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace fs = std::filesystem;

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view WithoutComment(std::string_view line) {
  const size_t hash = line.find('#');
  return hash == std::string_view::npos ? line : line.substr(0, hash);
}

/*! \brief Calls fn(token) for each blank-separated token. */
template <typename F>
void ForEachToken(std::string_view s, F&& fn) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsSpace(s[j])) ++j;
    if (j > i && !fn(s.substr(i, j - i))) return;
    i = j;
  }
}

template <typename T>
bool ParseNumber(std::string_view s, T* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);  // from_chars takes no '+'
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace

bool IsBlankLibSVMLine(std::string_view line) {
  const std::string_view s = WithoutComment(line);
  return std::all_of(s.begin(), s.end(), IsSpace);
}

template <typename T>
std::string ParseLibSVMLine(std::string_view line, int64_t num_cols, LibSVMRow<T>* row, bool* blank) {
  row->label = 0;
  row->indices.clear();
  row->values.clear();
  std::string err;
  bool first = true;
  ForEachToken(WithoutComment(line), [&](std::string_view tok) {
    const size_t colon = tok.find(':');
    if (first && colon == std::string_view::npos) {
      first = false;
      if (!ParseNumber(tok, &row->label)) err = "cannot read the label '" + std::string(tok) + "'";
      return err.empty();
    }
    first = false;
    if (colon == std::string_view::npos) {
      err = "malformed token '" + std::string(tok) + "': expected index:value";
      return false;
    }
    const std::string_view key = tok.substr(0, colon), val = tok.substr(colon + 1);
    if (key == "qid") return true;  // ranking data's query id: not a feature
    int64_t idx = 0;
    if (!ParseNumber(key, &idx)) {
      err = "malformed token '" + std::string(tok) + "': cannot read the column index '" + std::string(key) + "'";
      return false;
    }
    T v = 0;
    if (!ParseNumber(val, &v)) {
      err = "malformed token '" + std::string(tok) + "': cannot read the value '" + std::string(val) + "'";
      return false;
    }
    if (idx < 0) {
      err = "column index " + std::to_string(idx) + " is negative (indices are zero-based)";
    } else if (idx >= num_cols) {
      err = "column index " + std::to_string(idx) + " is out of range [0, " + std::to_string(num_cols) + ")";
    } else if (!row->indices.empty() && idx <= row->indices.back()) {
      err = idx == row->indices.back() ? "column index " + std::to_string(idx) + " appears twice"
                                       : "column indices are not sorted: " + std::to_string(idx) + " after " +
                                             std::to_string(row->indices.back());
    }
    if (!err.empty()) return false;
    row->indices.push_back(idx);
    row->values.push_back(v);
    return true;
  });
  *blank = first;
  return err;
}

template std::string ParseLibSVMLine<float>(std::string_view, int64_t, LibSVMRow<float>*, bool*);
template std::string ParseLibSVMLine<double>(std::string_view, int64_t, LibSVMRow<double>*, bool*);

// ---- LibSVMLines ------------------------------------------------------------------------

LibSVMLines::LibSVMLines(const std::string& path, const std::string& what, uint32_t num_parts, uint32_t part_index)
    : what_(what), num_parts_(num_parts), part_index_(part_index) {
  MX_CHECK_KIND(num_parts >= 1 && part_index < num_parts, "ValueError")
      << what_ << ": part_index " << part_index << " is not in [0, num_parts=" << num_parts << ")";
  files_ = ListInputFiles(path, what_);
  std::error_code ec;
  uint64_t total = 0;
  for (const auto& f : files_) {
    file_begin_.push_back(total);
    const uint64_t size = fs::file_size(f, ec);
    MX_CHECK_KIND(!ec, "IOError") << what_ << ": cannot read '" << f << "': " << ec.message();
    total += size;
  }
  file_begin_.push_back(total);  // one past the last file
  step_ = std::max<uint64_t>(1, (total + num_parts - 1) / num_parts);
  const uint64_t begin = step_ * part_index;
  if (part_index == 0) {
    start_ = Pos{0, 0};
  } else if (begin >= total) {
    start_ = Pos{files_.size(), 0};  // an empty part
  } else {
    size_t f = 0;
    while (file_begin_[f + 1] <= begin) ++f;
    SeekTo(Pos{f, begin - file_begin_[f]});
    uint64_t s;
    bool fstart;
    // Mid-file the line under `begin` belongs to the part before (it holds the byte before it).
    if (cur_.offset != 0) ReadLine(&s, &fstart);
    start_ = cur_;
  }
  Rewind();
}

void LibSVMLines::SeekTo(const Pos& p) {
  cur_ = p;
  open_file_ = static_cast<size_t>(-1);  // reopened (and sought) by the next read
}

void LibSVMLines::Rewind() {
  SeekTo(start_);
  ended_ = false;
}

void LibSVMLines::MarkStart() { start_ = cur_; }

bool LibSVMLines::ReadLine(uint64_t* global_start, bool* file_start) {
  while (cur_.file < files_.size()) {
    const uint64_t size = file_begin_[cur_.file + 1] - file_begin_[cur_.file];
    if (cur_.offset < size) {
      if (open_file_ != cur_.file) {
        in_.close();
        in_.clear();
        in_.open(files_[cur_.file], std::ios::binary);
        MX_CHECK_KIND(in_.is_open(), "IOError") << what_ << ": cannot open '" << files_[cur_.file] << "'";
        in_.seekg(static_cast<std::streamoff>(cur_.offset));
        open_file_ = cur_.file;
      }
      if (std::getline(in_, line_)) {
        *global_start = file_begin_[cur_.file] + cur_.offset;
        *file_start = cur_.offset == 0;
        last_line_ = cur_;
        cur_.offset += line_.size() + (in_.eof() ? 0 : 1);
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        return true;
      }
      MX_CHECK_KIND(!in_.bad(), "IOError") << what_ << ": read error in '" << files_[cur_.file] << "'";
    }
    ++cur_.file;
    cur_.offset = 0;
  }
  return false;
}

uint32_t LibSVMLines::OwnerOf(uint64_t global_start, bool file_start) const {
  const uint64_t byte = file_start ? global_start : global_start - 1;
  return static_cast<uint32_t>(std::min<uint64_t>(byte / step_, num_parts_ - 1));
}

bool LibSVMLines::Next(std::string_view* line) {
  if (ended_) return false;
  uint64_t s;
  bool fstart;
  if (!ReadLine(&s, &fstart) || (num_parts_ > 1 && OwnerOf(s, fstart) > part_index_)) {
    ended_ = true;
    return false;
  }
  *line = line_;
  return true;
}

bool LibSVMLines::SkipRows(uint64_t n) {
  std::string_view line;
  while (n > 0) {
    if (!Next(&line)) return false;
    if (!IsBlankLibSVMLine(line)) --n;
  }
  return true;
}

uint64_t LibSVMLines::RowsBeforePart() {
  const Pos part = start_;
  SeekTo(Pos{0, 0});
  uint64_t rows = 0, s;
  bool fstart;
  while ((cur_.file < part.file || (cur_.file == part.file && cur_.offset < part.offset)) && ReadLine(&s, &fstart))
    if (!IsBlankLibSVMLine(line_)) ++rows;
  Rewind();
  return rows;
}

std::string LibSVMLines::Where() {
  // Line numbers are counted only here: a part may start deep inside a file.
  const std::string& file = files_[std::min(last_line_.file, files_.size() - 1)];
  std::ifstream f(file, std::ios::binary);
  uint64_t line_no = 1, left = last_line_.offset;
  char buf[1 << 16];
  while (left > 0 && f) {
    f.read(buf, static_cast<std::streamsize>(std::min<uint64_t>(left, sizeof(buf))));
    const std::streamsize got = f.gcount();
    line_no += std::count(buf, buf + got, '\n');
    left -= static_cast<uint64_t>(got);
    if (got == 0) break;
  }
  return file + ":" + std::to_string(line_no);
}

}  // namespace io
}  // namespace mxnet
