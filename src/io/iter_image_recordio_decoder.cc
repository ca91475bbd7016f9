#if MXNET_USE_OPENCV
#include "io/iter_image_recordio_decoder.h"

#include <opencv2/imgproc.hpp>

#include <sstream>

#include "io/image_codec.h"
#include "io/image_record.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {

ImageRecordDecoder::ImageRecordDecoder(std::shared_ptr<const ImageDecodeConfig> config) : c_(std::move(config)) {}

std::mt19937 ImageRecordDecoder::ImageRng(uint64_t aug_seed, const PlannedImage& image) {
  const uint64_t s = MixSeed(aug_seed, image.epoch, image.position);
  return std::mt19937(static_cast<uint32_t>(s ^ (s >> 32)));
}

void ImageRecordDecoder::Labels(uint64_t image_id, const std::vector<float>& labels, float header_label,
                                uint32_t flag, float* out, const std::string& what) const {
  const int width = c_->label_width;
  if (c_->label_list) {
    const float* row = c_->label_list->Find(image_id);
    MX_CHECK(row != nullptr) << what << ": image index " << image_id << " is not in the image list "
                             << c_->label_list->path();
    std::copy(row, row + width, out);
  } else if (flag > 0) {
    MX_CHECK(labels.size() == static_cast<size_t>(width))
        << what << ": the record holds " << labels.size() << " labels but label_width is " << width;
    std::copy(labels.begin(), labels.end(), out);
  } else {
    MX_CHECK(width == 1) << what << ": the record holds one label but label_width is " << width
                         << " (pack the labels into the records, or give path_imglist)";
    out[0] = header_label;
  }
}

cv::Mat ImageRecordDecoder::Load(const PlannedImage& image, float* label, std::mt19937* rng) {
  if (!reader_) reader_ = std::make_unique<RecordIOReader>(c_->rec_path);
  // The reader's own errors name the file, record and offset already.
  reader_->Seek(static_cast<size_t>(image.offset));
  MX_CHECK(reader_->Next(&record_)) << c_->rec_path << ": no record at offset " << image.offset
                                    << " (the .idx does not match the .rec?)";
  std::ostringstream what_os;
  what_os << "record " << image.position << " (offset " << image.offset << ") of " << c_->rec_path;
  const std::string what = what_os.str();
  try {
    ImageRecordHeader header;
    const uint8_t* payload = nullptr;
    size_t payload_size = 0;
    ParseImageRecord(record_, &header, &labels_, &payload, &payload_size);
    if (label) Labels(header.id, labels_, header.label, header.flag, label, what);
    const int flag = c_->channels == 1 ? 0 : c_->channels == 3 ? 1 : -1;
    cv::Mat img = DecodeImage(payload, payload_size, flag, what);
    if (c_->channels == 4) {
      MX_CHECK(img.channels() == 4) << what << ": data_shape asks for 4 channels but the image has "
                                    << img.channels();
    }
    if (img.depth() != CV_8U) {
      // 16-bit PNG/TIFF read unchanged: scale to 8 bits as the colour and gray reads do.
      cv::Mat eight;
      img.convertTo(eight, CV_8U, img.depth() == CV_16U ? 1.0 / 257.0 : 1.0);
      img = eight;
    }
    return c_->augmenter->Process(img, rng);
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find(c_->rec_path) != std::string::npos) throw;
    throw Error(what + ": " + msg, e.kind());
  } catch (const cv::Exception& e) {
    MX_THROW("MXNetError") << what << ": " << e.what();
  }
  return cv::Mat();
}

void ImageRecordDecoder::Fill(const PlannedImage& image, void* data, float* label) {
  std::mt19937 rng = ImageRng(c_->aug_seed, image);
  cv::Mat img = Load(image, label, &rng);
  try {
    c_->normalizer->Write(img, &rng, data);
  } catch (const Error& e) {
    std::ostringstream os;
    os << "record " << image.position << " (offset " << image.offset << ") of " << c_->rec_path << ": " << e.what();
    throw Error(os.str(), e.kind());
  }
}

}  // namespace io
}  // namespace mxnet
#endif  // MXNET_USE_OPENCV
