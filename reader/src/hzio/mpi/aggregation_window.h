/// The memory the aggregators of the parallel writer and reader expose to the other ranks, kept
/// per communicator between collective operations. Two kinds:
///  * node-shared (the default): every rank's part is a segment of one shared-memory window of
///    its node (MPI_Win_allocate_shared on the node's communicator), so a rank on the same node as
///    an aggregator loads and stores its part directly: the writer HZ-encodes straight into it and
///    the reader places samples straight from it, with no staging copy and no transfer. Parts on
///    other nodes are reached with MPI_Put / MPI_Get through a second window over the same memory.
///  * rma: a pooled private buffer exposed with MPI_Win_create; every other rank's part is reached
///    with puts and gets. Chosen when asked for (options, or HZIO_MPI_WINDOWS=rma in the
///    environment), when no rank shares its node with another, or when a node's shared-memory
///    directory lacks room for the parts.
/// Creating a window is collective (~1 ms at 8 oversubscribed ranks here) and fresh shared pages
/// are faulted one by one, so one window per communicator and kind is cached as an MPI attribute: reused
/// while it is large enough, regrown collectively, released when the communicator is freed or at
/// MPI_Finalize. Windows above kMaxCachedBytes per rank are released after their operation.
/// Every decision is a function of values that are the same on every rank, so all ranks take it
/// together. Open MPI's rdma component moves non-contiguous datatypes piece by piece, so callers
/// transfer contiguous byte ranges.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "hzio/storage/write_source_pages.h"
#include "hzio/util/buffer_pool.h"

namespace hzio::mpi {

enum class WindowKind { kNodeShared, kRma };

class AggregationWindow {
 public:
  /// The largest default memory budget (DefaultBudget).
  static constexpr int64_t kMaxDefaultBudget = int64_t{256} << 20;
  /// Larger windows (per rank) are not kept between operations: the largest default budget and one
  /// 2 MiB granule, for the writer's buffers that start a page in (write_rounds.cpp, BufferLead). A
  /// 256 MiB budget's window of 256 MiB + 8 KiB made fresh for every write faulted all its pages
  /// in again: 512³ float32 × 2 ranks, durable, took 1.0 s instead of 0.7.
  static constexpr int64_t kMaxCachedBytes = kMaxDefaultBudget + (int64_t{2} << 20);

  /// Collective over `comm`: a window in which every rank's part holds at least `bytes` (the same
  /// value on every rank), of the kind asked for where possible. Reuses the communicator's cached
  /// window when it fits. Errors (e.g. out of memory) are agreed: every rank throws the same.
  static std::shared_ptr<AggregationWindow> Acquire(MPI_Comm comm, int64_t bytes, WindowKind wanted);
  /// The default memory budget of the writer's and reader's aggregation for one of `node_ranks`
  /// ranks of a node (node_share.h; bytes per rank; the callers agree on the minimum):
  /// kMaxDefaultBudget, so the window stays cached and its pages warm from call to call (a fresh 2 GiB
  /// window per write spent more time faulting its pages in than encoding: rounds of 256 MiB wrote
  /// 256³ × 16 float64 with the hz phase 2.4x and the io phase 1.7x faster), or less when a quarter
  /// of this node's memory shared by its ranks is smaller, but not below kMinDefaultBudget.
  static int64_t DefaultBudget(int node_ranks);
  static constexpr int64_t kMinDefaultBudget = int64_t{32} << 20;
  /// Local: the budget a call uses (before the ranks agree on their minimum): `option` when > 0,
  /// else HZIO_MPI_MEMORY_BUDGET from the environment (e.g. "512m": the knob of the C and Fortran
  /// APIs), else `default_budget`. Throws kInvalidArgument for a negative option or a malformed
  /// variable.
  static int64_t ChooseBudget(int64_t option, int64_t default_budget);
  /// Collective over `comm`: frees its cached windows now (e.g. before a phase of the simulation
  /// that needs the memory); the next operation creates them again.
  static void ReleaseCached(MPI_Comm comm);

  ~AggregationWindow();  // collective over the communicator (MPI_Win_free)
  AggregationWindow(const AggregationWindow&) = delete;
  AggregationWindow& operator=(const AggregationWindow&) = delete;

  WindowKind kind() const { return kind_; }
  /// This rank's part.
  uint8_t* data() const { return base_; }
  int64_t size() const { return bytes_; }
  /// `rank`'s part when this rank can load and store it directly (its own part, or any part on
  /// this node for a node-shared window), else nullptr: reach it with Put/Get.
  uint8_t* Direct(int rank) const;

  /// Opens or closes an epoch: every earlier store, put and get is complete and visible to every
  /// rank after it. Collective. `rma_asserts` are MPI_MODE_* hints for the one-sided window.
  void Fence(int rma_asserts = 0);
  void Put(const uint8_t* src, int64_t bytes, int target, int64_t displacement);
  void Get(uint8_t* dst, int64_t bytes, int target, int64_t displacement);

  /// For buffered writes of files from this window: its node's parts, whose pages other processes
  /// fill, each page mapped into this process once in the window's life
  /// (storage/write_source_pages.h); none for an rma window, whose memory is this process's own.
  WriteSourceMap& write_sources() { return write_sources_; }

 private:
  AggregationWindow(MPI_Comm comm, int64_t bytes, WindowKind kind);

  WindowKind kind_;
  int rank_ = 0;
  int64_t bytes_ = 0;
  uint8_t* base_ = nullptr;
  PooledBuffer private_memory_;              // kRma
  MPI_Comm node_comm_ = MPI_COMM_NULL;       // kNodeShared
  MPI_Win node_win_ = MPI_WIN_NULL;          // kNodeShared: the segments, fenced for loads/stores
  MPI_Win rma_win_ = MPI_WIN_NULL;           // puts/gets to parts off this node (none if one node)
  std::vector<std::pair<int, uint8_t*>> node_parts_;  // (rank in comm, its part), by rank
  WriteSourceMap write_sources_;
};

}  // namespace hzio::mpi
