// The one-line JSON report of `hzio-mpi write|read --json` (design.md §3).
#pragma once

#include <optional>
#include <string>

#include "hzio/mpi/stats.h"

namespace hzio_mpi_tool {

/// {"ranks":N,"bytes":B,"seconds":S,"gib_per_s":G,"phases":{...},"aggregators":[...][,"verify":..]}
/// Phases are listed in execution order: writer restructure,hz,aggregate,io; reader the reverse.
std::string JsonReport(int ranks, const hzio::mpi::IoStats& stats, bool reader, std::optional<bool> verified);

/// Human-readable summary for runs without --json.
std::string TextReport(int ranks, const hzio::mpi::IoStats& stats, bool reader, std::optional<bool> verified);

}  // namespace hzio_mpi_tool
