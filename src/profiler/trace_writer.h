/*!
 * \file trace_writer.h
 * \brief Writes records as Chrome trace-event JSON. The file is created (truncated) with
 *        its header and device metadata at the first write, later writes append, and the
 *        closing lines come with the final (finished) write.
 */
#ifndef MXNET_PROFILER_TRACE_WRITER_H_
#define MXNET_PROFILER_TRACE_WRITER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "profiler/record.h"

namespace mxnet {
namespace profiler {

class TraceWriter {
 public:
  /*! \brief Appends records to path (starting the file if none is open); throws on I/O errors. */
  void Write(const std::string& path, const std::vector<Record>& records, bool finished);
  /*! \brief Whether a file is started and not yet closed. */
  bool open() const { return open_; }

 private:
  void AppendRecord(std::string* out, const Record& r);
  void AppendEvent(std::string* out, const Record& r, const char* ph, int64_t ts, const std::string& cat, uint64_t pid,
                   const std::string& extra);

  bool open_{false};
  std::string path_;
  std::set<uint32_t> announced_;                    // categories whose process_name was written
  std::map<uint32_t, std::string> category_names_;  // per-dump cache
};

}  // namespace profiler
}  // namespace mxnet

#endif  // MXNET_PROFILER_TRACE_WRITER_H_
