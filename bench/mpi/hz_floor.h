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
  const S3dCase& case_;
  std::vector<uint32_t> order_;                 // order_[k]: row-major index of the k-th encoded sample
  std::vector<std::vector<uint8_t>> encoded_;   // per field, pre-touched
};

}  // namespace hzio_bench
