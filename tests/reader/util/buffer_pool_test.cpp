// Tests of reusable large buffers (reader/src/hzio/util/large_allocation.h, buffer_pool.h): mapped
// allocations are huge-page aligned and usable end to end, moves transfer ownership, and the pool
// hands back the best-fitting retained buffer, never one too small, within its retention bound.
#include "hzio/util/buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "hzio/util/error.h"

namespace hzio {
namespace {

TEST(LargeAllocation, SmallAndMappedSizesAreWritableEndToEnd) {
  for (const size_t n : {size_t{1}, size_t{4096}, LargeAllocation::kMappedThreshold - 1,
                         LargeAllocation::kMappedThreshold, size_t{5} << 20}) {
    LargeAllocation a(n);
    ASSERT_NE(a.data(), nullptr);
    EXPECT_EQ(a.size(), n);
    std::memset(a.data(), 0x5A, n);
    EXPECT_EQ(a.data()[n - 1], 0x5A);
    if (n >= LargeAllocation::kMappedThreshold)
      EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % (uintptr_t{2} << 20), 0u) << n;
  }
  EXPECT_EQ(LargeAllocation(0).data(), nullptr);
}

TEST(LargeAllocation, MoveTransfersOwnership) {
  LargeAllocation a(size_t{3} << 20);
  uint8_t* p = a.data();
  LargeAllocation b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);
  LargeAllocation c(16);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), size_t{3} << 20);
}

TEST(LargeAllocation, AbsurdSizeIsAClearError) {
  try {
    LargeAllocation a(SIZE_MAX - 4096);
    FAIL() << "allocated an absurd size";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTooLarge);
    EXPECT_NE(std::string(e.what()).find("cannot"), std::string::npos) << e.what();
  }
}

// MAP_NORESERVE skips the kernel's overcommit check; kChecked keeps it, so a request far beyond
// RAM + swap is a clear error (under the default heuristic and under strict accounting).
TEST(LargeAllocation, CheckedCommitRefusesMoreThanTheMachineHas) {
  std::ifstream mode_file("/proc/sys/vm/overcommit_memory");
  int mode = -1;
  mode_file >> mode;
  if (mode == 1) GTEST_SKIP() << "vm.overcommit_memory=1: the kernel grants every request";
  const size_t absurd = size_t{1} << 46;  // 64 TiB
  try {
    LargeAllocation a(absurd, LargeAllocation::Pages::kHuge, LargeAllocation::Commit::kChecked);
    FAIL() << "a checked 64 TiB allocation succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTooLarge);
    EXPECT_NE(std::string(e.what()).find("cannot map " + std::to_string(absurd) + " bytes"), std::string::npos)
        << e.what();
  }
  LargeAllocation ok(size_t{4} << 20, LargeAllocation::Pages::kHuge, LargeAllocation::Commit::kChecked);
  std::memset(ok.data(), 1, ok.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ok.data()) % (uintptr_t{2} << 20), 0u);
}

TEST(BufferPool, GivesBackTheSmallestRetainedBufferThatFits) {
  BufferPool pool;
  LargeAllocation big(size_t{8} << 20), mid(size_t{2} << 20);
  uint8_t* const big_p = big.data();
  uint8_t* const mid_p = mid.data();
  pool.Give(std::move(big));
  pool.Give(std::move(mid));
  EXPECT_EQ(pool.retained_bytes(), size_t{10} << 20);
  const LargeAllocation a = pool.Take(size_t{1} << 20);  // both fit: the smaller one
  EXPECT_EQ(a.data(), mid_p);
  const LargeAllocation b = pool.Take(size_t{4} << 20);
  EXPECT_EQ(b.data(), big_p);
  EXPECT_EQ(pool.retained_bytes(), 0u);
  const LargeAllocation c = pool.Take(size_t{4} << 20);  // nothing retained: a new one
  EXPECT_NE(c.data(), nullptr);
  EXPECT_GE(c.size(), size_t{4} << 20);
}

TEST(BufferPool, NeverHandsOutATooSmallBufferAndSkipsTinyOnes) {
  BufferPool pool;
  pool.Give(LargeAllocation(size_t{1} << 20));
  pool.Give(LargeAllocation(BufferPool::kMinPooledBytes - 1));  // not worth keeping
  EXPECT_EQ(pool.retained_bytes(), size_t{1} << 20);
  const LargeAllocation a = pool.Take(size_t{2} << 20);
  EXPECT_GE(a.size(), size_t{2} << 20);
  EXPECT_EQ(pool.retained_bytes(), size_t{1} << 20);
}

TEST(BufferPool, RetentionIsBounded) {
  BufferPool pool;
  const size_t chunk = BufferPool::kMaxRetainedBytes / 4;
  for (int i = 0; i < 6; ++i) pool.Give(LargeAllocation(chunk));  // untouched pages: no memory used
  EXPECT_LE(pool.retained_bytes(), BufferPool::kMaxRetainedBytes);
  EXPECT_EQ(pool.retained_bytes(), 4 * chunk);
}

TEST(PooledBuffer, ReturnsItsMemoryToTheSharedPool) {
  const size_t before = BufferPool::Shared().retained_bytes();
  uint8_t* p = nullptr;
  {
    PooledBuffer b(size_t{3} << 20);
    p = b.data();
    EXPECT_EQ(b.size(), size_t{3} << 20);
  }
  EXPECT_GE(BufferPool::Shared().retained_bytes(), before + (size_t{3} << 20));
  PooledBuffer again(size_t{3} << 20);
  EXPECT_EQ(again.data(), p);  // warm memory reused
}

}  // namespace
}  // namespace hzio
