/// The steps in which a round of the parallel writer encodes its fields, and after which of them a
/// durable write of whole raw files releases what they made final to its started files
/// (storage/staged_file_write.h), so the disk works while the rest is encoded. A step is one field,
/// or a part of a field that holds a large share of the bytes (S3D's 11 species: 69% of a sample,
/// whose encoding the disk used to wait for): part p of such a field is the p-th of P equal shares
/// of every aggregator's blocks, so every aggregator has bytes to write after each part. A part is
/// not free: the coarser levels' share of it is spread over every tile of the cells, which each
/// part reads again. Steps are grouped so that a release holds at least 1/max_releases of the bytes
/// (each release costs a fence); nothing is released after the last step (the round's write takes
/// the rest). Pure arithmetic on the plan: the same on every rank.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/format/idx_header.h"
#include "hzio/mpi/file_aggregation.h"

namespace hzio::mpi {

class ReleaseSchedule {
 public:
  struct Step {
    int field = 0;
    int part = 0;          // of the field's parts(field)
    bool release = false;  // the steps so far are released after this one
  };

  /// One step per field, no release (a write that does not start its files early).
  static ReleaseSchedule FieldByField(const IdxHeader& header, const FileAggregation& plan);
  /// Fields grouped into at most about `max_releases` releases, and with `split_fields` the large
  /// ones cut into parts. The plan must give aggregators whole files (units are blocks). No release
  /// at all when fewer than two steps would result (a single field not cut, or every aggregator
  /// holding one block).
  static ReleaseSchedule Released(const IdxHeader& header, const FileAggregation& plan, int64_t max_releases,
                                  bool split_fields);

  const std::vector<Step>& steps() const { return steps_; }
  int64_t releases() const;
  int parts(int field) const { return parts_[static_cast<size_t>(field)]; }
  /// The step after which aggregator `agg`'s block `block` (one of its units) of `field` is final.
  int StageOf(int field, int64_t agg, int64_t block) const;
  /// The units [begin, end) of part `part` of `field`, ascending, adjacent ones merged: the whole
  /// round for a field of one part.
  std::vector<Span> PartUnits(int field, int part) const;

 private:
  ReleaseSchedule(const FileAggregation& plan, std::vector<int> parts);

  std::vector<int> parts_;        // per field
  std::vector<int> first_step_;   // per field: the index of its part 0
  std::vector<Span> units_;       // per aggregator
  std::vector<Step> steps_;
};

}  // namespace hzio::mpi
