/// Blocks of an ARCO dataset (idx-format.md §4.12, `(arco) > 0`): one file per block, no
/// header, at `<idx path without extension>/<time>/<field>/<16 hex digits in 4 groups>.bin`
/// (format/arco_block_path.h). Every payload is encoded with its field's default compression (empty =
/// raw) in its field's default layout; a missing file is an absent block (§4.6).
///
/// Opening a file is what a block costs here, so a fetch spreads its blocks over the shared
/// thread pool, each task opening and reading its blocks with pread (never mapped: a file
/// truncated under a mapping is SIGBUS), opened non-blocking relative to the part directory,
/// anything but a regular file refused. A raw block of the expected size goes straight into the
/// caller's memory. Size checks name the file: a raw file of the wrong size, a truncated or
/// corrupt payload are kCorrupt errors (the assembler's decode), a file far larger than any
/// encoding of its block is refused before it is read.
///
/// Dataset versions (TEAM.md contract 3): part directories are switched whole by hzio's writes
/// (access/arco_parts.h); a source reads the parts of the version it was opened with, and a block
/// or part it finds missing is checked against the `.idx`: kChanged if that changed since.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/access/arco_parts.h"
#include "hzio/access/block_source.h"
#include "hzio/access/idx_identity.h"
#include "hzio/storage/file.h"

namespace hzio {

class ArcoBlockSource : public BlockSource {
 public:
  struct Options {
    int threads = 0;              // 1: read and deliver on the calling thread only
    size_t max_open_parts = 256;  // part directories kept open (far below fd limits)
  };

  /// `idx_path` is the header's file and `idx_identity` its identity when the header was read
  /// (nullopt: taken now). Throws kInvalidArgument for a header that is not ARCO, and a field's
  /// codec spec error naming the file.
  ArcoBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                  std::string idx_path, std::optional<FileIdentity> idx_identity, Options options);

  std::string Version() const override;
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;
  void FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                 const BlockSink& sink) override;

  /// `<idx path without extension>`: the directory every part lives in.
  const std::string& root() const { return root_; }
  /// Whether the `.idx` is no longer the one this source was opened with.
  bool Changed() const;

 private:
  using PartKey = std::pair<int64_t, int>;  // time, field
  std::shared_ptr<const OpenedPart> Part(const PartKey& key);
  // Reads one block of `part`; returns false when its file does not exist.
  bool ReadBlock(const OpenedPart& part, const BlockKey& key, uint8_t* raw_target, const BlockSink& sink,
                 size_t index);

  std::string idx_path_;
  std::string root_;
  IdxIdentity idx_identity_;
  int64_t generation_;
  Options options_;
  std::vector<Codec> codecs_;        // per field: its default compression (§4.12)
  std::vector<uint64_t> max_sizes_;  // per field: the largest file a block may be
  std::mutex mu_;
  std::map<PartKey, std::shared_ptr<const OpenedPart>> parts_;  // present parts only
};

}  // namespace hzio
