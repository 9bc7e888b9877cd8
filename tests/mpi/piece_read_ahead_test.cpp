// Tests of mpi/piece_read_ahead.h (no MPI: each rank runs them alone): reads queued on the lane come
// back in order with their own bytes, the piece taken keeps its bytes while the next ones are read,
// the lane goes on to the next queued read without the caller, and misuse, read errors and an
// early exit are reported or waited for, never left writing into freed buffers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "hzio/mpi/piece_read_ahead.h"
#include "hzio/util/error.h"
#include "support/test_support.h"

namespace hzio::mpi {
namespace {

using Got = PieceReadAhead::Got;
using Key = PieceReadAhead::Key;

// A "read" of piece k: fills 4 KiB of the staging buffer with byte k.
PieceReadAhead::Read FillWith(uint8_t k) {
  return [k](LargeAllocation& staging) {
    if (staging.size() < 4096) staging = LargeAllocation(4096);
    std::memset(staging.data(), k, 4096);
    return Got{staging.data(), true};
  };
}

bool Holds(const Got& got, uint8_t k) {
  for (int i = 0; i < 4096; ++i)
    if (got.bytes[i] != k) return false;
  return true;
}

TEST(PieceReadAhead, PiecesComeBackInOrderAndKeepTheirBytesWhileTheNextAreRead) {
  for (int depth = 1; depth <= 3; ++depth) {
    std::vector<LargeAllocation> staging(static_cast<size_t>(depth) + 1);
    PieceReadAhead ahead(depth, staging);
    constexpr int kPieces = 20;
    int submitted = 0;
    const auto top_up = [&] {
      while (!ahead.full() && submitted < kPieces) {
        ahead.Submit(Key{0, static_cast<uint64_t>(submitted)}, FillWith(static_cast<uint8_t>(submitted)));
        ++submitted;
      }
    };
    top_up();
    EXPECT_EQ(ahead.queued(), depth);
    for (int k = 0; k < kPieces; ++k) {
      const Got got = ahead.Take(Key{0, static_cast<uint64_t>(k)}, FillWith(0xff));
      ASSERT_TRUE(Holds(got, static_cast<uint8_t>(k))) << "depth " << depth << " piece " << k;
      top_up();
      // The next pieces are read into the other buffers while this one is "placed".
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ASSERT_TRUE(Holds(got, static_cast<uint8_t>(k))) << "depth " << depth << " piece " << k << " overwritten";
    }
    EXPECT_EQ(ahead.queued(), 0);
  }
}

TEST(PieceReadAhead, WithNothingQueuedTheCallerReadsItself) {
  std::vector<LargeAllocation> staging(3);
  PieceReadAhead ahead(2, staging);
  std::thread::id reader;
  const auto read = [&](LargeAllocation& s) {
    reader = std::this_thread::get_id();
    return FillWith(7)(s);
  };
  EXPECT_TRUE(Holds(ahead.Take(Key{3, 0}, read), 7));
  EXPECT_EQ(reader, std::this_thread::get_id());
  ahead.Submit(Key{3, 4096}, read);
  EXPECT_TRUE(Holds(ahead.Take(Key{3, 4096}, FillWith(0xff)), 7));
  EXPECT_NE(reader, std::this_thread::get_id());  // queued: read on the lane
}

// The point of the depth: the lane starts the second queued read as soon as the first ends, while
// the caller has not taken anything.
TEST(PieceReadAhead, TheLaneGoesOnToTheNextQueuedReadWithoutTheCaller) {
  std::vector<LargeAllocation> staging(3);
  PieceReadAhead ahead(2, staging);
  std::promise<void> second_started;
  ahead.Submit(Key{0, 0}, FillWith(1));
  ahead.Submit(Key{0, 1}, [&](LargeAllocation& s) {
    second_started.set_value();
    return FillWith(2)(s);
  });
  EXPECT_EQ(second_started.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(Holds(ahead.Take(Key{0, 0}, FillWith(0xff)), 1));
  EXPECT_TRUE(Holds(ahead.Take(Key{0, 1}, FillWith(0xff)), 2));
}

TEST(PieceReadAhead, MisuseIsAnInternalError) {
  std::vector<LargeAllocation> staging(2);
  EXPECT_TRUE(testing::ThrowsError([&] { PieceReadAhead(2, staging); }, ErrorCode::kInternal, {}));  // a buffer short
  PieceReadAhead ahead(1, staging);
  ahead.Submit(Key{0, 0}, FillWith(1));
  EXPECT_TRUE(testing::ThrowsError([&] { ahead.Submit(Key{0, 4096}, FillWith(2)); }, ErrorCode::kInternal, {}))
      << "a read beyond the depth";
  EXPECT_TRUE(testing::ThrowsError([&] { ahead.Take(Key{1, 0}, FillWith(0xff)); }, ErrorCode::kInternal,
                                   {"not the next one"}))
      << "a piece other than the one read ahead";
}

TEST(PieceReadAhead, ReadErrorsReachTheCaller) {
  std::vector<LargeAllocation> staging(3);
  PieceReadAhead ahead(2, staging);
  ahead.Submit(Key{0, 0}, [](LargeAllocation&) -> Got { throw Error(ErrorCode::kCorrupt, "piece 0 is short"); });
  ahead.Submit(Key{0, 1}, FillWith(1));
  try {
    ahead.Take(Key{0, 0}, FillWith(0xff));
    ADD_FAILURE() << "the read's error was lost";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
    EXPECT_STREQ(e.what(), "piece 0 is short");
  }
  EXPECT_TRUE(Holds(ahead.Take(Key{0, 1}, FillWith(0xff)), 1));
}

// Left early (an error in the caller), the queued reads are waited for before the buffers they
// write into may go.
TEST(PieceReadAhead, LeavingEarlyWaitsForTheQueuedReads) {
  std::vector<LargeAllocation> staging(3);
  std::atomic<int> finished{0};
  const auto slow = [&](LargeAllocation& s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const Got got = FillWith(3)(s);
    ++finished;
    return got;
  };
  {
    PieceReadAhead ahead(2, staging);
    ahead.Submit(Key{0, 0}, slow);
    ahead.Submit(Key{0, 1}, slow);
  }
  EXPECT_EQ(finished.load(), 2);
}

}  // namespace
}  // namespace hzio::mpi
