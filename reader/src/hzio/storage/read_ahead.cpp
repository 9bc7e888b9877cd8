#include "hzio/storage/read_ahead.h"

#include <algorithm>

namespace hzio {

namespace {
// Ranges closer than this in one file are advised as one (the gap is read too): fewer calls,
// longer device requests.
constexpr uint64_t kMergeGap = 256 * 1024;
}  // namespace

ReadAhead::ReadAhead(std::vector<Range> ranges, uint64_t window_bytes)
    : ranges_(std::move(ranges)), start_(ranges_.size() + 1, 0), window_(window_bytes) {
  for (size_t i = 0; i < ranges_.size(); ++i) start_[i + 1] = start_[i] + (ranges_[i].file ? ranges_[i].size : 0);
}

void ReadAhead::Started(size_t i) {
  struct Advice {
    const ReadFile* file;
    uint64_t offset, size;
  };
  std::vector<Advice> advice;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (i >= ranges_.size()) return;
    const uint64_t limit = start_[i] + window_;
    advised_ = std::max(advised_, i);  // ranges before the consumer's are being read already
    while (advised_ < ranges_.size() && start_[advised_] < limit) {
      // One call for a run of ranges of one file that lie close together.
      const Range& first = ranges_[advised_];
      size_t j = advised_ + 1;
      uint64_t begin = first.offset, end = first.offset + first.size;
      while (first.file && j < ranges_.size() && start_[j] < limit && ranges_[j].file == first.file &&
             ranges_[j].offset <= end + kMergeGap && ranges_[j].offset + kMergeGap >= begin) {
        begin = std::min(begin, ranges_[j].offset);
        end = std::max(end, ranges_[j].offset + ranges_[j].size);
        ++j;
      }
      if (first.file && end > begin) advice.push_back(Advice{first.file.get(), begin, end - begin});
      advised_ = j;
    }
  }
  // Outside the lock: other consumers go on while the kernel queues the requests. The files
  // stay open: ranges_ holds them for this object's lifetime.
  for (const Advice& a : advice) a.file->Prefetch(a.offset, a.size);
}

size_t ReadAhead::advised() const {
  std::lock_guard<std::mutex> lock(mu_);
  return advised_;
}

}  // namespace hzio
