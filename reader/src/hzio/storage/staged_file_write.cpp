#include "hzio/storage/staged_file_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>

#include "hzio/storage/file.h"
#include "hzio/util/crash_point.h"
#include "hzio/util/error.h"
#include "hzio/util/large_allocation.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

constexpr int64_t kAlign = kDirectIoAlignment;
// Runs are cut into chunks of this size, each gathered into a lane's staging buffer and written
// with one pwrite. Up to kDirectLanes chunks are in flight at once on disjoint ranges: one
// synchronous write at a time left the device idle while the next chunk was gathered and between
// completions (0.94 GiB/s for a 256 MiB file, bench/mpi/RESULTS.md). Smaller chunks gained nothing
// for a 32 MiB durable write (2, 1 MiB) or lost (512 KiB).
constexpr int64_t kDirectChunk = int64_t{8} << 20;
constexpr int kDirectLanes = 4;

int64_t AlignDown(int64_t x) { return x / kAlign * kAlign; }
int64_t AlignUp(int64_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// The threads of direct writes: they mostly wait for the device, so they are apart from the
// encoding pool (ThreadPool::Shared) and never hold its cores for long.
ThreadPool& DirectWriteLanes() {
  static ThreadPool lanes(kDirectLanes);
  return lanes;
}

// This thread's staging buffer of direct writes: mapped (so page-aligned, in huge pages) and kept
// warm from one file to the next.
uint8_t* Staging() {
  thread_local LargeAllocation staging;
  if (staging.size() < static_cast<size_t>(kDirectChunk)) staging = LargeAllocation(static_cast<size_t>(kDirectChunk));
  return staging.data();
}

// Whether `fd` (opened with O_DIRECT) takes direct writes: one aligned block of zeros at offset 0,
// which the file's first chunk overwrites. Some file systems take the flag at open, not the I/O.
bool TakesDirectWrites(int fd, const std::string& path) {
  alignas(kAlign) static const uint8_t zeros[kAlign] = {};
  for (;;) {
    CrashPoint("write " + path);
    const ssize_t w = ::pwrite(fd, zeros, kAlign, 0);
    if (w == kAlign) return true;
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EINVAL) return false;
    throw OsError(path, "cannot write");
  }
}

}  // namespace

StagedFileWrite::StagedFileWrite(std::string path, std::vector<StagedSpan> pieces, bool sync, DirectIo direct,
                                 WriteSourceMap* sources)
    : path_(std::move(path)), sync_(sync), sources_(sources) {
  for (const StagedSpan& p : pieces)
    if (p.bytes.size > 0) {
      pieces_.push_back(p);
      starts_.push_back(total_);
      total_ += p.bytes.size;
    }
  padded_ = AlignUp(total_);
  MakeParentDirectories(path_);
  const bool try_direct =
      total_ > 0 && (direct == DirectIo::kAlways || (direct == DirectIo::kAuto && sync && total_ >= kDirectIoMinBytes));
  if (try_direct) {
    fd_ = ScopedFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644));
    if (!fd_.valid() && errno != EINVAL) throw OsError(path_, "cannot create");
    if (fd_.valid()) {
      // Allocated first: writes inside the file's size then run side by side.
      if (::fallocate(fd_.get(), 0, 0, static_cast<off_t>(padded_)) != 0 && errno != EOPNOTSUPP && errno != ENOSYS)
        throw OsError(path_, "cannot allocate " + std::to_string(padded_) + " bytes for");
      direct_ = TakesDirectWrites(fd_.get(), path_);
    }
  }
  if (!direct_) {
    fd_ = ScopedFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd_.valid()) throw OsError(path_, "cannot create");
  }
}

StagedFileWrite::~StagedFileWrite() { WaitForWrites(/*rethrow=*/false); }

void StagedFileWrite::Release(int stage) {
  if (!direct_) return;  // after Finish every byte is written: nothing is left to hand out
  // The runs of consecutive final pieces, shrunk to aligned edges (the file's end is padded).
  int64_t run_begin = -1, run_end = -1;
  const auto flush = [&] {
    const int64_t begin = AlignUp(run_begin), end = run_end == total_ ? padded_ : AlignDown(run_end);
    if (run_begin >= 0 && begin < end) SubmitUnwritten(begin, end);
  };
  for (size_t i = 0; i < pieces_.size(); ++i) {
    if (pieces_[i].stage > stage) continue;
    if (run_end != starts_[i]) {
      flush();
      run_begin = starts_[i];
    }
    run_end = starts_[i] + pieces_[i].bytes.size;
  }
  flush();
}

// [begin, end) is final; the parts of it not yet written go to the lanes. What was written came
// from earlier, smaller sets of final runs, so it lies inside such a run or outside it.
void StagedFileWrite::SubmitUnwritten(int64_t begin, int64_t end) {
  auto at = std::lower_bound(written_.begin(), written_.end(), std::make_pair(begin, int64_t{0}));
  if (at != written_.begin() && std::prev(at)->second > begin) --at;
  std::vector<std::pair<int64_t, int64_t>> gaps;
  int64_t from = begin;
  for (; at != written_.end() && at->first < end; ++at) {
    if (at->first > from) gaps.emplace_back(from, at->first);
    from = std::max(from, at->second);
  }
  if (from < end) gaps.emplace_back(from, end);
  for (const auto& [gap_begin, gap_end] : gaps) {
    for (int64_t offset = gap_begin; offset < gap_end; offset += kDirectChunk) {
      const int64_t n = std::min(kDirectChunk, gap_end - offset);
      auto task = std::make_shared<std::packaged_task<void()>>([this, offset, n] { WriteChunk(offset, n); });
      in_flight_.push_back(task->get_future());
      DirectWriteLanes().Submit([task] { (*task)(); });
    }
    written_.insert(std::upper_bound(written_.begin(), written_.end(), std::make_pair(gap_begin, gap_end)),
                    {gap_begin, gap_end});
  }
}

// Writes file bytes [offset, offset + n) (n aligned; past the end: zeros): straight from the pieces
// when they hold the whole range in one run of memory starting on an aligned address, else gathered
// into this lane's staging buffer (huge pages) first. The copy costs CPU (a fifth of a rank's in a
// 512^3 float32 write at 1 rank); a write from 4 KiB pages costs the disk more (512 MiB: 379-404 ms
// against 300-325 from huge pages), so callers lay out only huge-page memory for it (the parallel
// writer's private windows: mpi/write_rounds.cpp, BufferLead; bench/mpi/RESULTS.md).
void StagedFileWrite::WriteChunk(int64_t offset, int64_t n) const {
  const int64_t fill = std::max<int64_t>(0, std::min(n, total_ - offset));
  const size_t first =
      static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin()) - 1;
  if (const uint8_t* run = fill == n ? ContiguousRun(first, offset - starts_[first], n) : nullptr) {
    WriteExactlyAt(fd_.get(), run, static_cast<uint64_t>(n), static_cast<uint64_t>(offset), path_);
    bytes_from_pieces_.fetch_add(n, std::memory_order_relaxed);
    return;
  }
  uint8_t* const staging = Staging();
  size_t i = first;
  for (int64_t copied = 0, at = offset - starts_[i]; copied < fill; ++i, at = 0) {
    const int64_t k = std::min(fill - copied, pieces_[i].bytes.size - at);
    std::memcpy(staging + copied, pieces_[i].bytes.data + at, static_cast<size_t>(k));
    copied += k;
  }
  std::memset(staging + fill, 0, static_cast<size_t>(n - fill));
  WriteExactlyAt(fd_.get(), staging, static_cast<uint64_t>(n), static_cast<uint64_t>(offset), path_);
}

// Where the `n` bytes from `at` in piece `first` on lie in memory when the pieces from there on
// follow each other in memory for that long and the first byte is aligned for a direct write, else
// nullptr.
const uint8_t* StagedFileWrite::ContiguousRun(size_t first, int64_t at, int64_t n) const {
  const uint8_t* const start = pieces_[first].bytes.data + at;
  if (reinterpret_cast<uintptr_t>(start) % static_cast<uintptr_t>(kAlign) != 0) return nullptr;
  const uint8_t* end = pieces_[first].bytes.data + pieces_[first].bytes.size;
  for (size_t i = first + 1; end - start < n; ++i) {
    if (i == pieces_.size() || pieces_[i].bytes.data != end) return nullptr;
    end += pieces_[i].bytes.size;
  }
  return start;
}

void StagedFileWrite::WaitForWrites(bool rethrow) {
  std::exception_ptr first;
  for (std::future<void>& f : in_flight_) {
    try {
      if (f.valid()) f.get();
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  in_flight_.clear();
  if (first && rethrow) std::rethrow_exception(first);
}

bool StagedFileWrite::Finish() {
  if (direct_) {
    Release(std::numeric_limits<int>::max());
    WaitForWrites(/*rethrow=*/true);
    if (::ftruncate(fd_.get(), static_cast<off_t>(total_)) != 0) throw OsError(path_, "cannot set the size of");
  } else {
    // Adjacent pieces merged, then as few vectored writes as IOV_MAX allows.
    std::vector<iovec> iov;
    for (const StagedSpan& p : pieces_) {
      if (!iov.empty() && static_cast<const uint8_t*>(iov.back().iov_base) + iov.back().iov_len == p.bytes.data)
        iov.back().iov_len += static_cast<size_t>(p.bytes.size);
      else
        iov.push_back(iovec{const_cast<uint8_t*>(p.bytes.data), static_cast<size_t>(p.bytes.size)});
    }
    WriteVectorAt(fd_.get(), iov, 0, path_, sources_);
  }
  if (sync_ && ::fsync(fd_.get()) != 0) throw OsError(path_, "cannot fsync");
  if (::close(fd_.Release()) != 0) throw OsError(path_, "cannot close");
  return direct_;
}

}  // namespace hzio
