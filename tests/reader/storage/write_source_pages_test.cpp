// MapWriteSourcePages (storage/write_source_pages.h): a buffered write's source pages are mapped
// into the process before the write, so a write from a shared window that other processes filled
// lands in the page cache in large folios, as the same bytes written from private memory do; a
// WriteSourceMap maps each page of its shared regions once.
#include "hzio/storage/write_source_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "hzio/storage/durable_file.h"
#include "support/test_support.h"

namespace hzio {
namespace {

constexpr size_t kPage = 4096;

// A memory file filled through one mapping and then mapped afresh: the new mapping's pages are
// in memory but not in this process's page tables, as a node-shared window's pages that another
// rank wrote are.
class UnmappedSharedBuffer {
 public:
  explicit UnmappedSharedBuffer(size_t bytes) : bytes_(bytes) {
    fd_ = ::memfd_create("hzio-window", 0);
    if (fd_ < 0 || ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) return;
    void* fill = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (fill == MAP_FAILED) return;
    for (size_t i = 0; i < bytes; ++i) static_cast<uint8_t*>(fill)[i] = static_cast<uint8_t>(i * 131 + (i >> 12));
    ::munmap(fill, bytes);
    void* fresh = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd_, 0);
    if (fresh != MAP_FAILED) data_ = static_cast<uint8_t*>(fresh);
  }
  ~UnmappedSharedBuffer() {
    if (data_) ::munmap(data_, bytes_);
    if (fd_ >= 0) ::close(fd_);
  }
  UnmappedSharedBuffer(const UnmappedSharedBuffer&) = delete;
  UnmappedSharedBuffer& operator=(const UnmappedSharedBuffer&) = delete;
  const uint8_t* data() const { return data_; }

 private:
  size_t bytes_;
  int fd_ = -1;
  uint8_t* data_ = nullptr;
};

// /proc/self/pagemap entries of the pages of [data, data + bytes); empty when it cannot be read.
std::vector<uint64_t> PageMapEntries(const void* data, size_t bytes) {
  std::vector<uint64_t> entries(bytes / kPage);
  FILE* f = std::fopen("/proc/self/pagemap", "rb");
  if (!f) return {};
  const bool ok = std::fseek(f, static_cast<long>(reinterpret_cast<uintptr_t>(data) / kPage * 8), SEEK_SET) == 0 &&
                  std::fread(entries.data(), 8, entries.size(), f) == entries.size();
  std::fclose(f);
  return ok ? entries : std::vector<uint64_t>{};
}

size_t PresentPages(const void* data, size_t bytes) {
  size_t present = 0;
  for (const uint64_t e : PageMapEntries(data, bytes)) present += (e >> 63) & 1;
  return present;
}

// How many of a file's pages sit in the page cache as single pages (not part of a large folio),
// from /proc/kpageflags; -1 where this process may not read it (page frames need CAP_SYS_ADMIN).
int64_t SinglePagesInCache(const std::string& path, size_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  volatile uint8_t sink = 0;
  for (size_t p = 0; p < bytes; p += kPage) sink = sink + static_cast<const uint8_t*>(map)[p];  // map the cached pages
  const std::vector<uint64_t> entries = PageMapEntries(map, bytes);
  int64_t single = -1;
  if (FILE* flags = std::fopen("/proc/kpageflags", "rb"); flags && !entries.empty()) {
    single = 0;
    for (const uint64_t e : entries) {
      const uint64_t frame = e & ((uint64_t{1} << 55) - 1);
      uint64_t k = 0;
      if (frame == 0 || std::fseek(flags, static_cast<long>(frame * 8), SEEK_SET) != 0 || std::fread(&k, 8, 1, flags) != 1) {
        single = -1;
        break;
      }
      constexpr uint64_t kCompoundHead = uint64_t{1} << 15, kCompoundTail = uint64_t{1} << 16;
      if ((k & (kCompoundHead | kCompoundTail)) == 0) ++single;
    }
    std::fclose(flags);
  }
  ::munmap(map, bytes);
  return single;
}

TEST(WriteSourcePages, MapsTheSourceOfABufferedWrite) {
  constexpr size_t kPages = 512;
  UnmappedSharedBuffer window(kPages * kPage);
  ASSERT_NE(window.data(), nullptr);
  if (PageMapEntries(window.data(), kPages * kPage).empty()) GTEST_SKIP() << "no /proc/self/pagemap";
  ASSERT_EQ(PresentPages(window.data(), kPages * kPage), 0u) << "a fresh shared mapping starts without page-table entries";
  testing::TempDir dir;
  ScopedFd fd(::open(dir.File("f.bin").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_TRUE(fd.valid());
  // Two buffers of the window and one byte further on: every page they touch (the kernel may map
  // neighbours too: its fault-around).
  uint8_t* const w = const_cast<uint8_t*>(window.data());
  const iovec iov[] = {{w + 100, 256 * kPage}, {w + 256 * kPage + 100, kPage}, {w + 400 * kPage + 7, 1}};
  MapWriteSourcePages(fd.get(), iov, 3);
  EXPECT_EQ(PresentPages(window.data(), 258 * kPage), 258u) << "pages 0-257, touched by the first two buffers";
  EXPECT_EQ(PresentPages(window.data() + 400 * kPage, kPage), 1u);
}

TEST(WriteSourcePages, LeavesSmallWritesAndDirectWritesToTheKernel) {
  constexpr size_t kBytes = size_t{2} << 20;
  UnmappedSharedBuffer window(kBytes);
  ASSERT_NE(window.data(), nullptr);
  if (PageMapEntries(window.data(), kBytes).empty()) GTEST_SKIP() << "no /proc/self/pagemap";
  testing::TempDir dir;
  ScopedFd buffered(::open(dir.File("small.bin").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_TRUE(buffered.valid());
  MapWriteSourcePages(buffered.get(), window.data(), 255 * kPage);
  EXPECT_EQ(PresentPages(window.data(), kBytes), 0u) << "below 1 MiB: two system calls for nothing";
  ScopedFd direct(::open(dir.File("direct.bin").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_DIRECT, 0644));
  if (!direct.valid()) GTEST_SKIP() << "this file system refuses O_DIRECT";
  MapWriteSourcePages(direct.get(), window.data(), kBytes);
  EXPECT_EQ(PresentPages(window.data(), kBytes), 0u) << "O_DIRECT pins the pages itself: no work done twice";
}

// A writer's map of its shared memory maps each page of its regions once: pages it mapped before
// are not asked about again (here their entries were dropped meanwhile, and stay dropped), only
// the new part of a buffer that overlaps them is; memory outside the regions never is.
TEST(WriteSourcePages, AWriteSourceMapMapsEachPageOfItsRegionsOnce) {
  constexpr size_t kPages = 512;
  UnmappedSharedBuffer window(kPages * kPage), elsewhere(kPages * kPage);
  ASSERT_NE(window.data(), nullptr);
  ASSERT_NE(elsewhere.data(), nullptr);
  if (PageMapEntries(window.data(), kPages * kPage).empty()) GTEST_SKIP() << "no /proc/self/pagemap";
  uint8_t* const w = const_cast<uint8_t*>(window.data());
  WriteSourceMap map;
  map.AddRegion(w, kPages * kPage);
  const iovec first{w + 100, 100 * kPage};  // pages 0-100
  map.Map(&first, 1);
  EXPECT_EQ(PresentPages(w, 101 * kPage), 101u);
  EXPECT_EQ(map.mapped_bytes(), 101 * kPage);
  ASSERT_EQ(::madvise(w, kPages * kPage, MADV_DONTNEED), 0);  // the page-table entries go, the memory stays
  ASSERT_EQ(PresentPages(w, kPages * kPage), 0u);
  map.Map(&first, 1);
  EXPECT_EQ(PresentPages(w, kPages * kPage), 0u) << "pages mapped before are not asked about again";
  const iovec overlapping[] = {{w + 50 * kPage, 100 * kPage}, {w + 300 * kPage, 10}};  // pages 50-149, 300
  map.Map(overlapping, 2);
  EXPECT_EQ(PresentPages(w + 101 * kPage, 49 * kPage), 49u) << "pages 101-149, new";
  EXPECT_EQ(PresentPages(w + 300 * kPage, kPage), 1u);
  EXPECT_EQ(map.mapped_bytes(), 151 * kPage) << "pages 0-149 and 300";
  const iovec outside{const_cast<uint8_t*>(elsewhere.data()), kPages * kPage};
  map.Map(&outside, 1);
  EXPECT_EQ(PresentPages(elsewhere.data(), kPages * kPage), 0u) << "memory outside the regions is taken as mapped";
  EXPECT_EQ(map.mapped_bytes(), 151 * kPage);
}

// The reason for it: written from the fresh shared mapping through WriteVectorAt, a file's page
// cache is in large folios as a control file's written from private memory is (without the
// mapping, Linux 6.18 fell back to single pages after the first fault: 3324 of this file's 4096).
TEST(WriteSourcePages, AWriteFromAnUnmappedWindowKeepsLargeFolios) {
  constexpr size_t kBytes = size_t{16} << 20;
  testing::TempDir dir;
  const std::vector<uint8_t> private_copy(kBytes, 0x3C);
  const std::string control = dir.File("control.bin"), written = dir.File("window.bin");
  const auto write = [&](const std::string& path, const uint8_t* data, WriteSourceMap* sources = nullptr) {
    ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    ASSERT_TRUE(fd.valid()) << path;
    std::vector<iovec> iov{{const_cast<uint8_t*>(data), kBytes / 2}, {const_cast<uint8_t*>(data) + kBytes / 2, kBytes / 2}};
    WriteVectorAt(fd.get(), iov, 0, path, sources);
  };
  write(control, private_copy.data());
  const int64_t control_single = SinglePagesInCache(control, kBytes);
  if (control_single < 0) GTEST_SKIP() << "/proc/kpageflags is not readable here (needs root)";
  if (control_single > static_cast<int64_t>(kBytes / kPage / 2))
    GTEST_SKIP() << "this file system caches written files in single pages anyway (" << control_single << ")";
  UnmappedSharedBuffer window(kBytes);
  ASSERT_NE(window.data(), nullptr);
  write(written, window.data());
  EXPECT_LE(SinglePagesInCache(written, kBytes), control_single + 2)
      << "the file written from the window is cached in single pages where the control is not";
  EXPECT_EQ(testing::ReadBytes(written), std::vector<uint8_t>(window.data(), window.data() + kBytes));
  // The same through a map of the window's pages (as the parallel writer writes).
  UnmappedSharedBuffer window_again(kBytes);
  ASSERT_NE(window_again.data(), nullptr);
  WriteSourceMap sources;
  sources.AddRegion(window_again.data(), kBytes);
  const std::string mapped_once = dir.File("mapped_once.bin");
  write(mapped_once, window_again.data(), &sources);
  EXPECT_EQ(sources.mapped_bytes(), kBytes);
  EXPECT_LE(SinglePagesInCache(mapped_once, kBytes), control_single + 2)
      << "the file written through the map is cached in single pages where the control is not";
  EXPECT_EQ(testing::ReadBytes(mapped_once), std::vector<uint8_t>(window_again.data(), window_again.data() + kBytes));
}

}  // namespace
}  // namespace hzio
