// A yardstick, not a format: the least work any writer of HZ-ordered samples does. Each rank
// HZ-encodes its own box (the gather of hzio's phase 2, hz/box_encoder.h, one per field) into memory and
// writes it to a file of its own — no exchange, no aggregation, no shared file, no block table;
// reading is the reverse (one read, one scatter into the user's arrays). Its ratio to
// file-per-process is what the HZ reordering alone costs on a machine; hzio's ratio to it is what
// everything else (restructuring, aggregation, IDX files) costs on top. Needs power-of-two boxes
// aligned to their size (the regular case).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/hz/box_encoder.h"
#include "hzio/hz/unit_scatter.h"
#include "s3d_case.h"

namespace hzio_bench {

class HzFloor {
 public:
  /// Precomputes the hz order of this rank's box (not timed). Throws if the box is not an aligned
  /// power-of-two cell.
  explicit HzFloor(const S3dCase& c);

  void Write(const std::string& dir);
  void Read(const std::string& dir, std::vector<std::vector<uint8_t>>& out);

 private:
  // A piece of an hz run of the encoded box (a block's worth of a level, kPieceSamples, as hzio's
  // reader places them): where it starts among the encoded samples, the row-major index in the box
  // its scatter's offsets are relative to, and that scatter (scatters_, shared by the pieces of a
  // run that are laid out alike, as the reader shares them per level).
  struct Run {
    int64_t first, base;
    size_t scatter;
  };
  // Where each hz run of the box goes among the encoded samples (the runs back to back, in hz order).
  struct RunPlace {
    uint64_t hz;
    int64_t first, count;
  };
  void EncodeInto(const hzio::BoxEncoder& encoder, const uint8_t* data, int64_t sb, uint8_t* out) const;
  const S3dCase& case_;
  std::vector<RunPlace> places_;  // ascending hz
  std::vector<Run> runs_;
  std::vector<hzio::BlockScatter> scatters_;
  std::vector<std::vector<uint8_t>> encoded_;   // per field, pre-touched
};

}  // namespace hzio_bench
