/// Where the files of a classic (non-ARCO) dataset live: the data directory its filename template
/// names (idx-format.md §4.4), the generations hzio writes of that directory (format/hzio_keys.h),
/// the block files a header can reference, the names a template can produce (to tell block files
/// from leftovers), and whether a path belongs to a dataset (so `hzio read -o` never writes into
/// the dataset it reads).
///
/// Generation N >= 2 of data directory `DIR` is its sibling `DIR.gN` (`./visus/%04x.bin` becomes
/// `./visus.g2/%04x.bin`), which OpenVisus reads through the template unchanged and which cannot
/// meet ARCO's `<stem>/<time>/<field>/` directories. A template without a directory of its own
/// (files beside the `.idx`) gets `./<stem>.gN/` when it moves to a new generation.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "hzio/format/idx_header.h"

namespace hzio {

struct DataDirectory {
  std::string path;       // the directory holding the block files (resolved, as the template names it)
  bool dedicated = true;  // false: the files sit in the .idx's own directory (or the working directory)
  std::string base_name;  // the name generations derive from ("visus" for visus/, visus.g2/, ...)
  int64_t generation = 1;
};

/// The data directory of `header` (a dataset whose `.idx` is `idx_path`).
DataDirectory DataDirectoryOf(const IdxHeader& header, const std::string& idx_path);

/// The directory of `.idx` path `idx_path` ("." when it has none).
std::string IdxDirectory(const std::string& idx_path);
/// "a/b/name.idx" -> "name".
std::string IdxStemOf(const std::string& idx_path);

/// `header` moved to generation `n` (> its own): the template names `<base>.g<n>/` and
/// `(hzio generation)` says n. Other keys are unchanged.
IdxHeader WithGeneration(const IdxHeader& header, const std::string& idx_path, int64_t n);

/// One block file: the file holding `first_block`.. at timestep `time`.
struct BlockFileRef {
  uint64_t first_block = 0;
  int64_t time = 0;
  std::string path;
};
/// Every block file of `header` that can hold samples of its box, at each of `times` (default:
/// every declared timestep), whether it exists or not. Throws kUnsupported for "* *" timesteps
/// without `times`, kTooLarge beyond 2^24 blocks (list the files that exist instead).
std::vector<BlockFileRef> ReferencedFiles(const IdxHeader& header, const std::string& idx_path,
                                          const std::optional<std::vector<int64_t>>& times = std::nullopt);

/// The names a template can produce, relative to the data directory (any block number, any
/// timestep, overflow directories included), and the file and timestep a name stands for.
class BlockFileNames {
 public:
  explicit BlockFileNames(const IdxHeader& header);
  bool Matches(const std::string& relative_path) const;
  struct Id {
    uint64_t first_block = 0;
    int64_t time = 0;
  };
  /// The first block and timestep of the file, or nullopt when the name is not one the template
  /// makes. Without a time template the timestep is the header's default.
  std::optional<Id> Parse(const std::string& relative_path) const;
  /// Whether the last component of the path is named as the template names files ("0a1f.bin"
  /// for "%04x.bin"), whatever the directories: the files of an earlier version of the dataset,
  /// whose time template or directory depth may have been different.
  bool LooksLikeBlockFile(const std::string& relative_path) const;

 private:
  std::regex pattern_;
  std::regex file_name_;
  bool has_time_ = false;   // submatch 1 is the time number
  bool hex_time_ = false;   // the time conversion is %x
  int64_t default_time_ = 0;
};

/// The block files of `header` that exist, found by listing its data directory (or, for files
/// beside the `.idx`, by checking each declared one), with declared timesteps and valid first
/// blocks only: the files this version of the dataset reads. `only_time`: of that timestep only.
/// Cost: the files that exist, not the blocks that could.
std::vector<BlockFileRef> ExistingBlockFiles(const IdxHeader& header, const std::string& idx_path,
                                             std::optional<int64_t> only_time = std::nullopt);

/// Names of temporary files hzio writers leave when they are killed (`*.tmp.<pid>`, `*.hzio-*`).
bool IsTemporaryName(const std::string& file_name);

/// Throws kInvalidArgument when `path` (which may not exist yet) is the dataset's `.idx` or its
/// lock file, lies inside its data directory or one of its generations, or is named like one of
/// its block files — compared after resolving symbolic links — or is another name (device and
/// inode) of its `.idx` or of one of its block files.
void CheckNotPartOfDataset(const std::string& path, const IdxHeader& header, const std::string& idx_path);

}  // namespace hzio
