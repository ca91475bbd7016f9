#include "io/input_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "mxnet/error.h"

namespace mxnet {
namespace io {

namespace fs = std::filesystem;

std::vector<std::string> ListInputFiles(const std::string& path, const std::string& what) {
  std::vector<std::string> files;
  std::error_code ec;
  MX_CHECK_KIND(fs::exists(path, ec), "IOError") << what << " '" << path << "' does not exist";
  if (!fs::is_directory(path, ec)) {
    files.push_back(path);
    return files;
  }
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name[0] != '.' && entry.is_regular_file()) files.push_back(entry.path().string());
  }
  MX_CHECK_KIND(!ec, "IOError") << what << ": cannot list directory '" << path << "': " << ec.message();
  MX_CHECK_KIND(!files.empty(), "IOError") << what << ": directory '" << path << "' has no files";
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace io
}  // namespace mxnet
