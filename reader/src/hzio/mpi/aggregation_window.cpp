#include "hzio/mpi/aggregation_window.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "hzio/mpi/collective.h"
#include "hzio/util/strings.h"

namespace hzio::mpi {

namespace {

// Parts are sized in whole huge pages, and a regrown window gets some headroom, so a sequence of
// slightly growing operations does not re-create the window every time.
constexpr int64_t kGranule = int64_t{2} << 20;

int64_t Capacity(int64_t bytes, int64_t previous) {
  const int64_t grown = std::max(bytes, previous + previous / 4);
  if (grown > std::numeric_limits<int64_t>::max() - kGranule) return grown;  // absurd: fails to allocate
  return (grown + kGranule - 1) / kGranule * kGranule;
}

// Whether the directory that backs Open MPI's shared-memory windows has room for the node's
// parts (with headroom for everything else that lives there): tmpfs pages beyond its size would
// fault with SIGBUS on first touch, so such a window is never made.
bool SharedMemoryHasRoom(int64_t bytes_per_rank, int ranks_on_node) {
  const char* dir = std::getenv("OMPI_MCA_osc_sm_backing_directory");
  struct statvfs st {};
  if (::statvfs(dir && *dir ? dir : "/dev/shm", &st) != 0) return false;
  const long double available = static_cast<long double>(st.f_bavail) * static_cast<long double>(st.f_frsize);
  return static_cast<long double>(bytes_per_rank) * ranks_on_node <= available / 2;
}

// HZIO_MPI_WINDOWS=rma: MPI_Win_create windows whatever the options ask for (e.g. where shared
// memory misbehaves).
bool EnvironmentForcesRma() {
  const char* env = std::getenv("HZIO_MPI_WINDOWS");
  return env && std::strcmp(env, "rma") == 0;
}

// Tests cut one machine into "nodes" of this many consecutive ranks (HZIO_MPI_SIMULATED_NODE_RANKS),
// so the path between nodes (puts and gets next to direct loads and stores) runs in CI too.
int SimulatedRanksPerNode() {
  const char* env = std::getenv("HZIO_MPI_SIMULATED_NODE_RANKS");
  return env ? std::max(0, std::atoi(env)) : 0;
}

// The communicator's cached windows, one per kind asked for: an MPI attribute, so they go with
// the communicator.
struct Slot {
  std::shared_ptr<AggregationWindow> windows[2];
  void Release() {
    for (auto& w : windows) w.reset();
  }
};

std::vector<Slot*>& LiveSlots() {
  static std::vector<Slot*> slots;  // creation order: the same on every rank of a communicator
  return slots;
}

int g_slot_keyval = MPI_KEYVAL_INVALID;

// Called inside MPI_Comm_free on every rank of the communicator, so the collective
// MPI_Win_free is matched everywhere.
int DeleteSlot(MPI_Comm, int, void* value, void*) {
  auto* slot = static_cast<Slot*>(value);
  slot->Release();
  std::vector<Slot*>& live = LiveSlots();
  live.erase(std::remove(live.begin(), live.end(), slot), live.end());
  delete slot;
  return MPI_SUCCESS;
}

// MPI_Finalize frees MPI_COMM_SELF's attributes first, while MPI still works: the windows still
// cached (e.g. on MPI_COMM_WORLD, which is never freed) are released there, in creation order.
int ReleaseAllAtFinalize(MPI_Comm, int, void*, void*) {
  for (Slot* slot : LiveSlots()) slot->Release();
  return MPI_SUCCESS;
}

void EnsureKeyvals() {
  if (g_slot_keyval != MPI_KEYVAL_INVALID) return;
  MpiCheck(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteSlot, &g_slot_keyval, nullptr),
           "MPI_Comm_create_keyval");
  int finalize_keyval = MPI_KEYVAL_INVALID;
  MpiCheck(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ReleaseAllAtFinalize, &finalize_keyval, nullptr),
           "MPI_Comm_create_keyval");
  MpiCheck(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr), "MPI_Comm_set_attr");
}

Slot& SlotOf(MPI_Comm comm) {
  EnsureKeyvals();
  void* value = nullptr;
  int found = 0;
  MpiCheck(MPI_Comm_get_attr(comm, g_slot_keyval, &value, &found), "MPI_Comm_get_attr");
  if (found) return *static_cast<Slot*>(value);
  auto* slot = new Slot;
  MpiCheck(MPI_Comm_set_attr(comm, g_slot_keyval, slot), "MPI_Comm_set_attr");
  LiveSlots().push_back(slot);
  return *slot;
}

}  // namespace

std::shared_ptr<AggregationWindow> AggregationWindow::Acquire(MPI_Comm comm, int64_t bytes, WindowKind wanted) {
  // An aggregator fills its part, so a part beyond the machine's memory would only end in the OOM
  // killer. `bytes` is the same on every rank: all of them throw here, with no agreement needed.
  const long double memory = static_cast<long double>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
  Check(memory <= 0 || static_cast<long double>(bytes) <= memory, ErrorCode::kTooLarge,
        "each aggregator would need " + std::to_string(bytes) + " bytes of memory, more than this machine has (" +
            std::to_string(static_cast<int64_t>(memory)) + "): use more aggregators or ranks");
  std::shared_ptr<AggregationWindow>& cached = SlotOf(comm).windows[wanted == WindowKind::kRma ? 1 : 0];
  if (cached && cached->size() >= bytes) return cached;
  const int64_t previous = cached ? cached->size() : 0;
  cached.reset();  // collective: every rank sees the same cache state and request
  std::shared_ptr<AggregationWindow> window(new AggregationWindow(comm, Capacity(bytes, previous), wanted));
  if (window->size() <= kMaxCachedBytes) cached = window;
  return window;
}

void AggregationWindow::ReleaseCached(MPI_Comm comm) { SlotOf(comm).Release(); }

int64_t AggregationWindow::DefaultBudget(int node_ranks) {
  node_ranks = std::max(node_ranks, 1);
  const long double memory = static_cast<long double>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
  return std::clamp(static_cast<int64_t>(memory / 4 / node_ranks), kMinDefaultBudget, kMaxDefaultBudget);
}

int64_t AggregationWindow::ChooseBudget(int64_t option, int64_t default_budget) {
  Check(option >= 0, ErrorCode::kInvalidArgument,
        "memory budget " + std::to_string(option) + " must be >= 0 (0: the default)");
  if (option > 0) return option;
  if (const char* env = std::getenv("HZIO_MPI_MEMORY_BUDGET"); env && *env)
    return ParseByteSize(env, "HZIO_MPI_MEMORY_BUDGET");
  return default_budget;
}

AggregationWindow::AggregationWindow(MPI_Comm comm, int64_t bytes, WindowKind kind)
    : kind_(kind), rank_(CommRank(comm)), bytes_(bytes) {
  // One agreement decides the kind: rma for all if any rank was forced to rma (the environment may
  // differ between ranks, so every rank still takes part in the node split) or is short of shared
  // memory, or if no rank shares its node with another (then sharing gains nothing, and private
  // memory comes in huge pages, shared memory here in 4 KiB ones: 1.3x slower to encode into or
  // decode from at 1 rank).
  const bool shared = kind_ == WindowKind::kNodeShared;
  const bool forced_rma = EnvironmentForcesRma();
  int node_size = 1;
  if (shared) {
    if (const int per_node = SimulatedRanksPerNode(); per_node > 0)
      MpiCheck(MPI_Comm_split(comm, rank_ / per_node, rank_, &node_comm_), "MPI_Comm_split");
    else
      MpiCheck(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_),
               "MPI_Comm_split_type");
    node_size = CommSize(node_comm_);
  }
  const bool refuse = !shared || forced_rma || !SharedMemoryHasRoom(bytes_, node_size);
  const std::vector<int64_t> agreed = AgreeAndMax(comm, {refuse ? 1 : 0, shared && node_size > 1 ? 1 : 0}, nullptr);
  if (agreed[0] != 0 || agreed[1] == 0) {
    if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
    kind_ = WindowKind::kRma;
  }

  if (kind_ == WindowKind::kRma) {
    Collectively(comm, [&] { private_memory_ = PooledBuffer(static_cast<size_t>(bytes_)); });
    base_ = private_memory_.data();
    MpiCheck(MPI_Win_create(base_, static_cast<MPI_Aint>(bytes_), 1, MPI_INFO_NULL, comm, &rma_win_),
             "MPI_Win_create");
    return;
  }

  // Each rank's segment padded to whole pages (noncontiguous). Open MPI 4.1 still starts every
  // segment 264 bytes into a page, so a part's last page may hold the next part's first bytes: two
  // processes then write one page at the seam (a cost, never a conflict: their bytes are disjoint).
  MPI_Info info;
  MpiCheck(MPI_Info_create(&info), "MPI_Info_create");
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  void* base = nullptr;
  const int rc = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes_), 1, info, node_comm_, &base, &node_win_);
  MPI_Info_free(&info);
  MpiCheck(rc, "MPI_Win_allocate_shared");
  base_ = static_cast<uint8_t*>(base);

  // The node's parts by rank in `comm` (node-sized: no table over all ranks).
  MPI_Group node_group, comm_group;
  MpiCheck(MPI_Comm_group(node_comm_, &node_group), "MPI_Comm_group");
  MpiCheck(MPI_Comm_group(comm, &comm_group), "MPI_Comm_group");
  std::vector<int> node_ranks(static_cast<size_t>(node_size)), comm_ranks(static_cast<size_t>(node_size));
  for (int j = 0; j < node_size; ++j) node_ranks[static_cast<size_t>(j)] = j;
  MpiCheck(MPI_Group_translate_ranks(node_group, node_size, node_ranks.data(), comm_group, comm_ranks.data()),
           "MPI_Group_translate_ranks");
  MPI_Group_free(&node_group);
  MPI_Group_free(&comm_group);
  for (int j = 0; j < node_size; ++j) {
    MPI_Aint size = 0;
    int unit = 0;
    void* part = nullptr;
    MpiCheck(MPI_Win_shared_query(node_win_, j, &size, &unit, &part), "MPI_Win_shared_query");
    node_parts_.emplace_back(comm_ranks[static_cast<size_t>(j)], static_cast<uint8_t*>(part));
    write_sources_.AddRegion(part, static_cast<size_t>(size));
  }
  std::sort(node_parts_.begin(), node_parts_.end());

  // Ranks on other nodes reach this memory one-sidedly (a job on one node needs no such window).
  if (node_size < CommSize(comm))
    MpiCheck(MPI_Win_create(base_, static_cast<MPI_Aint>(bytes_), 1, MPI_INFO_NULL, comm, &rma_win_), "MPI_Win_create");
}

AggregationWindow::~AggregationWindow() {
  if (rma_win_ != MPI_WIN_NULL) MPI_Win_free(&rma_win_);
  if (node_win_ != MPI_WIN_NULL) MPI_Win_free(&node_win_);
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
}

uint8_t* AggregationWindow::Direct(int rank) const {
  if (rank == rank_) return base_;
  const auto at = std::lower_bound(node_parts_.begin(), node_parts_.end(), rank,
                                   [](const std::pair<int, uint8_t*>& part, int r) { return part.first < r; });
  return at != node_parts_.end() && at->first == rank ? at->second : nullptr;
}

void AggregationWindow::Fence(int rma_asserts) {
  // The shared window is fenced without assertions: its fence is what orders plain loads and
  // stores between the node's ranks.
  if (node_win_ != MPI_WIN_NULL) MpiCheck(MPI_Win_fence(0, node_win_), "MPI_Win_fence(node)");
  if (rma_win_ != MPI_WIN_NULL) MpiCheck(MPI_Win_fence(rma_asserts, rma_win_), "MPI_Win_fence");
}

void AggregationWindow::Put(const uint8_t* src, int64_t bytes, int target, int64_t displacement) {
  Check(rma_win_ != MPI_WIN_NULL, ErrorCode::kInternal, "put to a part that is loaded and stored directly");
  for (int64_t at = 0; at < bytes; at += kMaxTransferBytes) {
    const int n = CheckedInt(std::min(kMaxTransferBytes, bytes - at), "put size");
    MpiCheck(MPI_Put(src + at, n, MPI_BYTE, target, static_cast<MPI_Aint>(displacement + at), n, MPI_BYTE, rma_win_),
             "MPI_Put");
  }
}

void AggregationWindow::Get(uint8_t* dst, int64_t bytes, int target, int64_t displacement) {
  Check(rma_win_ != MPI_WIN_NULL, ErrorCode::kInternal, "get from a part that is loaded and stored directly");
  for (int64_t at = 0; at < bytes; at += kMaxTransferBytes) {
    const int n = CheckedInt(std::min(kMaxTransferBytes, bytes - at), "get size");
    MpiCheck(MPI_Get(dst + at, n, MPI_BYTE, target, static_cast<MPI_Aint>(displacement + at), n, MPI_BYTE, rma_win_),
             "MPI_Get");
  }
}

}  // namespace hzio::mpi
