#include "hzio/mpi/stats.h"

#include "hzio/mpi/collective.h"

namespace hzio::mpi {

void FinishStats(MPI_Comm comm, IoStats& s, double elapsed, int64_t local_data_bytes, int64_t local_file_bytes,
                 const std::function<int(int64_t)>& rank_of, std::exception_ptr local_error) {
  // Times travel as integer nanoseconds so they share the agreement's integer maxima; the byte
  // totals ride in the same allreduce.
  const double local[5] = {elapsed, s.local.restructure, s.local.hz, s.local.aggregate, s.local.io};
  std::vector<int64_t> ns;
  for (const double t : local) ns.push_back(static_cast<int64_t>(t * 1e9));
  const Reduced r = AgreeAndReduce(comm, std::move(ns), {local_data_bytes, local_file_bytes}, local_error);
  const auto seconds = [&](size_t i) { return static_cast<double>(r.maxima[i]) * 1e-9; };
  s.seconds = seconds(0);
  s.max = PhaseTimes{seconds(1), seconds(2), seconds(3), seconds(4)};
  s.data_bytes = r.sums[0];
  s.file_bytes = r.sums[1];
  const int rank = CommRank(comm), ranks = CommSize(comm);
  std::vector<int64_t> all(rank == 0 ? static_cast<size_t>(ranks) : 0);
  MpiCheck(MPI_Gather(&s.local_aggregator_bytes, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, 0, comm), "MPI_Gather");
  s.per_aggregator.clear();
  if (rank == 0)
    for (int64_t a = 0; a < s.aggregators; ++a) s.per_aggregator.push_back(AggregatorBytes{rank_of(a), all[static_cast<size_t>(rank_of(a))]});
}

}  // namespace hzio::mpi
