// Tests of the .npy reader and writer (reader/src/hzio/util/npy.h): round trips of every
// supported dtype, the numpy shape <-> hzio dims mapping with component axes, headers as numpy
// writes them (versions 1.0, 2.0, 3.0, Python 2 longs), malformed headers, and streaming reads.
#include "hzio/util/npy.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "hzio/format/dtype.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

using testing::TempDir;

void ExpectError(const std::function<void()>& fn, ErrorCode code, const std::string& substring) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing '" << substring << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
        << "message '" << e.what() << "' lacks '" << substring << "'";
  }
}

// A header as numpy writes it: magic, version, little-endian length, the dictionary padded with
// spaces and a final '\n' so that the data starts on a multiple of 64.
std::vector<uint8_t> MakeHeader(const std::string& dict, int major = 1, bool pad = true) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string text = dict;
  if (pad) {
    const size_t total = (prefix + text.size() + 1 + 63) / 64 * 64;
    text.append(total - prefix - text.size() - 1, ' ');
    text += '\n';
  }
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < prefix - 8; ++i) bytes.push_back(static_cast<uint8_t>((text.size() >> (8 * i)) & 0xff));
  bytes.insert(bytes.end(), text.begin(), text.end());
  return bytes;
}

NpyHeader Parse(const std::vector<uint8_t>& bytes) { return ParseNpyHeader(bytes.data(), bytes.size(), "x.npy"); }

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + seed + (i >> 8));
  return v;
}

TEST(Npy, RoundTripEveryDtype) {
  TempDir dir;
  const std::vector<std::string> descrs = {"|u1", "<u2", "<u4", "<u8", "|i1", "<i2", "<i4", "<i8", "<f4", "<f8"};
  const std::vector<int64_t> shape = {3, 5, 7};
  for (size_t k = 0; k < descrs.size(); ++k) {
    SCOPED_TRACE(descrs[k]);
    const std::string path = dir.File("a" + std::to_string(k) + ".npy");
    const int64_t item = descrs[k][2] - '0';
    const std::vector<uint8_t> data = Pattern(static_cast<size_t>(3 * 5 * 7 * item), static_cast<uint8_t>(k));
    WriteNpyFile(path, descrs[k], shape, data.data());

    const std::vector<uint8_t> bytes = testing::ReadBytes(path);
    ASSERT_GE(bytes.size(), 64u);
    EXPECT_EQ(std::memcmp(bytes.data(), "\x93NUMPY\x01\x00", 8), 0);
    const size_t header_bytes = bytes.size() - data.size();
    EXPECT_EQ(header_bytes % 64, 0u);
    EXPECT_EQ(bytes[header_bytes - 1], '\n');

    NpyReader reader(path);
    EXPECT_EQ(reader.header().descr, descrs[k]);
    EXPECT_EQ(reader.header().shape, shape);
    EXPECT_FALSE(reader.header().fortran_order);
    EXPECT_EQ(reader.header().data_offset, static_cast<int64_t>(header_bytes));
    EXPECT_EQ(reader.header().ItemBytes(), item);
    std::vector<uint8_t> back(data.size());
    reader.ReadData(0, static_cast<int64_t>(back.size()), back.data());
    EXPECT_EQ(back, data);

    // The descr names an hzio dtype whose numpy descr is the same string.
    const DType dtype = DType::Parse(NpyDescrToTypeName(descrs[k]));
    EXPECT_EQ(dtype.NumpyDescr(), descrs[k]);
    EXPECT_EQ(dtype.SampleBytes(), item);
  }
}

TEST(Npy, TypeNames) {
  EXPECT_EQ(NpyDescrToTypeName("|u1"), "uint8");
  EXPECT_EQ(NpyDescrToTypeName("<i2"), "int16");
  EXPECT_EQ(NpyDescrToTypeName("<f4"), "float32");
  EXPECT_EQ(NpyDescrToTypeName("<f8"), "float64");
  // Equivalent spellings numpy may produce for one-byte and native types.
  EXPECT_EQ(NormalizeNpyDescr("<u1", "x"), "|u1");
  EXPECT_EQ(NormalizeNpyDescr("|i1", "x"), "|i1");
  EXPECT_EQ(NormalizeNpyDescr("=u8", "x"), "<u8");
}

TEST(Npy, ShapesAndDims) {
  EXPECT_EQ(NpyShapeToDims({16, 33, 70}, 1, "x"), (Point{70, 33, 16}));
  EXPECT_EQ(NpyShapeToDims({45, 70}, 1, "x"), (Point{70, 45}));
  EXPECT_EQ(NpyShapeToDims({45, 70, 3}, 3, "x"), (Point{70, 45}));    // uint8[3] RGB, 2-D
  EXPECT_EQ(NpyShapeToDims({4, 5, 6, 3}, 3, "x"), (Point{6, 5, 4}));  // float32[3], 3-D
  EXPECT_EQ(NpyShapeToDims({45, 70, 3}, 1, "x"), (Point{3, 70, 45}));  // scalar: the 3 is an axis

  EXPECT_EQ(DimsToNpyShape(Point{70, 33, 16}, 1), (std::vector<int64_t>{16, 33, 70}));
  EXPECT_EQ(DimsToNpyShape(Point{70, 45}, 3), (std::vector<int64_t>{45, 70, 3}));
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{9, 8, 7, 2}, std::vector<int64_t>{5, 2}})
    EXPECT_EQ(DimsToNpyShape(NpyShapeToDims(shape, 2, "x"), 2), shape);

  ExpectError([] { NpyShapeToDims({45, 70, 4}, 3, "rgb.npy"); }, ErrorCode::kInvalidArgument, "3 components");
  ExpectError([] { NpyShapeToDims({3}, 3, "rgb.npy"); }, ErrorCode::kInvalidArgument, "no spatial axis");
  ExpectError([] { NpyShapeToDims({}, 1, "s.npy"); }, ErrorCode::kInvalidArgument, "no spatial axis");
  ExpectError([] { NpyShapeToDims({4, 0, 5}, 1, "e.npy"); }, ErrorCode::kInvalidArgument, "empty");
  ExpectError([] { NpyShapeToDims({2, 2, 2, 2, 2, 2}, 1, "big.npy"); }, ErrorCode::kInvalidArgument,
              "spatial axes");
}

TEST(Npy, HeadersAsNumpyWritesThem) {
  NpyHeader h = Parse(MakeHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"));
  EXPECT_EQ(h.descr, "<f8");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(h.data_offset, 128);  // 10 + 59 + '\n' rounded up to 64
  EXPECT_EQ(h.DataBytes(), 48);

  h = Parse(MakeHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }"));
  EXPECT_EQ(h.shape, (std::vector<int64_t>{5}));
  h = Parse(MakeHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (), }"));
  EXPECT_TRUE(h.shape.empty());
  EXPECT_EQ(h.NumElements(), 1);
  // Python 2 numpy wrote longs; other writers use double quotes and no trailing comma.
  h = Parse(MakeHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (2L, 3L), }"));
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 3}));
  h = Parse(MakeHeader("{\"shape\": (4, 1), \"fortran_order\": False, \"descr\": \"<i8\"}"));
  EXPECT_EQ(h.descr, "<i8");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{4, 1}));
  // Versions 2.0 and 3.0 have a 4-byte header length.
  for (int major : {2, 3}) {
    h = Parse(MakeHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (7, 8, 9), }", major));
    EXPECT_EQ(h.shape, (std::vector<int64_t>{7, 8, 9}));
    EXPECT_EQ(h.data_offset % 64, 0);
  }
}

TEST(Npy, EncodedHeaderIsByteForByteNumpys) {
  // np.save(f, np.zeros((2, 3))) with numpy 2.x: a 118-byte dictionary line after the 10-byte prefix.
  std::string numpy = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                      "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  numpy.append(128 - numpy.size() - 1, ' ');
  numpy += '\n';
  EXPECT_EQ(EncodeNpyHeader("<f8", {2, 3}), numpy);
  EXPECT_NE(EncodeNpyHeader("|u1", {5}).find("'shape': (5,), }"), std::string::npos);
  EXPECT_NE(EncodeNpyHeader("<u1", {}).find("'descr': '|u1', 'fortran_order': False, 'shape': (), }"),
            std::string::npos);
}

TEST(Npy, EncodedHeaderParsesBack) {
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{}, std::vector<int64_t>{1}, std::vector<int64_t>{512, 512, 512, 3}}) {
    const std::string text = EncodeNpyHeader("<f4", shape);
    EXPECT_EQ(text.size() % 64, 0u);
    const NpyHeader h = ParseNpyHeader(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "e.npy");
    EXPECT_EQ(h.shape, shape);
    EXPECT_EQ(h.descr, "<f4");
    EXPECT_EQ(h.data_offset, static_cast<int64_t>(text.size()));
  }
}

TEST(Npy, MalformedHeadersGiveClearErrors) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ExpectError([] { Parse({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}); }, ErrorCode::kCorrupt, "x.npy: not a .npy file");
  ExpectError([&] {
    std::vector<uint8_t> b = MakeHeader(good);
    b.resize(8);
    Parse(b);
  }, ErrorCode::kCorrupt, "truncated");
  ExpectError([&] {
    std::vector<uint8_t> b = MakeHeader(good);
    b.resize(40);
    Parse(b);
  }, ErrorCode::kCorrupt, "truncated .npy header");
  ExpectError([&] {
    std::vector<uint8_t> b = MakeHeader(good);
    b[6] = 4;
    Parse(b);
  }, ErrorCode::kUnsupported, "version 4.0");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4', 'shape': (2, 3), }")); }, ErrorCode::kCorrupt,
              "'fortran_order'");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }")); },
              ErrorCode::kUnsupported, "Fortran order");
  ExpectError([] { Parse(MakeHeader("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }")); },
              ErrorCode::kUnsupported, "big-endian");
  ExpectError([] { Parse(MakeHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }")); },
              ErrorCode::kUnsupported, "bool");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }")); },
              ErrorCode::kUnsupported, "float16");
  ExpectError([] { Parse(MakeHeader("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }")); },
              ErrorCode::kUnsupported, "complex");
  ExpectError([] { Parse(MakeHeader("{'descr': '<U4', 'fortran_order': False, 'shape': (2, 3), }")); },
              ErrorCode::kUnsupported, "'<U4'");
  ExpectError([] {
    Parse(MakeHeader("{'descr': [('r', '|u1'), ('g', '|u1')], 'fortran_order': False, 'shape': (2,), }"));
  }, ErrorCode::kUnsupported, "structured");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }")); },
              ErrorCode::kCorrupt, "non-negative");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }")); },
              ErrorCode::kCorrupt, "'shape' is not a tuple");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4', 'fortran_order': Fals, 'shape': (2, 3), }")); },
              ErrorCode::kCorrupt, "malformed .npy header");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)")); },
              ErrorCode::kCorrupt, "malformed .npy header");
  ExpectError([] { Parse(MakeHeader("{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }")); },
              ErrorCode::kCorrupt, "malformed .npy header");
  ExpectError([] {
    Parse(MakeHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"));
  }, ErrorCode::kCorrupt, "too large");
}

TEST(Npy, TruncatedDataNamesTheFile) {
  TempDir dir;
  const std::string path = dir.File("short.npy");
  std::vector<uint8_t> bytes = MakeHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (10, 10), }");
  bytes.resize(bytes.size() + 799);  // one byte short of 100 float64
  testing::WriteBytes(path, bytes);
  ExpectError([&] { NpyReader r(path); }, ErrorCode::kCorrupt, path + ": truncated .npy file");
  ExpectError([&] { NpyReader r(dir.File("absent.npy")); }, ErrorCode::kNotFound, "absent.npy");
}

TEST(Npy, StreamingReadsOfSlabsAndRanges) {
  TempDir dir;
  const std::string path = dir.File("big.npy");
  const std::vector<int64_t> shape = {100, 30, 40};  // 100 slabs of 1200 int32
  std::vector<int32_t> values(100 * 30 * 40);
  std::iota(values.begin(), values.end(), -5000);
  {
    // Streamed in uneven pieces, as `hzio read` writes large results.
    NpyWriter writer(path, "<i4", shape);
    const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
    const int64_t total = static_cast<int64_t>(values.size() * 4);
    for (int64_t pos = 0; pos < total;) {
      const int64_t n = std::min<int64_t>(total - pos, 7777);
      writer.Write(bytes + pos, n);
      pos += n;
    }
    writer.Finish();
  }
  NpyReader reader(path);
  EXPECT_EQ(reader.SlabBytes(), 30 * 40 * 4);
  std::vector<int32_t> slabs(5 * 1200);
  reader.ReadSlabs(37, 5, reinterpret_cast<uint8_t*>(slabs.data()));
  EXPECT_TRUE(std::equal(slabs.begin(), slabs.end(), values.begin() + 37 * 1200));
  int32_t one = 0;
  reader.ReadData(4 * 123457 % (4 * 120000), 4, reinterpret_cast<uint8_t*>(&one));
  EXPECT_EQ(one, values[123457 % 120000]);
  reader.ReadSlabs(99, 1, reinterpret_cast<uint8_t*>(slabs.data()));
  EXPECT_EQ(slabs[1199], values.back());
  ExpectError([&] { reader.ReadSlabs(98, 3, reinterpret_cast<uint8_t*>(slabs.data())); }, ErrorCode::kOutOfRange,
              "slabs [98, 101)");
  ExpectError([&] { reader.ReadData(-1, 4, reinterpret_cast<uint8_t*>(&one)); }, ErrorCode::kOutOfRange,
              "outside");
}

TEST(Npy, WriterRefusesWrongAmountsAndLeavesNoPartialFile) {
  TempDir dir;
  const std::string path = dir.File("w.npy");
  const std::vector<uint8_t> data(24);
  {
    NpyWriter writer(path, "<f8", {2, 2});
    writer.Write(data.data(), 24);
    ExpectError([&] { writer.Finish(); }, ErrorCode::kInvalidArgument, "the shape needs 32");
    ExpectError([&] { writer.Write(data.data(), 16); }, ErrorCode::kInvalidArgument, "more data");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  ExpectError([&] { NpyWriter w(dir.File("no/such/dir.npy"), "<f4", {1}); }, ErrorCode::kIo, "cannot create");
  ExpectError([&] { NpyWriter w(dir.File("b.npy"), ">f4", {1}); }, ErrorCode::kUnsupported, "big-endian");
}

}  // namespace
}  // namespace hzio
