// A block file written while its bytes are still being made (storage/staged_file_write.h): each
// release writes what is final, never a byte of a piece not yet released; the finished file is
// the pieces back to back; chunks that are aligned runs of the pieces' memory go out with no copy; a
// file system without O_DIRECT gets the same bytes buffered; an unfinished write is waited for when
// it is dropped.
#include "hzio/storage/staged_file_write.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include "hzio/util/large_allocation.h"
#include "support/test_support.h"

namespace hzio {
namespace {

constexpr uint8_t kNotYetMade = 0xEE;

std::vector<uint8_t> Pattern(size_t n, int seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 7 + i / 4093 + static_cast<size_t>(seed)) % 200);
  return v;
}

// Pieces of three stages (and a table final from the start), of odd sizes, interleaved as a raw
// block file's fields are: each piece's memory holds kNotYetMade until just before its stage.
struct StagedPieces {
  std::vector<std::vector<uint8_t>> final_bytes, memory;
  std::vector<StagedSpan> spans;
  std::vector<uint8_t> file;  // the finished file
  StagedPieces() {
    const int stage_of[] = {-1, 0, 1, 2, 0, 1, 2, 2, 0};
    for (size_t i = 0; i < std::size(stage_of); ++i) {
      const size_t n = i == 0 ? 1000 : (size_t{3} << 20) + i * 77777;
      final_bytes.push_back(Pattern(n, static_cast<int>(i)));
      memory.push_back(stage_of[i] < 0 ? final_bytes.back() : std::vector<uint8_t>(n, kNotYetMade));
      spans.push_back(StagedSpan{ByteSpan{memory.back().data(), static_cast<int64_t>(n)}, stage_of[i]});
      file.insert(file.end(), final_bytes.back().begin(), final_bytes.back().end());
    }
  }
  void Make(int stage) {
    for (size_t i = 0; i < spans.size(); ++i)
      if (spans[i].stage == stage) memory[i] = final_bytes[i];
  }
};

// Whether some aligned 4 KiB block of `bytes` is kNotYetMade throughout.
bool HoldsUnmadeBytes(const std::vector<uint8_t>& bytes) {
  for (size_t at = 0; at + 4096 <= bytes.size(); at += 4096) {
    size_t k = 0;
    while (k < 4096 && bytes[at + k] == kNotYetMade) ++k;
    if (k == 4096) return true;
  }
  return false;
}

TEST(StagedFileWrite, ReleasesWriteFinalBytesOnlyAndTheFileIsThePieces) {
  testing::TempDir dir;
  const std::string path = dir.File("sub/f.bin");
  testing::WriteBytes(dir.File("sub/old"), {});  // the directory exists; the file does not
  StagedPieces p;
  StagedFileWrite write(path, p.spans, /*sync=*/true, DirectIo::kAlways);
  if (!write.direct()) GTEST_SKIP() << "the temporary directory's file system takes no O_DIRECT";
  const std::vector<uint8_t>& second = p.final_bytes[1];  // stage 0: 3 MiB from byte 1000 on
  for (int stage = 0; stage < 2; ++stage) {
    p.Make(stage);
    write.Release(stage);
    // The released bytes reach the file while nothing waits for them (direct writes),
    // and never a byte of a later stage.
    bool seen = false;
    for (int tries = 0; tries < 500 && !seen; ++tries) {
      const std::vector<uint8_t> now = testing::ReadBytes(path);
      ASSERT_FALSE(HoldsUnmadeBytes(now)) << "a piece was written before its stage, after release " << stage;
      seen = now.size() >= 1000 + second.size() &&
             std::equal(second.begin() + 4096, second.end() - 4096, now.begin() + 1000 + 4096);
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(seen) << "the first stage's bytes were not written before Finish";
  }
  p.Make(2);
  EXPECT_TRUE(write.Finish());
  ASSERT_TRUE(testing::ReadBytes(path) == p.file);
}

// Released in any order, every stage at once, or none before Finish: the same file.
TEST(StagedFileWrite, AnyOrderOfReleasesGivesTheSameFile) {
  testing::TempDir dir;
  for (const std::vector<int>& order : {std::vector<int>{2, 0, 1}, std::vector<int>{5}, std::vector<int>{}}) {
    StagedPieces p;
    for (int stage = 0; stage < 3; ++stage) p.Make(stage);
    const std::string path = dir.File("f.bin");
    testing::WriteBytes(path, std::vector<uint8_t>(size_t{40} << 20, 0xFF));  // an older, longer file
    StagedFileWrite write(path, p.spans, /*sync=*/false, DirectIo::kAlways);
    for (const int stage : order) write.Release(stage);
    write.Finish();
    ASSERT_TRUE(testing::ReadBytes(path) == p.file) << "releases " << order.size();
  }
}

// Older tmpfs takes no O_DIRECT (kernels from 6.6 on do): releases then write nothing, Finish writes
// every piece buffered. Either way the same bytes.
TEST(StagedFileWrite, FileSystemsWithoutDirectIoWriteBufferedAtFinish) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  const std::string path = "/dev/shm/hzio_staged_file_write_test_" + std::to_string(::getpid()) + ".bin";
  StagedPieces p;
  StagedFileWrite write(path, p.spans, /*sync=*/true, DirectIo::kAlways);
  p.Make(0);
  write.Release(0);
  const uintmax_t size_after_release = std::filesystem::file_size(path);
  p.Make(1);
  p.Make(2);
  const bool direct = write.direct();
  EXPECT_EQ(write.Finish(), direct);
  if (!direct) EXPECT_EQ(size_after_release, 0u) << "a buffered write wrote before Finish";
  EXPECT_TRUE(testing::ReadBytes(path) == p.file);
  std::filesystem::remove(path);
}

// A chunk that is one run of the pieces' memory, starting on an aligned address, goes out straight
// from it; any other chunk through staging. A table of 1000 bytes, then 20 MiB in two pieces
// adjacent in memory: laid out as far into a page as the table ends, the one whole chunk after the
// table's (8 MiB of them) takes no copy; a byte further on, none can; in two buffers, every
// chunk that spans both is copied. The file is the pieces either way.
TEST(StagedFileWrite, AlignedRunsOfMemoryAreWrittenWithoutACopy) {
  testing::TempDir dir;
  constexpr int64_t kTable = 1000, kFirst = (int64_t{5} << 20) + 123, kSecond = (int64_t{15} << 20) + 777;
  const std::vector<uint8_t> table = Pattern(kTable, 1), payload = Pattern(kFirst + kSecond, 2);
  std::vector<uint8_t> file = table;
  file.insert(file.end(), payload.begin(), payload.end());
  LargeAllocation memory(static_cast<size_t>(kFirst + kSecond + 2 * 4096));
  for (const int64_t lead : {kTable, kTable + 1}) {
    uint8_t* const data = memory.data() + lead;
    std::copy(payload.begin(), payload.end(), data);
    const std::string path = dir.File("lead" + std::to_string(lead));
    StagedFileWrite write(path,
                          {StagedSpan{ByteSpan{table.data(), kTable}}, StagedSpan{ByteSpan{data, kFirst}},
                           StagedSpan{ByteSpan{data + kFirst, kSecond}}},
                          /*sync=*/true, DirectIo::kAlways);
    if (!write.direct()) GTEST_SKIP() << "the temporary directory's file system takes no O_DIRECT";
    write.Finish();
    EXPECT_EQ(write.bytes_from_pieces(), lead == kTable ? int64_t{8} << 20 : 0) << "lead " << lead;
    EXPECT_TRUE(testing::ReadBytes(path) == file) << "lead " << lead;
  }
  const std::vector<uint8_t> first(payload.begin(), payload.begin() + kFirst);
  const std::vector<uint8_t> second(payload.begin() + kFirst, payload.end());
  StagedFileWrite apart(dir.File("apart"),
                        {StagedSpan{ByteSpan{table.data(), kTable}}, StagedSpan{ByteSpan{first.data(), kFirst}},
                         StagedSpan{ByteSpan{second.data(), kSecond}}},
                        /*sync=*/false, DirectIo::kAlways);
  apart.Finish();
  EXPECT_EQ(apart.bytes_from_pieces(), 0);
  EXPECT_TRUE(testing::ReadBytes(dir.File("apart")) == file);
}

// A write left unfinished (its caller failed) waits for its writes in flight when dropped: they
// use its descriptor, which the next file opened takes over, and the caller's memory.
TEST(StagedFileWrite, AnUnfinishedWriteWaitsForItsWritesWhenDropped) {
  testing::TempDir dir;
  for (int i = 0; i < 5; ++i) {
    StagedPieces p;
    for (int stage = 0; stage < 3; ++stage) p.Make(stage);
    {
      StagedFileWrite write(dir.File("f.bin"), p.spans, /*sync=*/false, DirectIo::kAlways);
      write.Release(2);
    }
    const std::string other = dir.File("other" + std::to_string(i));
    ScopedFd fd(::open(other.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd.valid());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(std::filesystem::file_size(other), 0u) << "a write of the dropped file landed in the next one";
  }
}

}  // namespace
}  // namespace hzio
