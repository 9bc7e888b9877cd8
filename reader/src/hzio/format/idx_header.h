/// The `.idx` header (idx-format.md §1): every key OpenVisus knows, unknown keys preserved in
/// order, the text and XML forms, and OpenVisus's validation and defaults (§1.7, §2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/format/field.h"
#include "hzio/format/time_spec.h"
#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio {

struct IdxHeader {
  int version = 6;
  /// `(version)` as written when it is not the plain integer (PIDX writes "6.1"); written back
  /// verbatim. OpenVisus reads only its leading integer (std::stoi), so "6.1" is version 6.
  std::string version_text;
  Box box;  // logic box, exclusive upper corner
  Bitmask bitmask;
  std::vector<Field> fields;
  int bits_per_block = 0;       // 0 = default min(maxh, 16)
  int64_t blocks_per_file = 0;  // 0 = guess, -1 = all blocks in one file
  int64_t interleave = 0;
  std::string filename_template;  // "" = guess
  TimeSpec time;
  bool has_time = false;                     // whether `(time)` was present
  std::vector<double> physic_box;            // x1 x2 y1 y2 ...; empty = logic box
  std::vector<double> logic_to_physic;       // row-major (dims+1)^2; empty = identity
  std::string axis;
  bool missing_blocks = false;
  int64_t arco = 0;
  std::vector<std::pair<std::string, std::string>> metadata;  // unknown keys without parentheses

  int dims() const { return bitmask.dims(); }
  int maxh() const { return bitmask.maxh(); }
  uint64_t total_blocks() const { return uint64_t{1} << (maxh() - bits_per_block); }
  /// The value of an unknown (metadata) key such as PIDX's "compression type", or nullptr.
  const std::string* Metadata(const std::string& key) const;
  /// Index of the field named `name`; throws kNotFound listing the fields.
  int FieldIndex(const std::string& name) const;
  /// The physic box as (min, max) pairs per axis, derived from the logic box when absent.
  std::vector<double> PhysicBoxOrLogic() const;

  /// Parses the text form, or the XML form if the text starts with '<'. `source` names the file
  /// or URL in error messages; `idx_stem` is the .idx base name used to guess a template.
  /// The result is validated (Validate()).
  static IdxHeader Parse(const std::string& text, const std::string& source,
                         const std::string& idx_stem = "visus");
  /// OpenVisus's validation and defaulting (§1.7); throws kInvalidArgument naming the problem.
  void Validate(const std::string& idx_stem = "visus");
  /// The text form exactly as OpenVisus's writeToOldFormat writes it (§1.6, §1.8).
  std::string ToText() const;
  /// The XML form served by mod_visus `readdataset&format=xml` (§1.9) for dataset `name`.
  std::string ToXml(const std::string& name) const;
};

/// PIDX 0.9.3's layouts (idx-format.md §1.2): its extra keys say how the blocks were written.
/// `(io mode) idx` with `(compression type) 0` is plain IDX and passes; PIDX's chunked layouts
/// (types 1 and 2, any other type), its raw/l_part_idx/particle io modes and big-endian samples
/// throw kUnsupported naming the key. Headers without these keys pass.
void CheckPidxLayout(const IdxHeader& header);

/// The §2.4 filename template guess for an .idx base name.
std::string GuessFilenameTemplate(const std::string& idx_stem, int maxh, int bits_per_block);

}  // namespace hzio
