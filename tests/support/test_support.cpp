#include "support/test_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>

#include "hzio/access/arco_parts.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/format/arco_block_path.h"
#include "hzio/format/idx_header.h"
#include "hzio/storage/file.h"

namespace hzio::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() / ("hzio_test_" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string GoldenPath(const std::string& rel) { return std::string(HZIO_GOLDEN_DIR) + "/" + rel; }

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool EvictFileFromPageCache(const std::string& path) {
  // A failing call is the test's failure; pages the file system keeps (tmpfs) are only a "false".
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    ADD_FAILURE() << "open " << path << ": " << std::strerror(errno);
    return false;
  }
  const bool synced = ::fdatasync(fd) == 0;
  EXPECT_TRUE(synced) << "fdatasync " << path << ": " << std::strerror(errno);
  const int advice = synced ? ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) : -1;  // returns the error itself
  EXPECT_EQ(advice, 0) << "posix_fadvise(DONTNEED) " << path;
  ::close(fd);
  const std::shared_ptr<ReadFile> f = ReadFile::OpenIfExists(path);
  return synced && advice == 0 && f && f->CachedBytes({{0, f->size()}}) == 0;
}

std::string CopyGolden(const TempDir& dir, const std::string& name) {
  fs::copy(GoldenPath(name), dir.path() / name, fs::copy_options::recursive);
  return (dir.path() / name / "visus.idx").string();
}

std::string ArcoCopyOfGolden(const TempDir& dir, const std::string& idx_rel, const std::string& name) {
  std::shared_ptr<BlockSource> classic = OpenDataset(GoldenPath(idx_rel))->block_source();
  IdxHeader h = classic->header();
  int64_t max_sample = 1;
  for (const Field& f : h.fields) max_sample = std::max(max_sample, f.dtype.BytesFor(1));
  h.arco = (int64_t{1} << h.bits_per_block) * max_sample;
  h.blocks_per_file = 1;
  const std::string idx = dir.File(name + ".idx");
  std::ofstream(idx, std::ios::binary) << h.ToText();
  const std::string root = ArcoRoot(idx);
  for (int f = 0; f < static_cast<int>(h.fields.size()); ++f) {
    const Codec codec = CodecSpec::Parse(h.fields[static_cast<size_t>(f)].compression).codec;
    for (int64_t t : h.time.List()) {
      std::vector<BlockKey> keys;
      for (uint64_t b = 0; b < classic->layout().total_blocks(); ++b) keys.push_back(BlockKey{f, t, b});
      std::mutex mu;  // the sink may run on several threads
      std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
      classic->Fetch(keys, [&](size_t i, EncodedBlock&& block) {
        if (!block.present) return;
        // ARCO has no per-block codec or layout: the copy is only faithful when they are the field's.
        Check(block.codec == codec && block.row_major == !h.fields[static_cast<size_t>(f)].hz_layout,
              ErrorCode::kInternal, block.where + ": not stored with its field's default codec and layout");
        const std::string path = ArcoBlockPath(root, t, h.fields[static_cast<size_t>(f)].name, keys[i].block);
        std::lock_guard<std::mutex> lock(mu);
        files.emplace_back(path, std::vector<uint8_t>(block.data, block.data + block.size));
      });
      for (const auto& [path, bytes] : files) {
        fs::create_directories(fs::path(path).parent_path());
        WriteBytes(path, bytes);
      }
    }
  }
  return idx;
}

float SyntheticValue(int64_t x, int64_t y, int64_t z, int64_t t) {
  return static_cast<float>(static_cast<double>(x + 1000 * y + 1000000 * z) + 1e9 * static_cast<double>(t));
}

std::string WriteSyntheticDataset(const TempDir& dir, int64_t nx, int64_t ny, int64_t nz, int64_t times) {
  SyntheticLayout layout;
  layout.times = times;
  return WriteSyntheticDataset(dir, nx, ny, nz, layout);
}

std::string WriteSyntheticDataset(const TempDir& dir, int64_t nx, int64_t ny, int64_t nz,
                                  const SyntheticLayout& layout) {
  const std::string idx = dir.File(layout.name);
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{nx, ny, nz}};
  h.fields.push_back(Field::Parse(layout.field, 6));
  if (layout.times > 1) h.time = TimeSpec::Range(0, layout.times - 1, "time_%02d/");
  h.bits_per_block = layout.bits_per_block;
  h.blocks_per_file = layout.blocks_per_file;
  CreateEmptyDataset(idx, h);
  for (int64_t t = 0; t < layout.times; ++t) {
    WriterOptions options;
    options.allow_existing = true;
    DatasetWriter w(idx, h, options);
    std::vector<float> a(static_cast<size_t>(nx * ny * nz));
    for (int64_t z = 0; z < nz; ++z)
      for (int64_t y = 0; y < ny; ++y)
        for (int64_t x = 0; x < nx; ++x) a[static_cast<size_t>(x + nx * (y + ny * z))] = SyntheticValue(x, y, z, t);
    w.Write(0, t, h.box, reinterpret_cast<const uint8_t*>(a.data()));
    w.Finish();
  }
  return idx;
}

::testing::AssertionResult IsError(const std::exception_ptr& error, ErrorCode code,
                                   std::initializer_list<std::string> parts) {
  if (!error) return ::testing::AssertionFailure() << "no error";
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    const std::string what = e.what();
    if (e.code() != code)
      return ::testing::AssertionFailure() << "error code " << ErrorCodeName(e.code()) << ", expected "
                                           << ErrorCodeName(code) << ": " << what;
    for (const std::string& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks '" << p << "': " << what;
    return ::testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not an hzio::Error: " << e.what();
  }
}

::testing::AssertionResult ThrowsError(const std::function<void()>& fn, ErrorCode code,
                                       std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (...) {
    return IsError(std::current_exception(), code, parts);
  }
  return ::testing::AssertionFailure() << "no error was thrown";
}

}  // namespace hzio::testing
