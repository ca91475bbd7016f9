/*!
 * \file libsvm_parser.h
 * \brief Reading LibSVM text for LibSVMIter: one line into a row (ParseLibSVMLine), and the
 *        lines of a file or directory, split into parts the way MXNet 1.x splits them
 *        (LibSVMLines).
 *
 *        Line format: `[label] idx:val idx:val ...  [# comment]`, zero-based column indices in
 *        strictly increasing order. The first token is the label when it has no ':'; a line
 *        without one has label 0. `qid:n` tokens are skipped. Blank and comment-only lines
 *        are no rows.
 */
#ifndef MXNET_IO_LIBSVM_PARSER_H_
#define MXNET_IO_LIBSVM_PARSER_H_

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace mxnet {
namespace io {

template <typename T>
struct LibSVMRow {
  T label = 0;
  std::vector<int64_t> indices;
  std::vector<T> values;
};

/*!
 * \brief Parses one line (T: float or double). num_cols bounds the column indices. Returns
 *        "" and fills *row, or says what is wrong with the line (negative, out-of-range or
 *        unsorted index, malformed token); the caller adds the file and line. *blank is set
 *        for a line with no row (*row is then empty).
 */
template <typename T>
std::string ParseLibSVMLine(std::string_view line, int64_t num_cols, LibSVMRow<T>* row, bool* blank);

/*! \brief Whether a line holds no row (only blanks and a comment). */
bool IsBlankLibSVMLine(std::string_view line);

/*!
 * \brief The lines of a file, or of a directory's files in name order (hidden ones skipped),
 *        read as one stream; each file ends a line.
 *
 *        Parts (num_parts > 1) split the stream's bytes into num_parts ranges of
 *        ceil(total / num_parts) bytes, as MXNet 1.x does: a line belongs to the range that
 *        holds the byte before it (its first byte when it starts a file). Parts are contiguous,
 *        cover every line once, and need not hold equal numbers of lines.
 */
class LibSVMLines {
 public:
  /*! \brief what names the parameter in errors ("data_libsvm"). A missing path is an IOError. */
  LibSVMLines(const std::string& path, const std::string& what, uint32_t num_parts = 1, uint32_t part_index = 0);

  /*! \brief Back to the first line of the part. */
  void Rewind();
  /*! \brief The next line of the part (without its line break); false at the part's end. */
  bool Next(std::string_view* line);
  /*! \brief Skips n non-blank lines from the current position; false if the part ends first. */
  bool SkipRows(uint64_t n);
  /*! \brief Non-blank lines of the whole stream before this part's first line (a scan). */
  uint64_t RowsBeforePart();
  /*! \brief Makes the current position the one Rewind() returns to. */
  void MarkStart();
  /*! \brief "path:line" of the line Next() gave last. */
  std::string Where();
  const std::string& what() const { return what_; }

 private:
  struct Pos {
    size_t file = 0;
    uint64_t offset = 0;  // within the file
  };
  void SeekTo(const Pos& p);
  bool ReadLine(uint64_t* global_start, bool* file_start);
  uint32_t OwnerOf(uint64_t global_start, bool file_start) const;

  std::string what_;
  std::vector<std::string> files_;
  std::vector<uint64_t> file_begin_;  // global offset of each file's first byte
  uint32_t num_parts_, part_index_;
  uint64_t step_ = 1;  // bytes per part
  Pos start_;          // the part's first line
  Pos cur_;
  std::ifstream in_;
  size_t open_file_ = static_cast<size_t>(-1);
  std::string line_;
  Pos last_line_;  // where the line Next() gave last starts
  bool ended_ = false;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_LIBSVM_PARSER_H_
