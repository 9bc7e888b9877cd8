/// The test-support library every C++ test links (tests/support/): temporary directories, paths
/// of the golden datasets OpenVisus wrote (../shared/testdata/idx-golden), small dataset
/// fixtures, file helpers (page-cache eviction among them), and assertions that an hzio::Error has
/// a given code and message.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "hzio/util/error.h"

namespace hzio::testing {

/// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A file or folder of the golden datasets, e.g. GoldenPath("rgb_hz_raw/visus.idx").
std::string GoldenPath(const std::string& rel);

std::vector<uint8_t> ReadBytes(const std::string& path);
std::string ReadText(const std::string& path);
void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes);
/// Flushes `path` to the disk and drops it from the page cache (fdatasync, POSIX_FADV_DONTNEED);
/// true when none of its pages stayed cached (false where eviction has no effect, e.g. tmpfs). A
/// call that fails (open, fdatasync, posix_fadvise) fails the running test.
bool EvictFileFromPageCache(const std::string& path);

/// Copies golden dataset folder `name` (e.g. "lz") into `dir` so that a test may damage it;
/// returns the copy's visus.idx.
std::string CopyGolden(const TempDir& dir, const std::string& name);

/// Writes golden dataset `idx_rel` (e.g. "lz/visus.idx") again as an ARCO dataset (idx-format.md
/// §4.12) `name`.idx in `dir`: the same header with `(arco)` = its block's bytes (so the same
/// bitsperblock), every stored block payload copied as it is to its ARCO file. Returns the .idx.
std::string ArcoCopyOfGolden(const TempDir& dir, const std::string& idx_rel, const std::string& name);

/// design.md §4 for float dtypes, field 0, component 0.
float SyntheticValue(int64_t x, int64_t y, int64_t z, int64_t t);

/// How WriteSyntheticDataset lays the data out.
struct SyntheticLayout {
  int64_t times = 1;
  std::string name = "synthetic.idx";
  std::string field = "v float32 default_compression(lz4)";  // a `(fields)` piece of a float32 field
  int bits_per_block = 9;
  int64_t blocks_per_file = 0;  // 0: the default
};

/// Writes an nx*ny*nz float32 dataset holding SyntheticValue through hzio's writer; returns the
/// .idx path (`layout.name` inside `dir`).
std::string WriteSyntheticDataset(const TempDir& dir, int64_t nx, int64_t ny, int64_t nz,
                                  const SyntheticLayout& layout);
/// The same with `times` timesteps of "v" (lz4, bitsperblock 9).
std::string WriteSyntheticDataset(const TempDir& dir, int64_t nx, int64_t ny, int64_t nz, int64_t times = 1);

/// Passes when `fn` throws hzio::Error with `code` and a message containing every one of `parts`.
::testing::AssertionResult ThrowsError(const std::function<void()>& fn, ErrorCode code,
                                       std::initializer_list<std::string> parts);

/// Passes when `error` holds an hzio::Error with `code` and every one of `parts` in its message.
::testing::AssertionResult IsError(const std::exception_ptr& error, ErrorCode code,
                                   std::initializer_list<std::string> parts);

}  // namespace hzio::testing

/// EXPECT_HZIO_ERROR(statement, ErrorCode::kX, "part", ...): the statement throws that error.
#define EXPECT_HZIO_ERROR(statement, code, ...) \
  EXPECT_TRUE(::hzio::testing::ThrowsError([&] { statement; }, code, {__VA_ARGS__}))
#define ASSERT_HZIO_ERROR(statement, code, ...) \
  ASSERT_TRUE(::hzio::testing::ThrowsError([&] { statement; }, code, {__VA_ARGS__}))
