/*!
 * \file csv_reader.h
 * \brief Rows of numbers from a CSV file, or from every file of a directory in name order,
 *        with the file and line of each row kept for error messages.
 */
#ifndef MXNET_IO_CSV_READER_H_
#define MXNET_IO_CSV_READER_H_

#include <fstream>
#include <string>
#include <vector>

namespace mxnet {
namespace io {

class CSVReader {
 public:
  /*!
   * \brief path: a file or a directory (its regular files, hidden ones skipped, sorted by name).
   *        what names the parameter in errors ("data_csv"). A missing path or an empty
   *        directory is an IOError.
   */
  CSVReader(const std::string& path, const std::string& what);
  void Rewind();
  /*!
   * \brief Parses the next non-blank line into exactly n values of dtype (float32, int32 or
   *        int64) at out. False at the end of the last file. A malformed line is a ValueError
   *        naming the file, the line and the field.
   */
  bool NextRow(int dtype, size_t n, void* out);
  /*! \brief "file.csv:12", the row NextRow read last. */
  std::string Where() const;

 private:
  bool NextLine();
  template <typename T>
  void ParseFields(size_t n, T* out) const;

  std::string what_;
  std::vector<std::string> files_;
  size_t file_pos_ = 0;
  std::ifstream in_;
  std::string line_;
  size_t line_no_ = 0;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_CSV_READER_H_
