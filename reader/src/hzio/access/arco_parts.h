/// The part directories of an ARCO dataset — one field at one timestep, `<root>/<time>/<field>/`
/// (idx-format.md §4.12, format/arco_block_path.h) — and how hzio's writes replace them. ARCO block
/// paths are fixed by the `.idx` path, so a write cannot move to a new generation of the data
/// directory as classic writes do (access/dataset_paths.h); it switches whole part directories:
///
///  * A write builds each part it changes under a staging name, `<field>.hzio-staged` beside it,
///    with a generation file `.hzio_generation` holding the new version's generation (the
///    header's `(hzio generation)` + 1; format/hzio_keys.h). OpenVisus never looks at either.
///  * The commit renames the committed part away to `<field>.hzio-prev`, the staged one into its
///    place, for every part (a journal beside the `.idx` lists them first), then renames the new
///    `.idx` into place — the commit point — and then removes the `.hzio-prev` directories.
///  * A reader holding version G opens `<field>/` if its generation is at most G. A larger one
///    means a newer version is being switched in (or a switch was interrupted): the reader then
///    opens `<field>.hzio-prev`, the version it was opened with; if there is none, the part had
///    no directory in its version (absent blocks) unless the `.idx` changed meanwhile (the caller
///    then reports kChanged). Block files are opened relative to the opened directory, so a
///    reader keeps reading one version of a part however its names move.
///  * A writer that finds the journal of an interrupted commit rolls it back (or, when the new
///    `.idx` was already in place, finishes it) under the dataset's lock before doing anything.
///
/// A part without a generation file (written by OpenVisus) has generation 1. This file holds the
/// reader's side of that protocol. hzio writes only new ARCO datasets so far (DatasetWriter: the
/// block files, then the `.idx`), which need no switch: every part has generation 1 today.
#pragma once

#include <cstdint>
#include <string>

#include "hzio/format/idx_header.h"
#include "hzio/storage/durable_file.h"

namespace hzio {

/// The generation file of a part directory.
inline constexpr char kArcoGenerationFile[] = ".hzio_generation";

/// An ARCO dataset's root: its `.idx` path without the extension ("/d/visus.idx" -> "/d/visus").
std::string ArcoRoot(const std::string& idx_path);
/// The one naming function (format/arco_block_path.h) split at the part directory: a block file is
/// `ArcoPartDirectory(root, time, field) + "/" + ArcoBlockInPart(block)`.
std::string ArcoPartDirectory(const std::string& root, int64_t time, const std::string& field_name);
std::string ArcoBlockInPart(uint64_t block);
/// The previous-version name of a part directory (where a commit moves the part it replaces).
std::string ArcoPreviousName(const std::string& part_dir);

/// The generation of the part directory open as `dir_fd` (`dir_path` names it in errors): 1
/// without a generation file; kCorrupt naming the file when it holds no integer >= 1.
int64_t ReadPartGeneration(int dir_fd, const std::string& dir_path);

/// A part directory opened for reading (O_DIRECTORY); `fd` invalid when the part has no
/// directory. `path` is the name it was opened by (for errors).
struct OpenedPart {
  ScopedFd fd;
  std::string path;
};
/// Opens the directory holding part `part_dir` as it is in the version of generation
/// `generation` (the rule above). An invalid fd means the part has no directory in that version
/// — or the dataset changed since: callers check the `.idx` before reporting absent blocks.
/// Throws kIo for a path that is not a directory, kCorrupt for a generation file that does not
/// parse.
OpenedPart OpenArcoPart(const std::string& part_dir, int64_t generation);

}  // namespace hzio
