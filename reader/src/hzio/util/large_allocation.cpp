#include "hzio/util/large_allocation.h"

#include <sys/mman.h>

#include <new>
#include <string>
#include <utility>

#include "hzio/util/error.h"

namespace hzio {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

LargeAllocation::LargeAllocation(size_t bytes, Pages pages, Commit commit) : size_(bytes) {
  if (bytes == 0) return;
  if (bytes < kMappedThreshold) {
    data_ = new (std::nothrow) uint8_t[bytes];
    Check(data_ != nullptr, ErrorCode::kTooLarge, "cannot allocate " + std::to_string(bytes) + " bytes");
    return;
  }
  // Over-map by one huge page so the usable part can start on a 2 MiB boundary.
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  Check(rounded >= bytes && rounded + kHugePage > rounded, ErrorCode::kTooLarge,
        "cannot allocate " + std::to_string(bytes) + " bytes");
  mapping_bytes_ = rounded + kHugePage;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (commit == Commit::kLazy ? MAP_NORESERVE : 0);
  void* p = ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, flags, -1, 0);
  Check(p != MAP_FAILED, ErrorCode::kTooLarge, "cannot map " + std::to_string(bytes) + " bytes of memory");
  mapping_ = p;
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  data_ = reinterpret_cast<uint8_t*>(aligned);
  // Advice only: where huge pages are disabled this is refused and ordinary pages are used.
  if (pages == Pages::kHuge) (void)::madvise(data_, rounded, MADV_HUGEPAGE);
}

LargeAllocation::~LargeAllocation() { Release(); }

LargeAllocation::LargeAllocation(LargeAllocation&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapping_(std::exchange(other.mapping_, nullptr)),
      mapping_bytes_(std::exchange(other.mapping_bytes_, 0)) {}

LargeAllocation& LargeAllocation::operator=(LargeAllocation&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
  }
  return *this;
}

void LargeAllocation::Release() noexcept {
  if (mapping_)
    ::munmap(mapping_, mapping_bytes_);
  else
    delete[] data_;
  data_ = nullptr;
  mapping_ = nullptr;
  size_ = mapping_bytes_ = 0;
}

}  // namespace hzio
