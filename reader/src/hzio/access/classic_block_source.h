/// Blocks of a classic IDX dataset: multi-block files with a block table each (idx-format.md
/// §4.3–4.6, versions 1–6), read with pread — never mapped, since a file truncated under a mapping
/// is SIGBUS — and opened non-blocking, so a FIFO or device in a file's place is an error, not a
/// hang. A fetch looks each file's table up once (cached per file, revalidated with one stat of
/// the path per fetch), cuts the blocks into tasks of nearby payloads spread over the shared
/// thread pool, and keeps the kernel reading a window ahead of the tasks (storage/read_ahead.h),
/// so cold reads overlap I/O with decoding and keep the device busy. Runs of nearby payloads are
/// read with one pread each into memory aligned like the file (see RunBuffer); the sink
/// (decoding, placing) runs on the reading thread.
///
/// Dataset versions (TEAM.md contract 3): the version is the `.idx`'s identity when it was read.
/// A block file that is missing, shorter than its table says or replaced is checked against it:
/// if the `.idx` changed since, the fetch throws kChanged ("dataset changed while reading; reopen
/// it"); otherwise a missing file means absent blocks and a short one kCorrupt.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hzio/access/block_source.h"
#include "hzio/access/idx_identity.h"
#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/storage/file.h"

namespace hzio {

class ClassicBlockSource : public BlockSource {
 public:
  struct Options {
    int threads = 0;               // 1: read and deliver on the calling thread only
    size_t max_open_files = 256;   // tables kept with their file open (far below fd limits)
    // How far ahead of the tasks the kernel is asked to read (storage/read_ahead.h); 0: only the
    // kernel's own sequential read-ahead (one thread reading a file in order needs no more).
    uint64_t read_ahead_bytes = uint64_t{64} << 20;
  };

  /// `idx_path` is the header's file and `idx_identity` its identity when the header was read
  /// (nullopt: taken now). Throws kUnsupported for ARCO datasets ((arco) > 0, §4.12).
  ClassicBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                     std::string idx_path, std::optional<FileIdentity> idx_identity, Options options);
  ClassicBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                     std::string idx_path, std::optional<FileIdentity> idx_identity = std::nullopt)
      : ClassicBlockSource(std::move(header), std::move(layout), std::move(idx_path), idx_identity, Options{}) {}

  std::string Version() const override;
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;
  void FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                 const BlockSink& sink) override;

  // Storage-level access for readers that take parts of blocks (the MPI two-phase reader): the
  // same tables, the same reads, the same version checks.

  /// A block file and its table; `file` is null when the file does not exist (every block absent).
  struct FileTable {
    std::string path;
    std::shared_ptr<ReadFile> file;
    std::vector<BlockEntry> entries;  // blocksperfile × nfields slots (§4.3)
  };
  const BlockFiles& files() const { return files_; }
  /// The table of the file at `path`, from the cache if the file is unchanged (one stat), else
  /// read anew. Throws kIo ("not a regular file"), kCorrupt, kChanged.
  std::shared_ptr<const FileTable> Table(const std::string& path);
  /// The entry of (field, block) in its file's table.
  const BlockEntry& Entry(const FileTable& table, int field, uint64_t block) const;
  /// Reads exactly [offset, offset + size) of the table's file; a short read (the file shrank)
  /// is kChanged if the dataset changed, else kCorrupt naming the file.
  void ReadRange(const FileTable& table, uint64_t offset, uint64_t size, uint8_t* out) const;
  /// The same bytes read past the page cache where the file system allows it (O_DIRECT into
  /// `staging`, ReadFile::ReadUncached): returns where they start in `staging`.
  const uint8_t* ReadRangeUncached(const FileTable& table, uint64_t offset, uint64_t size, LargeAllocation& staging,
                                   bool* direct = nullptr) const;
  /// Whether the `.idx` is no longer the one this source was opened with.
  bool Changed() const;

 private:
  [[noreturn]] void ThrowShort(const std::string& path) const;
  std::shared_ptr<const FileTable> LoadTable(const std::string& path);

  std::string idx_path_;
  IdxIdentity idx_identity_;
  Options options_;
  BlockFiles files_;
  int64_t slots_;

  // Cached tables, least recently used last.
  struct Cached {
    std::shared_ptr<const FileTable> table;
    std::optional<FileIdentity> identity;  // nullopt: the file did not exist
  };
  std::mutex mu_;
  std::list<std::pair<std::string, Cached>> lru_;
  std::unordered_map<std::string, std::list<std::pair<std::string, Cached>>::iterator> index_;
};

}  // namespace hzio
