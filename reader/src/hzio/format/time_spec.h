/// The `(time)` key (idx-format.md §1.5): which integer timesteps exist and the printf template
/// that puts a timestep into block filenames.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hzio {

struct TimeRange {
  int64_t from = 0, to = 0, step = 1;
};

struct TimeSpec {
  std::string tmpl;               // e.g. "time_%02d/"; empty = no time in filenames
  bool any = false;               // "* *": every integer is a timestep
  std::vector<TimeRange> ranges;  // empty and !any = one timestep, 0

  /// Parses the value of `(time)`; throws kInvalidArgument naming the text.
  static TimeSpec Parse(const std::string& value);
  /// A contiguous range 0..n-1 with the OpenVisus-style template.
  static TimeSpec Range(int64_t from, int64_t to, std::string tmpl);

  bool Contains(int64_t t) const;
  int64_t Default() const;
  /// The declared timesteps (at most `limit`; a "* *" spec lists only the default).
  std::vector<int64_t> List(size_t limit = 100000) const;
  /// Value text as OpenVisus writes it (old form for one contiguous range).
  std::string ToHeaderValue() const;
  /// sprintf(tmpl, t) with the single integer conversion of the template.
  std::string Format(int64_t t) const;
};

}  // namespace hzio
