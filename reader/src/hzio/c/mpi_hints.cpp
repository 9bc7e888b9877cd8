#include "hzio/c/mpi_hints.h"

#include <string>
#include <vector>

#include "hzio/mpi/collective.h"
#include "hzio/mpi/node_share.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_c {

MpiHints ReadHints(MPI_Info info) {
  MpiHints hints;
  if (info == MPI_INFO_NULL) return hints;
  int keys = 0;
  mpi::MpiCheck(MPI_Info_get_nkeys(info, &keys), "MPI_Info_get_nkeys");
  for (int k = 0; k < keys; ++k) {
    std::vector<char> key(MPI_MAX_INFO_KEY + 1, '\0');
    mpi::MpiCheck(MPI_Info_get_nthkey(info, k, key.data()), "MPI_Info_get_nthkey");
    int length = 0, found = 0;
    mpi::MpiCheck(MPI_Info_get_valuelen(info, key.data(), &length, &found), "MPI_Info_get_valuelen");
    std::vector<char> text(static_cast<size_t>(length) + 1, '\0');
    mpi::MpiCheck(MPI_Info_get(info, key.data(), length, text.data(), &found), "MPI_Info_get");
    const std::string name = key.data(), value = text.data();
    const std::string what = "hint " + name + "=" + value;
    if (name == "memory_budget") {
      hints.memory_budget = ParseByteSize(value, what);
      Check(hints.memory_budget > 0, ErrorCode::kInvalidArgument, what + ": the budget must be positive");
    } else if (name == "aggregators") {
      hints.aggregators = ParseInt64(value, what);
      Check(hints.aggregators >= 0, ErrorCode::kInvalidArgument, what + ": 0 (one per rank) or more");
    } else if (name == "threads") {
      hints.threads = mpi::CheckThreadsOption(ParseInt64(value, what), "hint threads");
    } else {
      Check(false, ErrorCode::kInvalidArgument,
            "unknown hint '" + name + "' (hzio's hints: memory_budget, aggregators, threads)");
    }
  }
  return hints;
}

void Apply(const MpiHints& hints, mpi::WriteOptions& options) {
  options.memory_budget = hints.memory_budget;
  options.aggregators = hints.aggregators;
  options.encoding_threads = hints.threads;
}

void Apply(const MpiHints& hints, mpi::ReadOptions& options) {
  options.memory_budget = hints.memory_budget;
  options.aggregators = hints.aggregators;
  options.placing_threads = hints.threads;
}

}  // namespace hzio::internal_c
