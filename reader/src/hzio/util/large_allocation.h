/// Uninitialised memory for large buffers that other processes write into (the writer's
/// aggregator window). Fresh anonymous memory is paid for page by page on first touch; in virtual
/// machines that fault path is slow (~1.4 GB/s measured here), worse when the first touch is a
/// remote process's one-sided put, while a 2 MiB transparent huge page costs one fault. So large
/// allocations are mapped directly, aligned to 2 MiB and advised as huge pages; small ones come
/// from the heap. Process-local scratch should stay on the heap (ByteBuffer): glibc hands repeated
/// buffers below 32 MiB back warm, which measured faster here than fresh huge pages. The memory is
/// not zeroed by this class.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hzio {

class LargeAllocation {
 public:
  /// Sizes at or above this are mapped with huge-page advice; smaller ones use operator new.
  static constexpr size_t kMappedThreshold = size_t{1} << 20;

  /// kHuge: fastest to fill densely. kSparse: ordinary pages, for buffers only partly touched
  /// (a boundary cell of the parallel writer), where untouched 4 KiB pages cost no memory.
  enum class Pages { kHuge, kSparse };
  /// kLazy: mapped MAP_NORESERVE, so the kernel's overcommit check never refuses it; memory the
  /// machine cannot give is noticed only when touched (the OOM killer). kChecked: the kernel's
  /// overcommit check applies (with the default heuristic, a request beyond RAM + swap fails
  /// here as kTooLarge), for memory handed to callers who can act on the error (Python arrays).
  enum class Commit { kLazy, kChecked };

  LargeAllocation() = default;
  /// Throws hzio::Error(kTooLarge) when out of memory.
  explicit LargeAllocation(size_t bytes, Pages pages = Pages::kHuge, Commit commit = Commit::kLazy);
  ~LargeAllocation();
  LargeAllocation(LargeAllocation&& other) noexcept;
  LargeAllocation& operator=(LargeAllocation&& other) noexcept;
  LargeAllocation(const LargeAllocation&) = delete;
  LargeAllocation& operator=(const LargeAllocation&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Release() noexcept;

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // the whole mapping (data_ is its 2 MiB-aligned part), or null
  size_t mapping_bytes_ = 0;
};

}  // namespace hzio
