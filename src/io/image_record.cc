// Parsing the header and labels of an image record (layout in image_record.h).
#include "io/image_record.h"

#include <cstring>

#include "mxnet/error.h"

namespace mxnet {
namespace io {

void ParseImageRecord(const std::string& rec, ImageRecordHeader* h, std::vector<float>* labels, const uint8_t** payload,
                      size_t* payload_size) {
  MX_CHECK_KIND(rec.size() >= sizeof(ImageRecordHeader), "MXNetError")
      << "image record of " << rec.size() << " bytes is shorter than its " << sizeof(ImageRecordHeader)
      << "-byte header";
  ImageRecordHeader header;
  std::memcpy(&header, rec.data(), sizeof(header));  // the record buffer need not be aligned
  size_t offset = sizeof(header);
  if (labels != nullptr) labels->clear();
  if (header.flag > 0) {
    // 64-bit arithmetic: a corrupt flag cannot wrap around the size check.
    const uint64_t label_bytes = uint64_t(header.flag) * sizeof(float);
    MX_CHECK_KIND(label_bytes <= rec.size() - offset, "MXNetError")
        << "image record of " << rec.size() << " bytes is too short for the " << header.flag
        << " labels its header announces (" << sizeof(ImageRecordHeader) + label_bytes << " bytes needed)";
    if (labels != nullptr) {
      labels->resize(header.flag);
      std::memcpy(labels->data(), rec.data() + offset, label_bytes);
    }
    offset += label_bytes;
  } else if (labels != nullptr) {
    labels->push_back(header.label);
  }
  if (h != nullptr) *h = header;
  if (payload != nullptr) *payload = reinterpret_cast<const uint8_t*>(rec.data()) + offset;
  if (payload_size != nullptr) *payload_size = rec.size() - offset;
}

}  // namespace io
}  // namespace mxnet
