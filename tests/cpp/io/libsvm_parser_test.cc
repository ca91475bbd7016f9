// LibSVM text for LibSVMIter: one line into a row, and the lines of a file split into parts.
#include "io/libsvm_parser.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "mxnet/error.h"

using namespace mxnet::io;

namespace {

std::string Parse(const std::string& line, LibSVMRow<float>* row, bool* blank, int64_t cols = 5) {
  return ParseLibSVMLine(line, cols, row, blank);
}

class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_(::testing::TempDir() + "libsvm_parser_test_" + std::to_string(getpid()) + "_" +
              std::to_string(counter_++) + ".t") {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

std::vector<std::string> PartLines(const std::string& path, uint32_t parts, uint32_t index) {
  LibSVMLines lines(path, "data_libsvm", parts, index);
  std::vector<std::string> out;
  std::string_view line;
  while (lines.Next(&line)) out.emplace_back(line);
  return out;
}

}  // namespace

TEST(LibSVMParse, LabelAndSortedFeatures) {
  LibSVMRow<float> row;
  bool blank = true;
  EXPECT_EQ(Parse("-3.5 0:0.5 2:+1e-1\t4:7 # comment 9:9", &row, &blank), "");
  EXPECT_FALSE(blank);
  EXPECT_FLOAT_EQ(row.label, -3.5f);
  EXPECT_EQ(row.indices, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(row.values, (std::vector<float>{0.5f, 0.1f, 7.0f}));
}

TEST(LibSVMParse, OptionalLabelQidAndBlankLines) {
  LibSVMRow<double> row;
  bool blank = false;
  EXPECT_EQ(ParseLibSVMLine<double>("1:2 3:4", 5, &row, &blank), "");
  EXPECT_EQ(row.label, 0.0);
  EXPECT_EQ(row.indices, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(ParseLibSVMLine<double>("2 qid:9 1:1", 5, &row, &blank), "");
  EXPECT_EQ(row.indices, (std::vector<int64_t>{1}));
  EXPECT_EQ(ParseLibSVMLine<double>("7", 5, &row, &blank), "");
  EXPECT_FALSE(blank);
  EXPECT_TRUE(row.indices.empty());
  for (const char* empty : {"", "   \t\r", "# only a comment"}) {
    EXPECT_EQ(ParseLibSVMLine<double>(empty, 5, &row, &blank), "");
    EXPECT_TRUE(blank) << empty;
    EXPECT_TRUE(IsBlankLibSVMLine(empty)) << empty;
  }
  EXPECT_FALSE(IsBlankLibSVMLine("1 # x"));
}

TEST(LibSVMParse, BadLinesSayWhatIsWrong) {
  LibSVMRow<float> row;
  bool blank;
  EXPECT_EQ(Parse("1 0:1 -2:1", &row, &blank), "column index -2 is negative (indices are zero-based)");
  EXPECT_EQ(Parse("1 5:1", &row, &blank), "column index 5 is out of range [0, 5)");
  EXPECT_EQ(Parse("1 3:1 1:1", &row, &blank), "column indices are not sorted: 1 after 3");
  EXPECT_EQ(Parse("1 3:1 3:1", &row, &blank), "column index 3 appears twice");
  EXPECT_EQ(Parse("1 3", &row, &blank), "malformed token '3': expected index:value");
  EXPECT_EQ(Parse("1 a:1", &row, &blank), "malformed token 'a:1': cannot read the column index 'a'");
  EXPECT_EQ(Parse("1 1:", &row, &blank), "malformed token '1:': cannot read the value ''");
  EXPECT_EQ(Parse("1 1:2x", &row, &blank), "malformed token '1:2x': cannot read the value '2x'");
  EXPECT_EQ(Parse("x 1:2", &row, &blank), "cannot read the label 'x'");
}

TEST(LibSVMLines, PartsSplitBytesAtLineStarts) {
  // 10 bytes a line; with 2 parts the boundary (byte 20) is the start of line 3, which holds
  // the byte before it in part 0 (MXNet 1.x's rule).
  TempFile f("1 0:1.000\n2 0:1.000\n3 0:1.000\n4 0:1.000\n");
  EXPECT_EQ(PartLines(f.path(), 1, 0).size(), 4u);
  EXPECT_EQ(PartLines(f.path(), 2, 0), (std::vector<std::string>{"1 0:1.000", "2 0:1.000", "3 0:1.000"}));
  EXPECT_EQ(PartLines(f.path(), 2, 1), (std::vector<std::string>{"4 0:1.000"}));
  EXPECT_EQ(PartLines(f.path(), 4, 3), std::vector<std::string>{});
  EXPECT_EQ(PartLines(f.path(), 3, 1), (std::vector<std::string>{"3 0:1.000"}));
}

TEST(LibSVMLines, EveryLineInExactlyOnePart) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += std::to_string(i) + std::string(i % 13, ' ') + " 0:1\r\n";
  TempFile f(text);
  for (uint32_t parts : {1u, 2u, 5u, 9u, 64u}) {
    std::vector<std::string> all;
    for (uint32_t p = 0; p < parts; ++p)
      for (auto& l : PartLines(f.path(), parts, p)) all.push_back(l);
    ASSERT_EQ(all.size(), 200u) << parts;
    for (int i = 0; i < 200; ++i) EXPECT_EQ(all[i], std::to_string(i) + std::string(i % 13, ' ') + " 0:1");
  }
}

TEST(LibSVMLines, RewindWhereAndSkipping) {
  TempFile f("a\n\nb\nc\n# x\nd");
  LibSVMLines lines(f.path(), "data_libsvm");
  std::string_view line;
  ASSERT_TRUE(lines.SkipRows(2));  // a, (blank), b
  ASSERT_TRUE(lines.Next(&line));
  EXPECT_EQ(line, "c");
  EXPECT_EQ(lines.Where(), f.path() + ":4");
  lines.MarkStart();
  ASSERT_TRUE(lines.Next(&line));
  ASSERT_TRUE(lines.Next(&line));
  EXPECT_EQ(line, "d");
  EXPECT_FALSE(lines.Next(&line));
  lines.Rewind();
  ASSERT_TRUE(lines.Next(&line));
  EXPECT_EQ(line, "# x");
  EXPECT_FALSE(lines.SkipRows(5));
}

TEST(LibSVMLines, RowsBeforeAPart) {
  TempFile f("1 0:1.000\n\n2 0:1.00\n3 0:1.000\n4 0:1.000\n");
  LibSVMLines part1(f.path(), "data_libsvm", 2, 1);
  EXPECT_EQ(part1.RowsBeforePart(), 3u);  // the blank line is no row
  std::string_view line;
  ASSERT_TRUE(part1.Next(&line));  // the scan leaves the part rewound
  EXPECT_EQ(line, "4 0:1.000");
}

TEST(LibSVMLines, MissingPathAndBadPartAreErrors) {
  EXPECT_THROW(LibSVMLines("/nonexistent/file.t", "data_libsvm"), mxnet::Error);
  TempFile f("1\n");
  EXPECT_THROW(LibSVMLines(f.path(), "data_libsvm", 2, 2), mxnet::Error);
}
