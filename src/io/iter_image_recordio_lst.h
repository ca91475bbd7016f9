/*!
 * \file iter_image_recordio_lst.h
 * \brief Labels from an image list (.lst, as im2rec writes it: "index \t label... \t path"),
 *        keyed by the image index a record's header carries. They replace the records' own
 *        labels in ImageRecordIter when path_imglist is given.
 */
#ifndef MXNET_IO_ITER_IMAGE_RECORDIO_LST_H_
#define MXNET_IO_ITER_IMAGE_RECORDIO_LST_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace mxnet {
namespace io {

class ImageLabelList {
 public:
  /*!
   * \brief Reads label_width labels per line (whitespace separated after the index; the rest of
   *        the line, the path, is ignored). Errors name the file and line.
   */
  ImageLabelList(const std::string& path, int label_width);
  /*! \brief The labels of image `index`, or null when the list has no such line. */
  const float* Find(uint64_t index) const;
  size_t size() const { return rows_.size(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int width_;
  std::vector<float> labels_;                   // width_ per line, in file order
  std::unordered_map<uint64_t, size_t> rows_;   // index -> offset into labels_
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_ITER_IMAGE_RECORDIO_LST_H_
