#include "hzio/mpi/piece_read_ahead.h"

#include <memory>
#include <utility>

#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio::mpi {

namespace {

// The thread that makes the direct reads ahead. It is made once and waits for work, so the
// scheduler runs it as soon as it is handed a read; a thread made for each read (std::async) waited
// behind the placing thread on a rank with one core before it could even ask for its piece: a cold
// 2-rank restart of 512^3 float32 per rank took a median 0.897 s that way, 0.846 s with this lane
// (RESULTS.md). Apart from the placing pool: it mostly waits for the disk.
ThreadPool& ReaderLane() {
  static ThreadPool lane(1);
  return lane;
}

}  // namespace

PieceReadAhead::PieceReadAhead(int depth, std::span<LargeAllocation> staging) : depth_(depth), staging_(staging) {
  Check(depth >= 1 && staging.size() >= static_cast<size_t>(depth) + 1, ErrorCode::kInternal,
        "PieceReadAhead: needs a staging buffer more than its depth");
}

PieceReadAhead::~PieceReadAhead() {
  for (Queued& q : queue_)
    if (q.got.valid()) q.got.wait();
}

void PieceReadAhead::Submit(Key key, Read read) {
  Check(!full(), ErrorCode::kInternal, "PieceReadAhead: a read submitted beyond the depth");
  LargeAllocation& into = Buffer(taken_ + queue_.size());
  auto task = std::make_shared<std::packaged_task<Got()>>([read = std::move(read), &into] { return read(into); });
  queue_.push_back(Queued{key, task->get_future()});
  ReaderLane().Submit([task] { (*task)(); });
}

PieceReadAhead::Got PieceReadAhead::Take(Key key, const Read& read) {
  if (queue_.empty()) return read(Buffer(taken_++));
  Check(queue_.front().key == key, ErrorCode::kInternal, "the piece read ahead is not the next one");
  std::future<Got> got = std::move(queue_.front().got);
  queue_.pop_front();
  ++taken_;
  return got.get();
}

}  // namespace hzio::mpi
