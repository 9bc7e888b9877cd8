#include "hzio/mpi/release_schedule.h"

#include <algorithm>
#include <utility>

#include "hzio/util/error.h"

namespace hzio::mpi {

ReleaseSchedule::ReleaseSchedule(const FileAggregation& plan, std::vector<int> parts) : parts_(std::move(parts)) {
  for (int64_t a = 0; a < plan.aggregators(); ++a) units_.push_back(plan.Units(a));
  for (size_t f = 0; f < parts_.size(); ++f) {
    first_step_.push_back(static_cast<int>(steps_.size()));
    for (int p = 0; p < parts_[f]; ++p) steps_.push_back(Step{static_cast<int>(f), p, false});
  }
}

ReleaseSchedule ReleaseSchedule::FieldByField(const IdxHeader& header, const FileAggregation& plan) {
  return ReleaseSchedule(plan, std::vector<int>(header.fields.size(), 1));
}

ReleaseSchedule ReleaseSchedule::Released(const IdxHeader& header, const FileAggregation& plan, int64_t max_releases,
                                          bool split_fields) {
  Check(plan.whole_files() && plan.units_per_block() == 1, ErrorCode::kInternal,
        "released steps need aggregators of whole files");
  int64_t total = 0;
  for (const Field& f : header.fields) total += f.dtype.SampleBytes();
  // A part takes a share of every aggregator's blocks: no more parts than the fewest blocks any
  // aggregator holds, so that none is empty.
  int64_t fewest = 0;
  for (int64_t a = 0; a < plan.aggregators(); ++a) {
    const int64_t n = plan.Units(a).size();
    if (n > 0 && (fewest == 0 || n < fewest)) fewest = n;
  }
  std::vector<int> parts;
  for (const Field& f : header.fields) {
    const int64_t share = f.dtype.SampleBytes() * max_releases / std::max<int64_t>(total, 1);
    parts.push_back(split_fields ? static_cast<int>(std::clamp<int64_t>(share, 1, std::max<int64_t>(fewest, 1))) : 1);
  }
  ReleaseSchedule out(plan, parts);
  // Each part of a field of several holds at least 1/max_releases of the bytes by construction;
  // fields of one part are grouped until they do.
  int64_t since = 0;
  for (Step& step : out.steps_) {
    const int64_t bytes = header.fields[static_cast<size_t>(step.field)].dtype.SampleBytes();
    since += bytes;
    if (out.parts(step.field) > 1 || since * max_releases >= total) {
      step.release = true;
      since = 0;
    }
  }
  if (!out.steps_.empty()) out.steps_.back().release = false;  // the round's write takes the rest
  if (out.releases() == 0) return FieldByField(header, plan);
  return out;
}

int64_t ReleaseSchedule::releases() const {
  return std::count_if(steps_.begin(), steps_.end(), [](const Step& s) { return s.release; });
}

int ReleaseSchedule::StageOf(int field, int64_t agg, int64_t block) const {
  const int first = first_step_[static_cast<size_t>(field)];
  const int p = parts(field);
  if (p == 1) return first;
  const Span& units = units_[static_cast<size_t>(agg)];
  return first + static_cast<int>(EvenSplitOwner(units.size(), p, block - units.begin));
}

std::vector<Span> ReleaseSchedule::PartUnits(int field, int part) const {
  std::vector<Span> ranges;
  for (const Span& units : units_) {
    const Span share = EvenSplit(units.size(), parts(field), part);  // empty with fewer units than parts
    AppendMerged(ranges, Span{units.begin + share.begin, units.begin + share.end});
  }
  return ranges;
}

}  // namespace hzio::mpi
