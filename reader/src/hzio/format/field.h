/// One field of a dataset (idx-format.md §1.3): name, dtype and the options OpenVisus reads from
/// its `(fields)` line, plus the parser and writer of that line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/format/dtype.h"

namespace hzio {

struct Field {
  std::string name;
  DType dtype;
  std::string compression;    // storage codec spec for new blocks ("" = raw, "zip", "lz4", ...)
  bool hz_layout = false;     // layout of newly written blocks (stored blocks carry their own bit)
  int64_t default_value = 0;  // fill for samples never written
  std::string filter;
  std::string description;
  std::vector<double> min, max;  // per component; empty = unknown
  /// The dtype is written counted, "3*float64" (DType::ToCountedString): read that way, or made
  /// for PIDX 0.9.3 (format/pidx_output.h), whose reader knows no other vector spelling.
  bool counted_dtype = false;

  /// Parses one piece of `(fields)` (§1.3); `version` drives layout normalisation.
  static Field Parse(const std::string& piece, int version);
  /// One sample holding default_value in every component, in the field's dtype (byte-aligned).
  std::vector<uint8_t> DefaultSample() const;
  /// The line OpenVisus writes for this field (with its trailing space, no `+ ` prefix).
  std::string ToHeaderLine(int version) const;
};

/// Splits a `(fields)` value on `+` outside brackets and parses each piece (§1.3).
std::vector<Field> ParseFields(const std::string& value, int version);

}  // namespace hzio
