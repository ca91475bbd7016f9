// The files a text iterator reads: one file, or the visible regular files of a directory.
#ifndef MXNET_IO_INPUT_FILES_H_
#define MXNET_IO_INPUT_FILES_H_

#include <string>
#include <vector>

namespace mxnet {
namespace io {

/*!
 * \brief `path` itself, or for a directory its regular files not starting with '.', sorted by
 *        name (so parts and epochs see one order). A missing path, an unreadable or empty
 *        directory is an IOError naming `what` and the path.
 */
std::vector<std::string> ListInputFiles(const std::string& path, const std::string& what);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_INPUT_FILES_H_
