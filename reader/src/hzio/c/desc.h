/// The dataset description behind `hzio_desc` (hzio.h): an IdxHeader (idx-format.md §1) being
/// built by hzio_desc_* calls, or the validated header of an open reader or writer (borrowed,
/// read-only). Getters always answer from a validated header (bitmask, bits per block and
/// blocks per file filled in as a writer would, §1.7).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hzio/c/hzio.h"
#include "hzio/format/idx_header.h"

struct hzio_desc {
  /// A description being built (owned by the caller, changeable).
  hzio_desc() = default;
  /// The read-only description of a reader's or writer's validated header.
  explicit hzio_desc(hzio::IdxHeader validated_header);

  /// The header for getters and writers: validated, with its dtype texts (cached until the next
  /// change). Throws what IdxHeader::Validate throws.
  const hzio::IdxHeader& Validated() const;
  /// Canonical dtype text of field `index` of Validated().
  const std::string& DTypeText(int index) const;

  /// Applies `change` to a copy of the header, validates the copy (with a placeholder field
  /// while there are none, so sizes and options fail at once), and keeps it only if valid.
  template <class Change>
  void Modify(Change&& change) {
    hzio::IdxHeader changed = header;
    change(changed);
    CheckValid(changed);
    header = std::move(changed);
    validated_.reset();
  }

  /// Field `index` (0-based) of Validated(); kNotFound naming the range otherwise.
  const hzio::Field& FieldAt(int index) const;

  hzio::IdxHeader header;          // as described (built) or as validated (borrowed)
  bool borrowed = false;           // belongs to a reader or writer: no changes, no free
  std::string new_field_compression;  // for fields added later (hzio_desc_set_compression(NULL))
  bool new_field_hz_layout = true;    // for fields added later (hzio_desc_set_layout(NULL))

 private:
  static void CheckValid(const hzio::IdxHeader& header);

  mutable std::shared_ptr<const hzio::IdxHeader> validated_;
  mutable std::vector<std::string> dtype_texts_;
};

namespace hzio::internal_c {

/// The header a writer of `path` writes for `desc`: validated, the block-file template guessed
/// from the .idx name (§2.4).
IdxHeader HeaderForWriting(const hzio_desc& desc, const std::string& path);

/// Throws kInvalidArgument unless `desc` may be changed (not borrowed).
void RequireChangeable(const hzio_desc* desc);

}  // namespace hzio::internal_c
