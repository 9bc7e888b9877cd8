// The C API (hzio.h) called from C++ as a C program would: descriptions, the serial writer and
// reader (round trips at every level against design.md §4's formula), and the status + message
// of every kind of bad input.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "hzio.h"
#include "hzio/format/dtype.h"
#include "hzio/hz/grid.h"
#include "hzio/access/synthetic.h"
#include "hzio/util/error.h"

namespace {

using hzio::testing::TempDir;

// Asserts `status` is `want` and the thread's message holds `part`.
#define EXPECT_HZIO_STATUS(call, want, part)                                                            \
  do {                                                                                                 \
    const hzio_status s_ = (call);                                                                     \
    EXPECT_EQ(s_, (want)) << hzio_status_name(s_) << ": " << hzio_last_error();                        \
    EXPECT_NE(std::string(hzio_last_error()).find(part), std::string::npos) << hzio_last_error();     \
  } while (0)

#define ASSERT_HZIO_OK(call) ASSERT_EQ((call), HZIO_OK) << hzio_last_error()

// The dataset the round trips use: 20x17x9 (not powers of two), three fields, timesteps 0..1.
struct Fields {
  const char* name;
  const char* dtype;
};
constexpr Fields kFields[] = {{"pressure", "float64"}, {"velocity", "float32[3]"}, {"mask", "uint8"}};
const int64_t kSize[3] = {20, 17, 9};

hzio_desc* MakeDesc() {
  hzio_desc* d = nullptr;
  EXPECT_EQ(hzio_desc_create(3, kSize, &d), HZIO_OK) << hzio_last_error();
  for (const Fields& f : kFields) EXPECT_EQ(hzio_desc_add_field(d, f.name, f.dtype), HZIO_OK) << hzio_last_error();
  EXPECT_EQ(hzio_desc_set_timesteps(d, 0, 1), HZIO_OK) << hzio_last_error();
  EXPECT_EQ(hzio_desc_set_bits_per_block(d, 8), HZIO_OK) << hzio_last_error();
  return d;
}

hzio::Grid DenseGridOf(const int64_t* offset, const int64_t* count) {
  hzio::Grid g{hzio::Point(3), hzio::Point(3, 1), hzio::Point(3)};
  for (int d = 0; d < 3; ++d) g.origin[d] = offset[d], g.count[d] = count[d];
  return g;
}

// Reads field `f` of kFields at timestep t over the box offset + count at full resolution and
// returns the index of its first sample that differs from the formula (-1: none).
int64_t ReadAndCompare(hzio_reader* r, int f, int64_t t, const int64_t* offset, const int64_t* count) {
  const hzio::DType dtype = hzio::DType::Parse(kFields[f].dtype);
  const hzio::Grid g = DenseGridOf(offset, count);
  std::vector<uint8_t> out(static_cast<size_t>(dtype.BytesFor(g.NumSamples())));
  void* targets[1] = {out.data()};
  const hzio_status s = hzio_reader_read(r, kFields[f].name, t, HZIO_FULL_RESOLUTION, 1, offset, count, targets);
  EXPECT_EQ(s, HZIO_OK) << hzio_last_error();
  return s == HZIO_OK ? hzio::FirstSyntheticMismatch(dtype, f, t, g, out.data()) : 0;
}

// Writes the formula's samples with the serial writer, each field and timestep in two z slabs.
void WriteDataset(const std::string& path, hzio_desc* desc, int flags = 0) {
  hzio_writer* w = nullptr;
  ASSERT_HZIO_OK(hzio_writer_create(path.c_str(), desc, flags, &w));
  std::vector<std::vector<uint8_t>> buffers;  // alive until the write
  for (int64_t t = 0; t < 2; ++t)
    for (int f = 0; f < 3; ++f)
      for (int64_t z0 : {int64_t{0}, int64_t{4}}) {
        const int64_t offset[3] = {0, 0, z0}, count[3] = {20, 17, z0 == 0 ? 4 : 5};
        const hzio::DType dtype = hzio::DType::Parse(kFields[f].dtype);
        const hzio::Grid g = DenseGridOf(offset, count);
        buffers.emplace_back(static_cast<size_t>(dtype.BytesFor(g.NumSamples())));
        hzio::FillSynthetic(dtype, f, t, g, buffers.back().data());
        ASSERT_HZIO_OK(hzio_writer_add(w, kFields[f].name, t, offset, count, buffers.back().data()));
      }
  ASSERT_HZIO_OK(hzio_writer_write(w));
  hzio_io_stats stats{};
  ASSERT_HZIO_OK(hzio_writer_get_stats(w, &stats));
  EXPECT_EQ(stats.data_bytes, 2 * 20 * 17 * 9 * (8 + 12 + 1));
  EXPECT_EQ(stats.aggregators, 1);
  ASSERT_HZIO_OK(hzio_writer_free(w));
}

TEST(CApiStatus, NamesFollowErrorCodes) {
  EXPECT_STREQ(hzio_status_name(HZIO_OK), "ok");
  for (int code = 0; code <= static_cast<int>(hzio::ErrorCode::kInternal); ++code)
    EXPECT_EQ(std::string(hzio_status_name(code + 1)), hzio::ErrorCodeName(static_cast<hzio::ErrorCode>(code)));
  EXPECT_STREQ(hzio_status_name(HZIO_ERR_LOCKED), "locked");
  EXPECT_STREQ(hzio_status_name(HZIO_ERR_INTERNAL), "internal");
  EXPECT_STREQ(hzio_status_name(HZIO_ERR_INTERNAL + 1), "unknown");
  EXPECT_STREQ(hzio_status_name(-1), "unknown");
  EXPECT_STREQ(hzio_version(), "0.1.0");
}

TEST(CApiDesc, DescribesWhatWasDeclared) {
  hzio_desc* d = MakeDesc();
  ASSERT_HZIO_OK(hzio_desc_set_compression(d, nullptr, "zip"));
  ASSERT_HZIO_OK(hzio_desc_set_compression(d, "mask", "lz4"));
  ASSERT_HZIO_OK(hzio_desc_set_blocks_per_file(d, 4));
  int ndims = 0, maxh = 0, bits = 0, nfields = 0, index = -1, components = 0;
  int64_t size[HZIO_MAX_DIMS] = {}, blocks = 0, sample_bytes = 0;
  ASSERT_HZIO_OK(hzio_desc_get_dims(d, &ndims, size));
  EXPECT_EQ(ndims, 3);
  EXPECT_EQ(size[0], 20);
  EXPECT_EQ(size[1], 17);
  EXPECT_EQ(size[2], 9);
  ASSERT_HZIO_OK(hzio_desc_get_maxh(d, &maxh));
  EXPECT_EQ(maxh, 5 + 5 + 4);  // padded to 32x32x16
  ASSERT_HZIO_OK(hzio_desc_get_bits_per_block(d, &bits));
  EXPECT_EQ(bits, 8);
  ASSERT_HZIO_OK(hzio_desc_get_blocks_per_file(d, &blocks));
  EXPECT_EQ(blocks, 4);
  ASSERT_HZIO_OK(hzio_desc_get_num_fields(d, &nfields));
  EXPECT_EQ(nfields, 3);
  ASSERT_HZIO_OK(hzio_desc_get_field_index(d, "velocity", &index));
  EXPECT_EQ(index, 1);
  const char *name = nullptr, *dtype = nullptr, *compression = nullptr;
  ASSERT_HZIO_OK(hzio_desc_get_field(d, 1, &name, &dtype, &components, &sample_bytes));
  EXPECT_STREQ(name, "velocity");
  EXPECT_STREQ(dtype, "float32[3]");
  EXPECT_EQ(components, 3);
  EXPECT_EQ(sample_bytes, 12);
  ASSERT_HZIO_OK(hzio_desc_get_field(d, 0, nullptr, nullptr, nullptr, nullptr));
  ASSERT_HZIO_OK(hzio_desc_get_field_compression(d, 0, &compression));
  EXPECT_STREQ(compression, "zip");
  ASSERT_HZIO_OK(hzio_desc_get_field_compression(d, 2, &compression));
  EXPECT_STREQ(compression, "lz4");
  // A field added later takes the dataset-wide codec.
  ASSERT_HZIO_OK(hzio_desc_add_field(d, "later", "int16"));
  ASSERT_HZIO_OK(hzio_desc_get_field_compression(d, 3, &compression));
  EXPECT_STREQ(compression, "zip");
  int64_t times[4] = {-7, -7, -7, -7}, count = 0;
  ASSERT_HZIO_OK(hzio_desc_get_timesteps(d, 4, times, &count));
  EXPECT_EQ(count, 2);
  EXPECT_EQ(times[0], 0);
  EXPECT_EQ(times[1], 1);
  EXPECT_EQ(times[2], -7);
  ASSERT_HZIO_OK(hzio_desc_get_timesteps(d, 0, nullptr, &count));
  EXPECT_EQ(count, 2);
  ASSERT_HZIO_OK(hzio_desc_free(d));
  ASSERT_HZIO_OK(hzio_desc_free(nullptr));
}

TEST(CApiDesc, BadInputNamesTheProblem) {
  hzio_desc* d = nullptr;
  const int64_t zero[2] = {8, 0}, one[1] = {1};
  EXPECT_HZIO_STATUS(hzio_desc_create(0, kSize, &d), HZIO_ERR_INVALID_ARGUMENT, "hzio_desc_create: ndims 0 is outside 1..5");
  EXPECT_HZIO_STATUS(hzio_desc_create(2, zero, &d), HZIO_ERR_INVALID_ARGUMENT, "size 0 of axis 1");
  EXPECT_HZIO_STATUS(hzio_desc_create(1, one, &d), HZIO_ERR_INVALID_ARGUMENT, "single-sample");
  EXPECT_HZIO_STATUS(hzio_desc_create(3, nullptr, &d), HZIO_ERR_INVALID_ARGUMENT, "size is NULL");
  EXPECT_EQ(d, nullptr);  // outputs are written only on success

  d = MakeDesc();
  EXPECT_HZIO_STATUS(hzio_desc_add_field(d, "pressure", "float32"), HZIO_ERR_INVALID_ARGUMENT, "'pressure' exists already");
  EXPECT_HZIO_STATUS(hzio_desc_add_field(d, "t", "float65"), HZIO_ERR_INVALID_ARGUMENT, "float65");
  EXPECT_HZIO_STATUS(hzio_desc_add_field(d, "a b", "float32"), HZIO_ERR_INVALID_ARGUMENT, "has a character the header cannot hold");
  EXPECT_HZIO_STATUS(hzio_desc_add_field(d, nullptr, "float32"), HZIO_ERR_INVALID_ARGUMENT, "hzio_desc_add_field: name is NULL");
  EXPECT_HZIO_STATUS(hzio_desc_add_field(nullptr, "x", "float32"), HZIO_ERR_INVALID_ARGUMENT, "desc is NULL");
  EXPECT_HZIO_STATUS(hzio_desc_set_compression(d, nullptr, "zpi"), HZIO_ERR_INVALID_ARGUMENT, "unknown compression 'zpi'");
  EXPECT_HZIO_STATUS(hzio_desc_set_compression(d, "nope", "zip"), HZIO_ERR_NOT_FOUND, "unknown field 'nope' (fields: pressure, velocity, mask)");
  EXPECT_HZIO_STATUS(hzio_desc_set_layout(d, nullptr, 7), HZIO_ERR_INVALID_ARGUMENT, "layout 7");
  EXPECT_HZIO_STATUS(hzio_desc_set_timesteps(d, 3, 2), HZIO_ERR_INVALID_ARGUMENT, "timesteps 3..2 are empty");
  EXPECT_HZIO_STATUS(hzio_desc_set_bits_per_block(d, -1), HZIO_ERR_INVALID_ARGUMENT, "bits per block -1");
  EXPECT_HZIO_STATUS(hzio_desc_set_blocks_per_file(d, -2), HZIO_ERR_INVALID_ARGUMENT, "(blocksperfile) -2 is invalid");
  int index = 5;
  EXPECT_HZIO_STATUS(hzio_desc_get_field_index(d, "temperature", &index), HZIO_ERR_NOT_FOUND, "unknown field 'temperature'");
  EXPECT_EQ(index, 5);
  EXPECT_HZIO_STATUS(hzio_desc_get_field(d, 3, nullptr, nullptr, nullptr, nullptr), HZIO_ERR_NOT_FOUND,
                    "field index 3 is outside 0..2");
  // A failed change leaves the description as it was.
  int nfields = 0;
  ASSERT_HZIO_OK(hzio_desc_get_num_fields(d, &nfields));
  EXPECT_EQ(nfields, 3);
  ASSERT_HZIO_OK(hzio_desc_free(d));
}

TEST(CApiSerial, RoundTripAtEveryLevel) {
  TempDir dir;
  const std::string path = dir.File("run/sim.idx");
  hzio_desc* desc = MakeDesc();
  ASSERT_HZIO_OK(hzio_desc_set_compression(desc, "pressure", "zip"));
  ASSERT_HZIO_OK(hzio_desc_set_layout(desc, "mask", HZIO_LAYOUT_ROW_MAJOR));
  WriteDataset(path, desc);
  ASSERT_HZIO_OK(hzio_desc_free(desc));

  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open(path.c_str(), 0, &r));
  const hzio_desc* rd = nullptr;
  ASSERT_HZIO_OK(hzio_reader_get_desc(r, &rd));
  int maxh = 0;
  ASSERT_HZIO_OK(hzio_desc_get_maxh(rd, &maxh));
  const char* compression = nullptr;
  ASSERT_HZIO_OK(hzio_desc_get_field_compression(rd, 0, &compression));
  EXPECT_STREQ(compression, "zip");
  // A box sticking out of the dataset is clipped to it.
  const int64_t offset[3] = {3, 2, 1}, count[3] = {30, 12, 8};
  for (int level = 0; level <= maxh; ++level)
    for (int64_t t = 0; t < 2; ++t)
      for (int f = 0; f < 3; ++f) {
        int64_t origin[3], stride[3], n[3];
        ASSERT_HZIO_OK(hzio_reader_query_grid(r, offset, count, level, origin, stride, n));
        const hzio::Grid g{hzio::Point{origin[0], origin[1], origin[2]}, hzio::Point{stride[0], stride[1], stride[2]},
                           hzio::Point{n[0], n[1], n[2]}};
        const hzio::DType dtype = hzio::DType::Parse(kFields[f].dtype);
        std::vector<uint8_t> out(static_cast<size_t>(dtype.BytesFor(g.NumSamples())) + 1, 0xEE);
        void* targets[1] = {g.NumSamples() > 0 ? out.data() : nullptr};
        ASSERT_HZIO_OK(hzio_reader_read(r, kFields[f].name, t, level, 1, offset, count, targets));
        if (g.NumSamples() == 0) continue;
        EXPECT_EQ(hzio::FirstSyntheticMismatch(dtype, f, t, g, out.data()), -1)
            << kFields[f].name << " t=" << t << " level " << level;
        EXPECT_EQ(out.back(), 0xEE) << "wrote past the result";
      }
  // Full resolution of the clipped box: 17 x 12 x 8 samples.
  int64_t n[3];
  ASSERT_HZIO_OK(hzio_reader_query_grid(r, offset, count, HZIO_FULL_RESOLUTION, nullptr, nullptr, n));
  EXPECT_EQ(n[0], 17);
  EXPECT_EQ(n[1], 12);
  EXPECT_EQ(n[2], 8);
  hzio_io_stats stats{};
  ASSERT_HZIO_OK(hzio_reader_get_stats(r, &stats));
  EXPECT_GT(stats.data_bytes, 0);
  ASSERT_HZIO_OK(hzio_reader_free(r));
}

TEST(CApiSerial, SeveralFieldsAndBoxesInOneRead) {
  TempDir dir;
  const std::string path = dir.File("sim.idx");
  hzio_desc* desc = MakeDesc();
  WriteDataset(path, desc);
  ASSERT_HZIO_OK(hzio_desc_free(desc));
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open(path.c_str(), 0, &r));
  const int64_t offsets[6] = {0, 0, 0, 10, 5, 3}, counts[6] = {10, 17, 9, 10, 12, 6};
  const char* names[2] = {"velocity", "pressure"};
  const hzio::DType dtypes[2] = {hzio::DType::Parse("float32[3]"), hzio::DType::Parse("float64")};
  const int field_index[2] = {1, 0};
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<void*> out;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i) {
      buffers.emplace_back(static_cast<size_t>(dtypes[k].BytesFor(counts[3 * i] * counts[3 * i + 1] * counts[3 * i + 2])));
      out.push_back(buffers.back().data());
    }
  ASSERT_HZIO_OK(hzio_reader_read_fields(r, 2, names, 1, HZIO_FULL_RESOLUTION, 2, offsets, counts, out.data()));
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(hzio::FirstSyntheticMismatch(dtypes[k], field_index[k], 1, DenseGridOf(offsets + 3 * i, counts + 3 * i),
                                                  buffers[static_cast<size_t>(2 * k + i)].data()),
                -1)
          << names[k] << " box " << i;
  ASSERT_HZIO_OK(hzio_reader_free(r));
}

TEST(CApiSerial, ArraysWithAShape) {
  TempDir dir;
  const std::string path = dir.File("arrays.idx");
  hzio_desc* desc = MakeDesc();
  hzio_writer* w = nullptr;
  ASSERT_HZIO_OK(hzio_writer_create(path.c_str(), desc, 0, &w));
  const int64_t offset[3] = {0, 0, 0}, scalar_shape[3] = {20, 17, 9}, vector_shape[4] = {3, 20, 17, 9},
                mask_shape[4] = {1, 20, 17, 9};
  const hzio::Grid all = DenseGridOf(offset, scalar_shape);
  std::vector<std::vector<uint8_t>> buffers;
  for (int t = 0; t < 2; ++t)
    for (int f = 0; f < 3; ++f) {
      const hzio::DType dtype = hzio::DType::Parse(kFields[f].dtype);
      buffers.emplace_back(static_cast<size_t>(dtype.BytesFor(all.NumSamples())));
      hzio::FillSynthetic(dtype, f, t, all, buffers.back().data());
      const bool vector = f == 1;
      // The vector field as 4-byte components (a leading axis of 3) at t=0, as 12-byte samples at
      // t=1; the scalar mask with a leading axis of 1 at t=1.
      const int element = vector && t == 1 ? 12 : static_cast<int>(dtype.bits() / 8);
      const bool leading = (vector && t == 0) || (f == 2 && t == 1);
      ASSERT_HZIO_OK(hzio_writer_add_array(w, kFields[f].name, t, offset, leading ? 4 : 3,
                                           leading ? (vector ? vector_shape : mask_shape) : scalar_shape, element,
                                           buffers.back().data()));
    }
  // Shapes and element sizes that do not fit the field.
  EXPECT_HZIO_STATUS(hzio_writer_add_array(w, "velocity", 0, offset, 3, scalar_shape, 4, buffers[0].data()),
                    HZIO_ERR_INVALID_ARGUMENT, "it needs rank 4 (components first)");
  const int64_t two_components[4] = {2, 20, 17, 9};
  EXPECT_HZIO_STATUS(hzio_writer_add_array(w, "velocity", 0, offset, 4, two_components, 4, buffers[0].data()),
                    HZIO_ERR_INVALID_ARGUMENT, "is 2, not its 3 components");
  EXPECT_HZIO_STATUS(hzio_writer_add_array(w, "pressure", 0, offset, 3, scalar_shape, 4, buffers[0].data()),
                    HZIO_ERR_INVALID_ARGUMENT, "array elements of 4 bytes do not hold field 'pressure' (float64");
  ASSERT_HZIO_OK(hzio_writer_write(w));
  ASSERT_HZIO_OK(hzio_writer_free(w));
  ASSERT_HZIO_OK(hzio_desc_free(desc));

  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open(path.c_str(), 0, &r));
  const hzio::DType vec = hzio::DType::Parse("float32[3]");
  for (int t = 0; t < 2; ++t) {
    std::vector<uint8_t> out(static_cast<size_t>(vec.BytesFor(all.NumSamples())));
    ASSERT_HZIO_OK(hzio_reader_read_array(r, "velocity", t, HZIO_FULL_RESOLUTION, offset, scalar_shape,
                                          3 * all.NumSamples(), 4, out.data()));
    EXPECT_EQ(hzio::FirstSyntheticMismatch(vec, 1, t, all, out.data()), -1) << "t=" << t;
  }
  for (int t = 0; t < 2; ++t) EXPECT_EQ(ReadAndCompare(r, 2, t, offset, scalar_shape), -1) << "mask t=" << t;
  std::vector<uint8_t> out(static_cast<size_t>(vec.BytesFor(all.NumSamples())));
  EXPECT_HZIO_STATUS(hzio_reader_read_array(r, "velocity", 0, HZIO_FULL_RESOLUTION, offset, scalar_shape,
                                           all.NumSamples(), 4, out.data()),
                    HZIO_ERR_INVALID_ARGUMENT, "an array of 3060 elements for 3060 samples of field 'velocity' (float32[3]); it needs 9180");
  EXPECT_HZIO_STATUS(hzio_reader_read_array(r, "velocity", 0, HZIO_FULL_RESOLUTION, offset, scalar_shape,
                                           all.NumSamples(), 8, out.data()),
                    HZIO_ERR_INVALID_ARGUMENT, "array elements of 8 bytes");
  ASSERT_HZIO_OK(hzio_reader_free(r));
}

TEST(CApiSerial, UpdateAddsTimestepsToAnExistingDataset) {
  TempDir dir;
  const std::string path = dir.File("update.idx");
  hzio_desc* desc = MakeDesc();
  const int64_t offset[3] = {0, 0, 0};
  const hzio::Grid all = DenseGridOf(offset, kSize);
  const hzio::DType f64 = hzio::DType::Parse("float64");
  for (int64_t t = 0; t < 2; ++t) {
    hzio_writer* w = nullptr;
    // The second writer needs HZIO_UPDATE: the dataset exists after the first.
    if (t == 1) EXPECT_HZIO_STATUS(hzio_writer_create(path.c_str(), desc, 0, &w), HZIO_ERR_INVALID_ARGUMENT, "already exists");
    ASSERT_HZIO_OK(hzio_writer_create(path.c_str(), desc, t == 0 ? HZIO_SYNC : HZIO_UPDATE, &w));
    std::vector<uint8_t> data(static_cast<size_t>(f64.BytesFor(all.NumSamples())));
    hzio::FillSynthetic(f64, 0, t, all, data.data());
    ASSERT_HZIO_OK(hzio_writer_add(w, "pressure", t, offset, kSize, data.data()));
    ASSERT_HZIO_OK(hzio_writer_write(w));
    ASSERT_HZIO_OK(hzio_writer_free(w));
  }
  ASSERT_HZIO_OK(hzio_desc_free(desc));
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open(path.c_str(), 0, &r));
  for (int64_t t = 0; t < 2; ++t) EXPECT_EQ(ReadAndCompare(r, 0, t, offset, kSize), -1) << "t=" << t;
  ASSERT_HZIO_OK(hzio_reader_free(r));
}

TEST(CApiSerial, WriterRefusesBadInput) {
  TempDir dir;
  const std::string path = dir.File("bad.idx");
  hzio_desc* desc = MakeDesc();
  hzio_writer* w = nullptr;
  EXPECT_HZIO_STATUS(hzio_writer_create(path.c_str(), desc, HZIO_OVERWRITE, &w), HZIO_ERR_INVALID_ARGUMENT,
                    "HZIO_OVERWRITE cannot be given to a serial writer");
  EXPECT_HZIO_STATUS(hzio_writer_create(path.c_str(), desc, 64, &w), HZIO_ERR_INVALID_ARGUMENT, "unknown bits 64");
  EXPECT_HZIO_STATUS(hzio_writer_create(nullptr, desc, 0, &w), HZIO_ERR_INVALID_ARGUMENT, "path is NULL");
  EXPECT_EQ(w, nullptr);
  ASSERT_HZIO_OK(hzio_writer_create(path.c_str(), desc, 0, &w));
  std::vector<double> data(20 * 17 * 9, 1.0);
  const int64_t offset[3] = {0, 0, 0}, inside[3] = {20, 17, 9}, outside[3] = {21, 17, 9}, empty[3] = {20, 0, 9};
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "temperature", 0, offset, inside, data.data()), HZIO_ERR_NOT_FOUND,
                    "hzio_writer_add: unknown field 'temperature' (fields: pressure, velocity, mask)");
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 2, offset, inside, data.data()), HZIO_ERR_NOT_FOUND,
                    "timestep 2 is not declared");
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 0, offset, outside, data.data()), HZIO_ERR_OUT_OF_RANGE,
                    "box 0:21,0:17,0:9 is not inside the dataset box 0:20,0:17,0:9");
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 0, offset, empty, data.data()), HZIO_ERR_INVALID_ARGUMENT,
                    "has count 0 on axis 1; counts must be positive");
  const int64_t far[3] = {INT64_MAX - 3, 0, 0};
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 0, far, inside, data.data()), HZIO_ERR_INVALID_ARGUMENT,
                    "which overflows");
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 0, offset, inside, nullptr), HZIO_ERR_INVALID_ARGUMENT, "data is NULL");
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 0, nullptr, inside, data.data()), HZIO_ERR_INVALID_ARGUMENT,
                    "offset is NULL");
  // The description a writer lends cannot be changed or freed.
  const hzio_desc* wd = nullptr;
  ASSERT_HZIO_OK(hzio_writer_get_desc(w, &wd));
  EXPECT_HZIO_STATUS(hzio_desc_free(const_cast<hzio_desc*>(wd)), HZIO_ERR_INVALID_ARGUMENT, "belongs to a reader or writer");
  EXPECT_HZIO_STATUS(hzio_desc_add_field(const_cast<hzio_desc*>(wd), "x", "uint8"), HZIO_ERR_INVALID_ARGUMENT,
                    "cannot be changed");
  ASSERT_HZIO_OK(hzio_writer_add(w, "pressure", 0, offset, inside, data.data()));
  ASSERT_HZIO_OK(hzio_writer_write(w));
  EXPECT_HZIO_STATUS(hzio_writer_write(w), HZIO_ERR_INVALID_ARGUMENT, "written its dataset already");
  EXPECT_HZIO_STATUS(hzio_writer_add(w, "pressure", 1, offset, inside, data.data()), HZIO_ERR_INVALID_ARGUMENT,
                    "written its dataset already");
  ASSERT_HZIO_OK(hzio_writer_free(w));
  ASSERT_HZIO_OK(hzio_writer_free(nullptr));
  // The collective writer's layout restriction does not apply here: row-major is written.
  ASSERT_HZIO_OK(hzio_desc_free(desc));
}

TEST(CApiSerial, ReaderRefusesBadInput) {
  TempDir dir;
  hzio_reader* r = nullptr;
  const std::string missing = dir.File("missing.idx");
  EXPECT_HZIO_STATUS(hzio_reader_open(missing.c_str(), 0, &r), HZIO_ERR_NOT_FOUND, missing);
  EXPECT_HZIO_STATUS(hzio_reader_open(missing.c_str(), HZIO_ONE_PHASE, &r), HZIO_ERR_INVALID_ARGUMENT,
                    "HZIO_ONE_PHASE cannot be given to a serial reader");
  EXPECT_EQ(r, nullptr);

  const std::string path = dir.File("sim.idx");
  hzio_desc* desc = MakeDesc();
  WriteDataset(path, desc);
  ASSERT_HZIO_OK(hzio_desc_free(desc));
  ASSERT_HZIO_OK(hzio_reader_open(path.c_str(), 0, &r));
  std::vector<double> out(20 * 17 * 9);
  void* targets[1] = {out.data()};
  void* none[1] = {nullptr};
  const int64_t offset[3] = {0, 0, 0}, count[3] = {20, 17, 9}, bad[3] = {20, -1, 9}, away[3] = {40, 0, 0};
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "temperature", 0, HZIO_FULL_RESOLUTION, 1, offset, count, targets),
                    HZIO_ERR_NOT_FOUND, "hzio_reader_read: unknown field 'temperature'");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 1, offset, bad, targets),
                    HZIO_ERR_INVALID_ARGUMENT, "has count -1 on axis 1");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 1, away, count, targets),
                    HZIO_ERR_OUT_OF_RANGE, "box 40:60,0:17,0:9 lies outside the dataset box 0:20,0:17,0:9");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, 15, 1, offset, count, targets), HZIO_ERR_OUT_OF_RANGE,
                    "level 15 is outside 0..14");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, -2, 1, offset, count, targets), HZIO_ERR_OUT_OF_RANGE,
                    "level -2");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 7, HZIO_FULL_RESOLUTION, 1, offset, count, targets),
                    HZIO_ERR_NOT_FOUND, "timestep 7 is not declared");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 1, offset, count, none),
                    HZIO_ERR_INVALID_ARGUMENT, "out[0] is NULL");
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, -1, offset, count, targets),
                    HZIO_ERR_INVALID_ARGUMENT, "nboxes -1 is negative");
  EXPECT_HZIO_STATUS(hzio_reader_read_fields(r, 0, nullptr, 0, HZIO_FULL_RESOLUTION, 1, offset, count, targets),
                    HZIO_ERR_INVALID_ARGUMENT, "nfields 0 is not positive");
  EXPECT_HZIO_STATUS(hzio_reader_query_grid(r, away, count, 3, nullptr, nullptr, nullptr), HZIO_ERR_OUT_OF_RANGE,
                    "hzio_reader_query_grid: box 40:60,0:17,0:9 lies outside");
  // No box at all is a valid (empty) read.
  ASSERT_HZIO_OK(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 0, nullptr, nullptr, nullptr));
  ASSERT_HZIO_OK(hzio_reader_free(r));
  // Block files cut short: a reader opened afterwards fails its read with a status, never a crash.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path()))
    if (entry.path().extension() == ".bin") std::filesystem::resize_file(entry.path(), 100);
  ASSERT_HZIO_OK(hzio_reader_open(path.c_str(), 0, &r));
  EXPECT_HZIO_STATUS(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 1, offset, count, targets),
                    HZIO_ERR_CORRUPT, "hzio_reader_read: ");
  ASSERT_HZIO_OK(hzio_reader_free(r));
}

}  // namespace
