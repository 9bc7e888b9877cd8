#include "hzio/access/dataset_leftovers.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include "hzio/access/block_file_copy.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/access/dataset_transaction.h"
#include "hzio/storage/durable_file.h"
#include "hzio/storage/lock_file.h"
#include "hzio/util/error.h"

namespace hzio {

namespace fs = std::filesystem;

namespace {

std::string Normal(const std::string& p) { return fs::path(p).lexically_normal().string(); }

// Bytes (and, through `files`, the number) of the files under `root`; with `only`, of the block
// and temporary files it names.
uint64_t TreeBytes(const fs::path& root, const BlockFileNames* only, size_t* files = nullptr) {
  std::error_code ec;
  uint64_t bytes = 0;
  if (files) *files = 0;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string rel = fs::relative(it->path(), root).string();
    if (only && !only->LooksLikeBlockFile(rel) && !IsTemporaryName(it->path().filename().string())) continue;
    bytes += it->file_size(ec);
    if (files) ++*files;
  }
  return bytes;
}

// The original (generation 1) data directory of a dataset now in a later generation: only files
// named like block files (whatever their directories: an overwrite may have changed the time
// template) and temporary files are the dataset's; then empty directories go.
void RemoveMatchingFiles(const std::string& dir, const BlockFileNames& names) {
  std::error_code ec;
  std::vector<fs::path> files, dirs;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      dirs.push_back(it->path());
    } else if (it->is_regular_file(ec)) {
      const std::string rel = fs::relative(it->path(), dir).string();
      if (names.LooksLikeBlockFile(rel) || IsTemporaryName(it->path().filename().string())) files.push_back(it->path());
    }
  }
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw Error(ErrorCode::kIo, dir + ": cannot list: " + ec.message());
  for (const fs::path& f : files) RemovePath(f.string());
  std::sort(dirs.begin(), dirs.end(), [](const fs::path& a, const fs::path& b) { return a.string() > b.string(); });
  for (const fs::path& d : dirs) ::rmdir(d.c_str());  // deepest first; non-empty ones stay
  ::rmdir(dir.c_str());
}

// Directories that are generations of `header`'s data directory other than its own.
std::vector<Leftover> OtherGenerations(const IdxHeader& header, const std::string& idx_path) {
  const DataDirectory d = DataDirectoryOf(header, idx_path);
  const std::string parent = d.dedicated ? ParentDirectory(d.path) : d.path;
  const std::string own = d.dedicated ? fs::path(d.path).filename().string() : "";
  const std::regex generation(std::regex_replace(d.base_name, std::regex(R"([\\^$.|?*+()\[\]{}])"), R"(\$&)") +
                              R"(\.g[0-9]+)");
  const BlockFileNames names(header);
  std::vector<Leftover> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == own || !it->is_directory(ec) || it->is_symlink(ec)) continue;
    const bool original = d.dedicated && d.generation >= 2 && name == d.base_name;
    if (!original && !std::regex_match(name, generation)) continue;
    size_t files = 0;
    const uint64_t bytes = TreeBytes(it->path(), original ? &names : nullptr, &files);
    if (original && files == 0) continue;  // only what hzio did not write is left there
    out.push_back(Leftover{Leftover::Kind::kGeneration, it->path().string(), bytes, 0, 0});
  }
  return out;
}

void RemoveGenerationDirectory(const Leftover& item, const IdxHeader& header, const std::string& idx_path) {
  if (fs::path(item.path).filename().string() == DataDirectoryOf(header, idx_path).base_name)
    RemoveMatchingFiles(item.path, BlockFileNames(header));
  else
    RemoveTree(item.path);
}

}  // namespace

const char* LeftoverKindName(Leftover::Kind kind) {
  switch (kind) {
    case Leftover::Kind::kTemporary: return "temporary file of an interrupted write";
    case Leftover::Kind::kGeneration: return "data directory generation the header does not name (staged or superseded)";
    case Leftover::Kind::kUnreferencedFile: return "block file no declared block maps to";
    case Leftover::Kind::kUnreferencedBytes: return "bytes no block table entry references";
    case Leftover::Kind::kForeign: return "file hzio did not write (left alone)";
    case Leftover::Kind::kAbandonedLock: return "lock file of a writer that did not finish (OpenVisus waits while it exists)";
  }
  return "leftover";
}

uint64_t LeftoverReport::ReclaimableBytes() const {
  uint64_t total = 0;
  for (const Leftover& l : items)
    if (l.kind != Leftover::Kind::kForeign) total += l.bytes;
  return total;
}

size_t LeftoverReport::Reclaimable() const {
  return static_cast<size_t>(std::count_if(items.begin(), items.end(),
                                           [](const Leftover& l) { return l.kind != Leftover::Kind::kForeign; }));
}

LeftoverReport FindLeftovers(const IdxHeader& header, const std::string& idx_path) {
  LeftoverReport report;
  report.never_written = NeverWrittenParts(header);
  const DataDirectory d = DataDirectoryOf(header, idx_path);
  std::error_code ec;
  if (d.generation >= 2 && !fs::is_directory(d.path, ec)) report.missing_directory = d.path;
  report.items = OtherGenerations(header, idx_path);

  // The referenced files: bytes their tables do not cover.
  std::map<std::string, BlockFileRef> referenced;
  for (BlockFileRef& f : ExistingBlockFiles(header, idx_path)) referenced.emplace(Normal(f.path), std::move(f));
  const int64_t slots = header.blocks_per_file * static_cast<int64_t>(header.fields.size());
  for (const auto& [path, f] : referenced) {
    if (header.version != 6) break;
    ScopedFd fd = OpenForReadingIfExists(path);
    if (!fd.valid()) continue;
    uint64_t unreferenced = 0;
    try {
      unreferenced = UnreferencedBytes(ReadBlockFileTable(fd.get(), path, slots), slots);
    } catch (const Error&) {
      continue;  // a corrupt table: the block check reports it
    }
    if (unreferenced > 0)
      report.items.push_back(Leftover{Leftover::Kind::kUnreferencedBytes, path, unreferenced, f.first_block, f.time});
  }

  // Everything else in a data directory of its own.
  const BlockFileNames names(header);
  if (d.dedicated && fs::is_directory(d.path, ec)) {
    for (auto it = fs::recursive_directory_iterator(d.path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory(ec)) continue;
      const std::string path = Normal(it->path().string());
      if (referenced.count(path)) continue;
      const std::string rel = fs::relative(it->path(), d.path).string();
      const uint64_t bytes = it->is_regular_file(ec) ? it->file_size(ec) : 0;
      Leftover::Kind kind = IsTemporaryName(it->path().filename().string()) ? Leftover::Kind::kTemporary
                            : names.Matches(rel) && it->is_regular_file(ec) ? Leftover::Kind::kUnreferencedFile
                                                                             : Leftover::Kind::kForeign;
      report.items.push_back(Leftover{kind, it->path().string(), bytes, 0, 0});
    }
  }
  // Temporary headers beside the .idx (and temporary block files, when they live there too).
  const std::string idx_name = fs::path(idx_path).filename().string();
  for (auto it = fs::directory_iterator(IdxDirectory(idx_path), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!IsTemporaryName(name) || !it->is_regular_file(ec)) continue;
    const std::string owner = name.substr(0, name.find(".tmp."));
    if (owner == idx_name || (!d.dedicated && names.Matches(owner)))
      report.items.push_back(Leftover{Leftover::Kind::kTemporary, it->path().string(), it->file_size(ec), 0, 0});
  }
  const std::string lock = LockPathFor(idx_path);
  if (IsAbandonedLockFile(lock)) {
    std::error_code size_error;
    const uintmax_t bytes = fs::file_size(lock, size_error);
    report.items.push_back(Leftover{Leftover::Kind::kAbandonedLock, lock, size_error ? 0 : bytes, 0, 0});
  }
  std::sort(report.items.begin(), report.items.end(),
            [](const Leftover& a, const Leftover& b) { return a.path < b.path; });
  return report;
}

std::vector<std::string> RepairLeftovers(DatasetTransaction& txn, const LeftoverReport& report) {
  const IdxHeader& header = txn.committed();
  const std::string& idx_path = txn.idx_path();
  const std::string data_dir = DataDirectoryOf(header, idx_path).path;
  std::vector<std::string> done;
  // Removals first: a stale generation directory may carry the name the rewrite stages into.
  for (const Leftover& item : report.items) {
    if (item.kind == Leftover::Kind::kTemporary || item.kind == Leftover::Kind::kUnreferencedFile) {
      RemovePath(item.path);
      RemoveEmptyDirectories(ParentDirectory(item.path), data_dir);
    } else if (item.kind == Leftover::Kind::kGeneration) {
      RemoveGenerationDirectory(item, header, idx_path);
    } else if (item.kind == Leftover::Kind::kAbandonedLock) {
      continue;  // `txn` holds the lock now; the file goes when it lets go (storage/lock_file.h)
    } else {
      continue;
    }
    done.push_back(item.path);
  }
  bool packed = false;
  for (const Leftover& item : report.items) {
    if (item.kind != Leftover::Kind::kUnreferencedBytes) continue;
    txn.RewritePacked(item.first_block, item.time);
    packed = true;
    done.push_back(item.path);
  }
  if (packed) txn.Commit();
  return done;
}

void RemoveGenerationOf(const IdxHeader& header, const std::string& idx_path) {
  const DataDirectory d = DataDirectoryOf(header, idx_path);
  if (d.dedicated && d.generation >= 2) {
    RemoveTree(d.path);
  } else if (d.dedicated) {
    RemoveMatchingFiles(d.path, BlockFileNames(header));
  } else {
    for (const BlockFileRef& f : ExistingBlockFiles(header, idx_path))
      if (RemovePath(f.path)) RemoveEmptyDirectories(ParentDirectory(f.path), d.path);
  }
}

std::vector<std::string> RemoveOtherGenerations(const IdxHeader& header, const std::string& idx_path) {
  std::vector<std::string> removed;
  for (const Leftover& item : OtherGenerations(header, idx_path)) {
    RemoveGenerationDirectory(item, header, idx_path);
    removed.push_back(item.path);
  }
  return removed;
}

}  // namespace hzio
