// Reads the float32 .npy files the fixtures come in (numpy's format, C order, little-endian).
#ifndef MXNET_EXAMPLE_PREDICT_NPY_H_
#define MXNET_EXAMPLE_PREDICT_NPY_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

struct NpyArray {
  std::vector<uint32_t> shape;
  std::vector<float> data;
};

/*! \brief Parses the bytes of a .npy file; throws std::runtime_error on anything but '<f4' C order. */
inline NpyArray ParseNpy(const std::string& bytes) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error("not a .npy file");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, pos = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    pos = 10;
  } else {
    if (bytes.size() < 12) throw std::runtime_error("truncated .npy header");
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + i]);
    pos = 12;
  }
  if (pos + header_len > bytes.size()) throw std::runtime_error("truncated .npy header");
  const std::string header = bytes.substr(pos, header_len);
  if (header.find("'descr': '<f4'") == std::string::npos) throw std::runtime_error(".npy is not float32: " + header);
  if (header.find("'fortran_order': False") == std::string::npos) throw std::runtime_error(".npy is not C order");
  const size_t open = header.find("'shape': (");
  const size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) throw std::runtime_error(".npy has no shape");
  NpyArray arr;
  size_t count = 1;
  for (size_t i = open + 10; i < close;) {
    if (header[i] < '0' || header[i] > '9') {
      ++i;
      continue;
    }
    size_t used = 0;
    const unsigned long dim = std::stoul(header.substr(i), &used);
    arr.shape.push_back(static_cast<uint32_t>(dim));
    count *= dim;
    i += used;
  }
  pos += header_len;
  if (bytes.size() - pos != count * sizeof(float)) throw std::runtime_error(".npy data size does not match its shape");
  arr.data.resize(count);
  for (size_t i = 0; i < count; ++i) {  // little-endian float32, whatever this machine is
    uint32_t bits = 0;
    for (int b = 3; b >= 0; --b) bits = bits << 8 | static_cast<unsigned char>(bytes[pos + 4 * i + b]);
    static_assert(sizeof(float) == sizeof(uint32_t), "float must be 32 bits");
    std::memcpy(&arr.data[i], &bits, sizeof(float));
  }
  return arr;
}

#endif  // MXNET_EXAMPLE_PREDICT_NPY_H_
