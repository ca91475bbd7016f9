// RecordIO writer/reader: round trips, split records, and corrupt files (every truncation
// point, random byte flips) that must give an error or a prefix of the records, never a crash.
#include "io/recordio.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "io/image_record.h"
#include "mxnet/error.h"

namespace mxnet {
namespace io {
namespace {

const std::string kMagic("\x0A\x23\xD7\xCE", 4);  // the magic as stored (little-endian)

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "recordio_test_" + std::to_string(getpid()) + "_" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void WriteRecords(const std::string& path, const std::vector<std::string>& records) {
  RecordIOWriter writer(path);
  for (const auto& r : records) writer.Write(r.data(), r.size());
  writer.Close();
}

std::vector<std::string> ReadAll(const std::string& path) {
  RecordIOReader reader(path);
  std::vector<std::string> out;
  std::string rec;
  while (reader.Next(&rec)) out.push_back(rec);
  return out;
}

// Records that exercise every framing case: empty, unaligned lengths, the magic at aligned
// (split) and unaligned (kept) offsets, at the start, the end and back to back.
std::vector<std::string> SampleRecords() {
  return {
      "a",
      "",
      "abcd",
      kMagic,
      "xy" + kMagic + "z",
      "head" + kMagic + "tail!",
      kMagic + kMagic + "12345678" + kMagic,
      "1234" + kMagic + "5678" + kMagic + "9",
      std::string(13, '\0'),
  };
}

TEST(RecordIO, RoundTrip) {
  const std::string path = TempPath("roundtrip.rec");
  const auto records = SampleRecords();
  WriteRecords(path, records);
  EXPECT_EQ(ReadAll(path), records);
  EXPECT_EQ(ReadFile(path).size() % 4, 0u);
  std::remove(path.c_str());
}

TEST(RecordIO, FramingBytes) {
  const std::string path = TempPath("framing.rec");
  WriteRecords(path, {"abc", "ab" + kMagic + "cd", "abcd" + kMagic + "e"});
  const std::string bytes = ReadFile(path);
  // "abc": one part of 3 bytes plus a zero pad byte.
  EXPECT_EQ(bytes.substr(0, 12), kMagic + std::string("\x03\0\0\0", 4) + "abc" + std::string(1, '\0'));
  // An unaligned magic stays in the data: one part of 8 bytes.
  EXPECT_EQ(bytes.substr(12, 8), kMagic + std::string("\x08\0\0\0", 4));
  // An aligned magic splits: first part "abcd" (flag 1), last part "e" (flag 3).
  const size_t third = 12 + 16;
  EXPECT_EQ(bytes.substr(third, 12), kMagic + std::string("\x04\0\0\x20", 4) + "abcd");
  EXPECT_EQ(bytes.substr(third + 12), kMagic + std::string("\x01\0\0\x60", 4) + "e" + std::string(3, '\0'));
  std::remove(path.c_str());
}

TEST(RecordIO, TellSeekAndScan) {
  const std::string path = TempPath("seek.rec");
  const auto records = SampleRecords();
  std::vector<size_t> offsets;
  {
    RecordIOWriter writer(path);
    for (const auto& r : records) {
      offsets.push_back(writer.Tell());
      writer.Write(r.data(), r.size());
    }
  }  // the destructor closes
  EXPECT_EQ(ScanRecordOffsets(path), offsets);
  RecordIOReader reader(path);
  EXPECT_EQ(reader.FileSize(), ReadFile(path).size());
  EXPECT_EQ(reader.path(), path);
  std::string rec;
  for (size_t i = records.size(); i-- > 0;) {
    reader.Seek(offsets[i]);
    ASSERT_TRUE(reader.Next(&rec));
    EXPECT_EQ(rec, records[i]);
  }
  reader.Seek(reader.FileSize());
  EXPECT_FALSE(reader.Next(&rec));
  EXPECT_THROW(reader.Seek(reader.FileSize() + 4), Error);
  EXPECT_THROW(reader.Seek(2), Error);

  // Ranges that tile the file share no record and miss none, wherever they are cut.
  const size_t size = reader.FileSize();
  for (size_t cut = 0; cut <= size; ++cut) {
    auto head = ScanRecordOffsets(path, 0, cut);
    auto tail = ScanRecordOffsets(path, cut, size);
    head.insert(head.end(), tail.begin(), tail.end());
    ASSERT_EQ(head, offsets) << "cut at " << cut;
  }
  std::remove(path.c_str());
}

TEST(RecordIO, ScanRangesAcrossReadChunks) {
  // Records straddle the scanner's 64 KiB read chunks, with magic words inside payloads.
  const std::string path = TempPath("chunks.rec");
  std::vector<std::string> records;
  std::mt19937 rng(11);
  for (int i = 0; i < 300; ++i) {
    std::string r(rng() % 1500, 'x');
    for (auto& c : r) c = static_cast<char>(rng());
    if (r.size() > 8) r.replace((rng() % (r.size() - 4)), 4, kMagic);
    records.push_back(r);
  }
  WriteRecords(path, records);
  const auto offsets = ScanRecordOffsets(path);
  ASSERT_EQ(offsets.size(), records.size());
  const size_t size = ReadFile(path).size();
  std::vector<size_t> cuts;
  for (size_t chunk = 65536; chunk < size; chunk += 65536) {
    for (size_t c = chunk - 16; c <= chunk + 16; ++c) cuts.push_back(c);
  }
  for (int i = 0; i < 50; ++i) cuts.push_back(rng() % size);
  for (size_t cut : cuts) {
    auto head = ScanRecordOffsets(path, 0, cut);
    auto tail = ScanRecordOffsets(path, cut, size);
    head.insert(head.end(), tail.begin(), tail.end());
    ASSERT_EQ(head, offsets) << "cut at " << cut;
  }
  // Three shards of a file read by offset give back every record once, in order.
  std::vector<std::string> got;
  RecordIOReader reader(path);
  for (int part = 0; part < 3; ++part) {
    for (size_t offset : ScanRecordOffsets(path, size * part / 3, size * (part + 1) / 3)) {
      reader.Seek(offset);
      std::string rec;
      ASSERT_TRUE(reader.Next(&rec));
      got.push_back(rec);
    }
  }
  EXPECT_EQ(got, records);
  std::remove(path.c_str());
}

TEST(RecordIO, LargeRecord) {
  const std::string path = TempPath("large.rec");
  std::string big(1 << 20, '\0');
  std::mt19937 rng(7);
  for (auto& c : big) c = static_cast<char>(rng());
  for (size_t i = 0; i < big.size(); i += 4096) big.replace(i, 4, kMagic);  // many splits
  WriteRecords(path, {big, "after"});
  EXPECT_EQ(ReadAll(path), (std::vector<std::string>{big, "after"}));
  // A range starting inside the big record skips its split parts (flag 2/3) and finds the
  // next record, also when that header straddles the end of the scanner's 64 KiB chunk.
  const size_t second = ScanRecordOffsets(path).at(1);
  for (size_t back = 65536 - 12; back <= 65536 + 12; back += 4) {
    EXPECT_EQ(ScanRecordOffsets(path, second - back, second + 1), std::vector<size_t>{second}) << back;
    EXPECT_EQ(ScanRecordOffsets(path, 0, second - back), std::vector<size_t>{0});
  }
  std::remove(path.c_str());
}

TEST(RecordIO, RejectsOversizedRecordAndMissingFile) {
  const std::string path = TempPath("oversized.rec");
  RecordIOWriter writer(path);
  char byte = 0;
  EXPECT_THROW(writer.Write(&byte, kRecordIOMaxRecord), Error);  // size is checked before reading
  writer.Close();
  EXPECT_THROW(writer.Write(&byte, 1), Error);
  EXPECT_THROW(RecordIOReader(TempPath("missing.rec")), Error);
  std::remove(path.c_str());
}

TEST(RecordIO, ErrorNamesFileRecordAndOffset) {
  const std::string path = TempPath("badmagic.rec");
  WriteRecords(path, {"abcd", "efgh"});
  std::string bytes = ReadFile(path);
  bytes[12] = 'X';  // magic of record 1
  WriteFile(path, bytes);
  RecordIOReader reader(path);
  std::string rec;
  ASSERT_TRUE(reader.Next(&rec));
  try {
    reader.Next(&rec);
    FAIL() << "a bad magic must throw";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("record 1 at byte offset 12"), std::string::npos) << msg;
  }
  EXPECT_THROW(reader.Next(&rec), Error);  // stays at the bad record
  EXPECT_EQ(reader.Tell(), 12u);
  std::remove(path.c_str());
}

struct ReadOutcome {
  std::vector<std::string> records;
  bool threw = false;
};

// Reads until the end or the first error; an exception other than mxnet::Error fails the test.
ReadOutcome ReadDamaged(const std::string& path) {
  ReadOutcome out;
  try {
    RecordIOReader reader(path);
    std::string rec;
    while (reader.Next(&rec)) {
      out.records.push_back(rec);
      if (out.records.size() > 64) break;  // a runaway reader (the file holds < 20 magic words)
    }
  } catch (const Error&) {
    out.threw = true;
  }
  try {
    ScanRecordOffsets(path);  // the framing-only walks must be as safe
    const size_t size = ReadFile(path).size();
    ScanRecordOffsets(path, size / 3, size);
  } catch (const Error&) {
  }
  return out;
}

// End offset of each record in the undamaged file.
std::vector<size_t> RecordEnds(const std::string& path) {
  RecordIOReader reader(path);
  std::vector<size_t> ends;
  while (reader.Skip()) ends.push_back(reader.Tell());
  return ends;
}

TEST(RecordIO, EveryTruncationIsAPrefixOrAnError) {
  const std::string path = TempPath("source.rec");
  const std::string cut_path = TempPath("truncated.rec");
  const auto records = SampleRecords();
  WriteRecords(path, records);
  const std::string bytes = ReadFile(path);
  const auto ends = RecordEnds(path);
  for (size_t len = 0; len <= bytes.size(); ++len) {
    WriteFile(cut_path, bytes.substr(0, len));
    const ReadOutcome out = ReadDamaged(cut_path);
    // Every record wholly before the cut comes back exactly; a cut inside a record is an error.
    const size_t whole = std::upper_bound(ends.begin(), ends.end(), len) - ends.begin();
    const bool at_boundary = len == 0 || (whole > 0 && ends[whole - 1] == len);
    ASSERT_EQ(out.records, std::vector<std::string>(records.begin(), records.begin() + whole)) << "cut at " << len;
    ASSERT_EQ(out.threw, !at_boundary) << "cut at " << len;
  }
  std::remove(path.c_str());
  std::remove(cut_path.c_str());
}

TEST(RecordIO, RandomByteFlipsNeverCrash) {
  const std::string path = TempPath("flip_source.rec");
  const std::string bad_path = TempPath("flipped.rec");
  const auto records = SampleRecords();
  WriteRecords(path, records);
  const std::string bytes = ReadFile(path);
  const auto ends = RecordEnds(path);
  std::mt19937 rng(20240601);
  int errors = 0;
  for (int variant = 0; variant < 1000; ++variant) {
    std::string damaged = bytes;
    size_t first_flip = bytes.size();
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const size_t at = rng() % damaged.size();
      damaged[at] = static_cast<char>(rng());
      first_flip = std::min(first_flip, at);
    }
    WriteFile(bad_path, damaged);
    const ReadOutcome out = ReadDamaged(bad_path);
    errors += out.threw;
    // Records before the first damaged one come back exactly; after it anything but a crash
    // (there is no checksum, so a changed payload byte reads as a changed record).
    const size_t intact = std::upper_bound(ends.begin(), ends.end(), first_flip) - ends.begin();
    ASSERT_GE(out.records.size(), intact) << "variant " << variant;
    ASSERT_TRUE(std::equal(records.begin(), records.begin() + intact, out.records.begin())) << "variant " << variant;
  }
  EXPECT_GT(errors, 100);  // the sweep does reach the error paths
  std::remove(path.c_str());
  std::remove(bad_path.c_str());
}

// ---- image record payloads ----

std::string PackImageRecord(uint32_t flag, float label, const std::vector<float>& labels, const std::string& img) {
  ImageRecordHeader h{flag, label, 42, 0};
  std::string rec(reinterpret_cast<const char*>(&h), sizeof(h));
  rec.append(reinterpret_cast<const char*>(labels.data()), labels.size() * sizeof(float));
  return rec + img;
}

TEST(ImageRecord, ParsesScalarAndVectorLabels) {
  ImageRecordHeader h;
  std::vector<float> labels;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  std::string rec = PackImageRecord(0, 3.5f, {}, "JPEG");
  ParseImageRecord(rec, &h, &labels, &payload, &payload_size);
  EXPECT_EQ(h.id, 42u);
  EXPECT_EQ(labels, std::vector<float>{3.5f});
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(payload), payload_size), "JPEG");

  rec = PackImageRecord(3, 0.f, {1.f, 2.f, 3.f}, "PNG");
  ParseImageRecord(rec, &h, &labels, &payload, &payload_size);
  EXPECT_EQ(h.flag, 3u);
  EXPECT_EQ(labels, (std::vector<float>{1.f, 2.f, 3.f}));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(payload), payload_size), "PNG");
}

TEST(ImageRecord, ShortRecordsThrow) {
  ImageRecordHeader h;
  std::vector<float> labels;
  const uint8_t* payload = nullptr;
  size_t payload_size = 0;
  EXPECT_THROW(ParseImageRecord(std::string(23, '\0'), &h, &labels, &payload, &payload_size), Error);
  // A huge label count must be caught by the size check, not allocated.
  const std::string rec = PackImageRecord(0xFFFFFFFFu, 0.f, {1.f}, "");
  EXPECT_THROW(ParseImageRecord(rec, &h, &labels, &payload, &payload_size), Error);
  EXPECT_THROW(ParseImageRecord(PackImageRecord(2, 0.f, {1.f}, ""), &h, &labels, &payload, &payload_size), Error);
}

}  // namespace
}  // namespace io
}  // namespace mxnet
