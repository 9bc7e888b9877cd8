/// A growable byte buffer that never zero-fills: hot paths (block decode, encode, scatter) resize
/// scratch memory per block, and value-initialising it cost as much as the copy itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

namespace hzio {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(size_t n) { Resize(n); }

  /// Sets the size to n; contents up to the old size are kept, the rest is uninitialised.
  void Resize(size_t n) {
    if (n > capacity_) {
      std::unique_ptr<uint8_t[]> grown(new uint8_t[n]);
      if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
      data_ = std::move(grown);
      capacity_ = n;
    }
    size_ = n;
  }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

/// The kernel copies out of the page cache 4x slower (measured here: 2.6 vs 11.6 GB/s) into
/// memory that is neither 64-byte aligned nor aligned like the file offset it reads: a read of
/// file offset F goes fast to an address A with A % 64 == 0 or A % 64 == F % 64.
constexpr uintptr_t kCopyAlign = 64;

/// Whether a read of `file_offset` into `to` is one of the fast copies (kCopyAlign).
inline bool CopiesFast(uint64_t file_offset, const uint8_t* to) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(to);
  return a % kCopyAlign == 0 || (a - file_offset) % kCopyAlign == 0;
}

/// Memory in `buffer` for `size` bytes read from `file_offset`, aligned like it (CopiesFast).
inline uint8_t* AlignedLike(ByteBuffer& buffer, uint64_t file_offset, uint64_t size) {
  buffer.Resize(static_cast<size_t>(size) + kCopyAlign);
  const uintptr_t shift = (file_offset - reinterpret_cast<uintptr_t>(buffer.data())) % kCopyAlign;
  return buffer.data() + shift;
}

/// A buffer of the calling thread to read into and hand out as a view kept alive by the
/// returned pointer: the same one as last time unless a receiver still holds that one.
inline std::shared_ptr<ByteBuffer> ThreadReusableBuffer() {
  thread_local std::shared_ptr<ByteBuffer> buffer;
  if (!buffer || buffer.use_count() > 1) buffer = std::make_shared<ByteBuffer>();
  return buffer;
}

}  // namespace hzio
