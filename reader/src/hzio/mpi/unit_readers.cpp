#include "hzio/mpi/unit_readers.h"

#include <algorithm>

#include "hzio/mpi/collective.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

int32_t CombineReaders(int32_t a, int32_t b) {
  if (a == kNoReader) return b;
  if (b == kNoReader || a == b) return a;
  return kSharedUnit;
}

namespace {

void CombineMarks(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const int32_t*>(in);
  auto* b = static_cast<int32_t*>(inout);
  for (int i = 0; i < *count; ++i) b[i] = CombineReaders(a[i], b[i]);
}

}  // namespace

void ReduceReaders(MPI_Comm comm, std::vector<int32_t>& marks) {
  MPI_Op op = MPI_OP_NULL;
  MpiCheck(MPI_Op_create(&CombineMarks, 1, &op), "MPI_Op_create(readers)");
  constexpr int64_t kPiece = kMaxTransferBytes / static_cast<int64_t>(sizeof(int32_t));
  int rc = MPI_SUCCESS;
  for (int64_t at = 0; at < static_cast<int64_t>(marks.size()) && rc == MPI_SUCCESS; at += kPiece) {
    const int count = CheckedInt(std::min<int64_t>(kPiece, static_cast<int64_t>(marks.size()) - at), "readers");
    rc = MPI_Allreduce(MPI_IN_PLACE, marks.data() + at, count, MPI_INT32_T, op, comm);
  }
  MPI_Op_free(&op);
  MpiCheck(rc, "MPI_Allreduce(readers)");
}

UnitSplit SplitUnits(const std::vector<uint64_t>& units, const std::vector<int32_t>& readers, int ranks, int rank,
                     int64_t min_own) {
  Check(units.size() == readers.size() && ranks > 0, ErrorCode::kInternal, "unit readers do not match the units");
  UnitSplit split;
  std::vector<int64_t> owned(static_cast<size_t>(ranks), 0);
  for (const int32_t r : readers)
    if (r >= 0 && r < ranks) ++owned[static_cast<size_t>(r)];
  int64_t each = *std::min_element(owned.begin(), owned.end());
  const int64_t needed = static_cast<int64_t>(std::count_if(readers.begin(), readers.end(), [](int32_t r) { return r != kNoReader; }));
  if (each < min_own && each * ranks < needed) each = 0;  // a small read with a shared part: all through the window
  split.any_own = each > 0;
  std::vector<int64_t> taken(static_cast<size_t>(ranks), 0);
  for (size_t i = 0; i < units.size(); ++i) {
    const int32_t r = readers[i];
    if (r == kNoReader) continue;
    if (r >= 0 && r < ranks && taken[static_cast<size_t>(r)] < each) {
      ++taken[static_cast<size_t>(r)];
      if (r == rank) split.own.push_back(units[i]);
    } else {
      split.shared.push_back(units[i]);
    }
  }
  return split;
}

int64_t MeanOwnRunBytes(const std::vector<uint64_t>& units, const std::vector<int32_t>& readers, int64_t unit_bytes) {
  Check(units.size() == readers.size(), ErrorCode::kInternal, "unit readers do not match the units");
  int64_t own = 0, runs = 0;
  for (size_t i = 0; i < units.size(); ++i) {
    if (readers[i] < 0) continue;
    ++own;
    if (i == 0 || readers[i - 1] != readers[i] || units[i - 1] + 1 != units[i]) ++runs;
  }
  return runs > 0 ? own * unit_bytes / runs : 0;
}

}  // namespace hzio::mpi
