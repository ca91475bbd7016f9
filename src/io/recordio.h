/*!
 * \file recordio.h
 * \brief RecordIO files (`.rec`): the dmlc framing that MXNet 1.x writes, read back with
 *        every size checked against the file before anything is allocated.
 *
 * A record is one or more parts, each `magic, lrec = cflag << 29 | length, data, padding
 * to 4 bytes`. Words of the payload equal to the magic at 4-byte aligned offsets are cut
 * out by the writer (the record is split there: cflag 1 first, 2 middle, 3 last) and put
 * back by the reader, so an aligned magic in a file always starts a part.
 */
#ifndef MXNET_IO_RECORDIO_H_
#define MXNET_IO_RECORDIO_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mxnet {
namespace io {

/*! \brief The word that starts every part (stored little-endian). */
constexpr uint32_t kRecordIOMagic = 0xCED7230A;
/*! \brief Records must be shorter than this (the length field has 29 bits). */
constexpr size_t kRecordIOMaxRecord = size_t(1) << 29;

/*! \brief Writes records to a new file; not thread-safe. */
class RecordIOWriter {
 public:
  /*! \brief Creates (truncates) the file; an IOError names it when that fails. */
  explicit RecordIOWriter(const std::string& path);
  ~RecordIOWriter();
  RecordIOWriter(const RecordIOWriter&) = delete;
  RecordIOWriter& operator=(const RecordIOWriter&) = delete;

  /*! \brief Appends one record (size < 2^29). */
  void Write(const void* data, size_t size);
  /*! \brief Byte offset the next record will start at (what an .idx file stores). */
  size_t Tell() const { return pos_; }
  /*! \brief Flushes and closes; reports write errors (a full disk). Idempotent; the
   *         destructor closes too, but cannot report. */
  void Close();
  const std::string& path() const { return path_; }

 private:
  void Put(const void* data, size_t size);
  void Flush();
  void WriteAll(const uint8_t* data, size_t size);

  // Its own buffer over a plain descriptor, not stdio: a forked child that exits normally
  // must not flush a copy of the parent's pending bytes into the file.
  static constexpr size_t kBufferSize = size_t(1) << 16;
  std::string path_;
  int fd_ = -1;
  std::vector<uint8_t> buffer_;
  size_t used_ = 0;  // bytes of buffer_ not yet written
  size_t pos_ = 0;
};

/*! \brief Reads records in order from any record start; not thread-safe. */
class RecordIOReader {
 public:
  /*! \brief Opens the file; an IOError names it when that fails. */
  explicit RecordIOReader(const std::string& path);
  ~RecordIOReader();
  RecordIOReader(const RecordIOReader&) = delete;
  RecordIOReader& operator=(const RecordIOReader&) = delete;

  /*!
   * \brief Reads the next record into *record. Returns false at the clean end of the file;
   *        a corrupt or truncated record throws an mxnet::Error naming the file, the record
   *        and its byte offset, and leaves the reader at that record's start.
   */
  bool Next(std::string* record);
  /*! \brief Like Next, but only checks the framing and moves past the record. */
  bool Skip();
  /*! \brief Moves to a record start (as found by Tell or an .idx file); must be a multiple
   *        of 4 and not past the end of the file. */
  void Seek(size_t offset);
  size_t Tell() const { return pos_; }
  size_t FileSize() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  bool ReadRecord(std::string* record);  // record == nullptr: skip the payloads
  void ReadExact(void* dst, size_t size, size_t record_start);
  void SkipExact(size_t size, size_t record_start);
  [[noreturn]] void Fail(size_t record_start, const std::string& what) const;

  std::string path_;
  std::FILE* fp_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;             // offset of the next byte to read
  int64_t record_no_ = 0;      // index of the record at pos_; -1 once unknown (after a Seek)
  bool stream_stale_ = false;  // the FILE position differs from pos_ (after an error)
};

/*! \brief Byte offsets of every record start in the file (reads the framing only). */
std::vector<size_t> ScanRecordOffsets(const std::string& path);
/*!
 * \brief Byte offsets of the records that start in [begin, end), for sharding a file into
 *        parts without an index: the first record start at or after `begin` is found by its
 *        aligned magic, so neighbouring ranges share no record and miss none.
 */
std::vector<size_t> ScanRecordOffsets(const std::string& path, size_t begin, size_t end);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_RECORDIO_H_
