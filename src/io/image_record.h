/*!
 * \file image_record.h
 * \brief The payload of an image record (what `recordio.pack` and im2rec write): a 24-byte
 *        header, optional float32 labels, then the encoded image.
 */
#ifndef MXNET_IO_IMAGE_RECORD_H_
#define MXNET_IO_IMAGE_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace io {

/*! \brief Python struct 'IfQQ' (native order, which is little-endian on every target). */
struct ImageRecordHeader {
  uint32_t flag;  // 0: the label is `label`; N > 0: N float32 labels follow the header
  float label;
  uint64_t id;   // image index
  uint64_t id2;  // high bits of the index, normally 0
};
static_assert(sizeof(ImageRecordHeader) == 24, "the image record header is 24 bytes on disk");

/*!
 * \brief Splits a record into its header, labels (the flag > 0 extra labels, else the one
 *        label) and the encoded image, which points into `rec`. A record shorter than its
 *        header and labels throws an mxnet::Error saying so.
 */
void ParseImageRecord(const std::string& rec, ImageRecordHeader* h, std::vector<float>* labels, const uint8_t** payload,
                      size_t* payload_size);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_IMAGE_RECORD_H_
