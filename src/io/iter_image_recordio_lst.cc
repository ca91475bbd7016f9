#include "io/iter_image_recordio_lst.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace {
// The next whitespace-separated token of `line` from *pos, or "" at the end.
std::string NextToken(const std::string& line, size_t* pos) {
  const size_t begin = line.find_first_not_of(" \t\r", *pos);
  if (begin == std::string::npos) {
    *pos = line.size();
    return "";
  }
  size_t end = line.find_first_of(" \t\r", begin);
  if (end == std::string::npos) end = line.size();
  *pos = end;
  return line.substr(begin, end - begin);
}
}  // namespace

ImageLabelList::ImageLabelList(const std::string& path, int label_width) : path_(path), width_(label_width) {
  std::ifstream in(path);
  MX_CHECK_KIND(in.good(), "IOError") << "cannot open the image list " << path;
  std::string line;
  for (size_t line_no = 1; std::getline(in, line); ++line_no) {
    size_t pos = 0;
    const std::string index_text = NextToken(line, &pos);
    if (index_text.empty()) continue;
    char* end = nullptr;
    errno = 0;
    // im2rec writes integral indices; accept "12.0" too, as a float-formatted list is common.
    const double index = std::strtod(index_text.c_str(), &end);
    MX_CHECK(*end == '\0' && errno == 0 && index >= 0 && index == std::floor(index))
        << path << " line " << line_no << ": the image index '" << index_text << "' is not a non-negative integer";
    const size_t row = labels_.size();
    for (int i = 0; i < width_; ++i) {
      const std::string text = NextToken(line, &pos);
      MX_CHECK(!text.empty()) << path << " line " << line_no << ": expected " << width_
                              << " labels (label_width) after the index, found " << i;
      const float v = std::strtof(text.c_str(), &end);
      MX_CHECK(*end == '\0') << path << " line " << line_no << ": label '" << text << "' is not a number";
      labels_.push_back(v);
    }
    const bool fresh = rows_.emplace(static_cast<uint64_t>(index), row).second;
    MX_CHECK(fresh) << path << " line " << line_no << ": image index " << index_text << " appears twice";
  }
}

const float* ImageLabelList::Find(uint64_t index) const {
  auto it = rows_.find(index);
  return it == rows_.end() ? nullptr : labels_.data() + it->second;
}

}  // namespace io
}  // namespace mxnet
