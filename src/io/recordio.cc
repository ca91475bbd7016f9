// RecordIO writer, validating reader and framing scans (format in recordio.h).
#include "io/recordio.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <sstream>

#include "mxnet/error.h"

namespace mxnet {
namespace io {
namespace {

constexpr uint32_t kLengthMask = (1U << 29) - 1;
constexpr uint32_t kWhole = 0, kFirst = 1, kMiddle = 2, kLast = 3;

// The format is little-endian whatever the host is.
uint32_t LoadLE(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
void StoreLE(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
size_t PaddedLength(size_t len) { return (len + 3) & ~size_t(3); }

std::string Hex(uint32_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

bool SeekTo(std::FILE* fp, size_t offset) { return fseeko(fp, static_cast<off_t>(offset), SEEK_SET) == 0; }

// First aligned offset in [from, end) holding the header of a record's first part (cflag 0
// or 1); file_size when there is none. Payload words equal to the magic are never stored
// at aligned offsets, so this cannot land inside a record of a well-formed file.
size_t FindRecordStart(const std::string& path, size_t file_size, size_t from, size_t end) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  MX_CHECK_KIND(fp != nullptr, "IOError") << "Cannot open RecordIO file '" << path << "': " << std::strerror(errno);
  std::vector<uint8_t> buf(size_t(1) << 16);
  size_t found = file_size;
  size_t p = PaddedLength(from);
  while (p < end && p < file_size && found == file_size) {
    size_t n = 0;
    if (SeekTo(fp, p)) n = std::fread(buf.data(), 1, std::min(buf.size(), file_size - p), fp);
    if (n < 4) break;
    size_t next = p + (n & ~size_t(3));
    for (size_t i = 0; i + 4 <= n && p + i < end; i += 4) {
      if (LoadLE(&buf[i]) != kRecordIOMagic) continue;
      if (i + 8 > n) {
        // The flag word is in the next chunk, or the header is cut off by the end of file
        // (then the reader reports it).
        if (p + i + 8 > file_size || i == 0) found = p + i;
        next = p + i;
        break;
      }
      if ((LoadLE(&buf[i + 4]) >> 29) <= kFirst) {
        found = p + i;
        break;
      }
    }
    p = next;
  }
  std::fclose(fp);
  return found;
}

}  // namespace

// ---- writer ----

RecordIOWriter::RecordIOWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  MX_CHECK_KIND(fd_ >= 0, "IOError") << "Cannot open RecordIO file '" << path
                                     << "' for writing: " << std::strerror(errno);
  buffer_.resize(kBufferSize);
}

RecordIOWriter::~RecordIOWriter() {
  if (fd_ < 0) return;
  try {
    Close();
  } catch (const Error&) {  // a destructor cannot report it; Close() can
  }
}

void RecordIOWriter::WriteAll(const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    MX_CHECK_KIND(n > 0, "IOError") << "Writing RecordIO file '" << path_ << "' failed: " << std::strerror(errno);
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void RecordIOWriter::Flush() {
  const size_t pending = used_;
  used_ = 0;  // dropped even when the write fails, so no byte is ever written twice
  WriteAll(buffer_.data(), pending);
}

void RecordIOWriter::Put(const void* data, size_t size) {
  if (size == 0) return;
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  if (used_ + size > buffer_.size()) Flush();
  if (size >= buffer_.size()) {
    WriteAll(bytes, size);  // large payloads skip the copy
  } else {
    std::memcpy(buffer_.data() + used_, bytes, size);
    used_ += size;
  }
  pos_ += size;
}

void RecordIOWriter::Write(const void* data, size_t size) {
  MX_CHECK_KIND(fd_ >= 0, "MXNetError") << "RecordIO file '" << path_ << "' is closed";
  MX_CHECK_KIND(size < kRecordIOMaxRecord, "ValueError")
      << "RecordIO records must be smaller than 2^29 bytes; got " << size << " bytes for '" << path_ << "'";
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  auto put_header = [this](uint32_t cflag, size_t len) {
    uint8_t head[8];
    StoreLE(head, kRecordIOMagic);
    StoreLE(head + 4, cflag << 29 | static_cast<uint32_t>(len));
    Put(head, sizeof(head));
  };
  // Every aligned magic word ends a part and is dropped; the reader puts it back.
  size_t part_begin = 0;
  bool split = false;
  for (size_t i = 0; i + 4 <= size; i += 4) {
    if (LoadLE(bytes + i) != kRecordIOMagic) continue;
    put_header(split ? kMiddle : kFirst, i - part_begin);
    Put(bytes + part_begin, i - part_begin);
    part_begin = i + 4;
    split = true;
  }
  put_header(split ? kLast : kWhole, size - part_begin);
  Put(bytes + part_begin, size - part_begin);
  static const uint8_t kZeros[4] = {0, 0, 0, 0};
  Put(kZeros, PaddedLength(size) - size);
}

void RecordIOWriter::Close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  std::string error;
  try {
    Flush();
  } catch (const Error& e) {
    error = e.what();
  }
  fd_ = -1;
  if (::close(fd) != 0 && error.empty()) error = std::string("closing failed: ") + std::strerror(errno);
  MX_CHECK_KIND(error.empty(), "IOError") << "Closing RecordIO file '" << path_ << "': " << error;
}

// ---- reader ----

RecordIOReader::RecordIOReader(const std::string& path) : path_(path) {
  fp_ = std::fopen(path.c_str(), "rb");
  MX_CHECK_KIND(fp_ != nullptr, "IOError")
      << "Cannot open RecordIO file '" << path << "' for reading: " << std::strerror(errno);
  struct stat st;
  if (fstat(fileno(fp_), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(fp_);
    fp_ = nullptr;
    MX_THROW("IOError") << "RecordIO file '" << path << "' is not a regular file";
  }
  size_ = static_cast<size_t>(st.st_size);
  std::setvbuf(fp_, nullptr, _IOFBF, size_t(1) << 16);
}

RecordIOReader::~RecordIOReader() {
  if (fp_ != nullptr) std::fclose(fp_);
}

void RecordIOReader::Fail(size_t record_start, const std::string& what) const {
  std::ostringstream os;
  os << "Corrupt RecordIO file '" << path_ << "': record ";
  if (record_no_ >= 0) os << record_no_ << " ";
  os << "at byte offset " << record_start << ": " << what;
  throw Error(os.str());
}

void RecordIOReader::ReadExact(void* dst, size_t size, size_t record_start) {
  if (size == 0) return;
  size_t n = std::fread(dst, 1, size, fp_);
  pos_ += n;
  if (n != size) {
    Fail(record_start, std::ferror(fp_) ? std::string("read error: ") + std::strerror(errno)
                                        : std::string("the file became shorter while reading"));
  }
}

void RecordIOReader::SkipExact(size_t size, size_t record_start) {
  if (size <= 4) {
    uint8_t scratch[4];
    ReadExact(scratch, size, record_start);
    return;
  }
  if (!SeekTo(fp_, pos_ + size)) Fail(record_start, std::string("seek failed: ") + std::strerror(errno));
  pos_ += size;
}

bool RecordIOReader::ReadRecord(std::string* record) {
  if (stream_stale_) {
    MX_CHECK_KIND(SeekTo(fp_, pos_), "IOError") << "Seeking RecordIO file '" << path_ << "' failed";
    stream_stale_ = false;
  }
  if (pos_ >= size_) return false;
  const size_t start = pos_;
  if (record != nullptr) record->clear();
  try {
    for (int part = 0;; ++part) {
      const size_t at = pos_;
      const size_t remain = size_ - at;
      if (remain == 0) Fail(start, "the file ends inside a split record (its last part is missing)");
      if (remain < 8) {
        Fail(start,
             "truncated header at byte offset " + std::to_string(at) + " (" + std::to_string(remain) + " of 8 bytes)");
      }
      uint8_t head[8];
      ReadExact(head, sizeof(head), start);
      const uint32_t magic = LoadLE(head), lrec = LoadLE(head + 4);
      if (magic != kRecordIOMagic) {
        Fail(start, "bad magic " + Hex(magic) + " at byte offset " + std::to_string(at) + " (expected " +
                        Hex(kRecordIOMagic) + "): not a RecordIO file, or a corrupt or misaligned one");
      }
      const uint32_t cflag = lrec >> 29;
      const size_t len = lrec & kLengthMask;
      const bool ok_flag = part == 0 ? (cflag == kWhole || cflag == kFirst) : (cflag == kMiddle || cflag == kLast);
      if (!ok_flag) {
        Fail(start,
             "part " + std::to_string(part) + " at byte offset " + std::to_string(at) + " has flag " +
                 std::to_string(cflag) +
                 (part == 0 ? " (a record starts with flag 0 or 1)" : " (a split record continues with flag 2 or 3)"));
      }
      if (PaddedLength(len) > remain - 8) {
        Fail(start, "length " + std::to_string(len) + " at byte offset " + std::to_string(at) +
                        " runs past the end of the file (" + std::to_string(remain - 8) + " bytes remain)");
      }
      const bool last = cflag == kWhole || cflag == kLast;
      if (!last && len % 4 != 0) {
        Fail(start, "part " + std::to_string(part) + " of a split record has length " + std::to_string(len) +
                        ", not a multiple of 4");
      }
      if (record != nullptr) {
        const size_t old = record->size();
        record->resize(old + len);
        ReadExact(&(*record)[old], len, start);
        SkipExact(PaddedLength(len) - len, start);
      } else {
        SkipExact(PaddedLength(len), start);
      }
      if (last) break;
      if (record != nullptr) {
        uint8_t magic_bytes[4];
        StoreLE(magic_bytes, kRecordIOMagic);
        record->append(reinterpret_cast<const char*>(magic_bytes), 4);
      }
    }
  } catch (...) {
    // Stay at the bad record: reading again reports it again rather than resyncing on garbage.
    pos_ = start;
    stream_stale_ = true;
    throw;
  }
  if (record_no_ >= 0) ++record_no_;
  return true;
}

bool RecordIOReader::Next(std::string* record) {
  MX_CHECK_KIND(record != nullptr, "MXNetError") << "RecordIOReader::Next needs an output string";
  return ReadRecord(record);
}

bool RecordIOReader::Skip() { return ReadRecord(nullptr); }

void RecordIOReader::Seek(size_t offset) {
  if (offset > size_) {
    struct stat st;  // the file may have grown since it was opened
    if (fstat(fileno(fp_), &st) == 0) size_ = static_cast<size_t>(st.st_size);
  }
  MX_CHECK_KIND(offset <= size_, "MXNetError") << "Cannot seek RecordIO file '" << path_ << "' to byte offset "
                                               << offset << ": past the end of the file (" << size_ << " bytes)";
  MX_CHECK_KIND(offset % 4 == 0, "MXNetError")
      << "Cannot seek RecordIO file '" << path_ << "' to byte offset " << offset << ": records start at multiples of 4";
  MX_CHECK_KIND(SeekTo(fp_, offset), "IOError") << "Seeking RecordIO file '" << path_ << "' failed";
  pos_ = offset;
  stream_stale_ = false;
  record_no_ = offset == 0 ? 0 : -1;
}

// ---- scans ----

std::vector<size_t> ScanRecordOffsets(const std::string& path) {
  return ScanRecordOffsets(path, 0, std::numeric_limits<size_t>::max());
}

std::vector<size_t> ScanRecordOffsets(const std::string& path, size_t begin, size_t end) {
  RecordIOReader reader(path);
  end = std::min(end, reader.FileSize());
  std::vector<size_t> offsets;
  if (begin >= end) return offsets;
  // From the start of the file nothing is skipped, so a bad first record is reported.
  size_t start = begin == 0 ? 0 : FindRecordStart(path, reader.FileSize(), begin, end);
  if (start >= end) return offsets;
  reader.Seek(start);
  while (reader.Tell() < end) {
    const size_t offset = reader.Tell();
    if (!reader.Skip()) break;
    offsets.push_back(offset);
  }
  return offsets;
}

}  // namespace io
}  // namespace mxnet
