/// Which file holds a block and where its entry sits (idx-format.md §4.3), and the filename
/// template expansion with time and overflow directories (§4.4, §4.10 for versions 1–4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/format/idx_header.h"

namespace hzio {

/// Expands a v5/v6 template for the file whose first block is `first_block`; `time_text` is the
/// already formatted time template ("" for none). Throws kInvalidArgument for a malformed group.
std::string ExpandFilenameTemplate(const std::string& tmpl, uint64_t first_block,
                                   const std::string& time_text);

/// A path produced by a template, made absolute the way OpenVisus does (§4.4): every
/// "$(CurrentFileDirectory)" and a leading "./" stand for `idx_dir`.
std::string ResolveTemplatePath(std::string name, const std::string& idx_dir);

class BlockFiles {
 public:
  /// `idx_dir` replaces a leading "./" and "$(CurrentFileDirectory)" in the template.
  BlockFiles(const IdxHeader& header, std::string idx_dir);

  int64_t blocks_per_file() const { return bpf_; }
  /// Slot of block b inside its file (getBlockPositionInFile).
  int64_t PositionInFile(uint64_t block) const;
  /// The block number that names b's file (getFirstBlockInFile).
  uint64_t FirstBlockInFile(uint64_t block) const;
  /// Path of the file holding `block` at timestep `time`.
  std::string FilePath(uint64_t block, int64_t time) const;

 private:
  std::string tmpl_;
  TimeSpec time_;
  int version_;
  int64_t bpf_;
  int64_t interleave_;
  std::string idx_dir_;
};

}  // namespace hzio
