/// hzio's own keys in the `.idx` text header. OpenVisus keeps keys it does not know as metadata
/// and ignores them (idx-format.md §1.1 rule 5, §1.2), so these change nothing for other readers:
///  * `(hzio generation)` N: the data directory of this version of the dataset is its N-th
///    generation (`./visus.g3/` for N = 3; absent = 1, the directory the template was made with).
///    A write that must change existing block files writes a new generation (the old one stays
///    readable until the header switches over; access/dataset_transaction.h).
///  * `(hzio written)`: which field/timestep parts have been written, as `NAME@T0:T1,T2 ...`
///    (one item per field, timesteps as inclusive ranges). Absent = unknown (a dataset hzio did
///    not create): every declared part counts as written. `hzio create` declares parts without
///    data; this key lets `verify`, `info` and `read` say which were never written.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hzio/format/idx_header.h"

namespace hzio {

inline constexpr char kGenerationKey[] = "hzio generation";
inline constexpr char kWrittenKey[] = "hzio written";

/// The value of metadata key `key`, if present.
std::optional<std::string> MetadataValue(const IdxHeader& header, const std::string& key);
/// Sets (replacing) or, with nullopt, removes metadata key `key`.
void SetMetadataValue(IdxHeader& header, const std::string& key, const std::optional<std::string>& value);

/// The generation of the header's data directory (1 when the key is absent). Throws
/// kInvalidArgument for a value that is not an integer >= 1.
int64_t Generation(const IdxHeader& header);
/// Records generation `n` (>= 2; 1 removes the key).
void SetGeneration(IdxHeader& header, int64_t n);

/// The field/timestep parts a dataset holds data for.
class WrittenParts {
 public:
  /// The header's record, or nullopt when it has none (then every declared part counts as
  /// written). Throws kInvalidArgument naming the key for a malformed value.
  static std::optional<WrittenParts> Of(const IdxHeader& header);
  /// Parses the key's value (inverse of ToText).
  static WrittenParts Parse(const std::string& text);

  bool Contains(const std::string& field, int64_t time) const;
  void Add(const std::string& field, int64_t time);
  void AddAll(const WrittenParts& other);
  /// "NAME@T0:T1,T2 NAME2@..." (fields in name order, runs of consecutive timesteps as ranges).
  std::string ToText() const;
  /// Stores this record into the header.
  void StoreInto(IdxHeader& header) const;

 private:
  std::map<std::string, std::set<int64_t>> parts_;
};

/// A declared part without data: field name and timesteps (as "T0:T1,T2" text).
struct UnwrittenPart {
  std::string field;
  std::string times;
  std::vector<int64_t> list;
};
/// The declared parts the header's `(hzio written)` record says were never written (empty when
/// the header has no record or timesteps are "* *"). At most `limit` timesteps are examined.
std::vector<UnwrittenPart> NeverWrittenParts(const IdxHeader& header, size_t limit = 100000);

/// Timesteps as text: runs of consecutive values as ranges, "0:3,5".
std::string FormatTimeList(const std::vector<int64_t>& sorted_times);

}  // namespace hzio
