/// A dataset stored in local block files (idx-format.md §4): answers box queries by reading only
/// the blocks the query touches (each decoded once, on all cores) and scattering them into the
/// result with precomputed per-axis plans and hz-order tables.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "hzio/access/dataset.h"
#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/storage/file.h"

namespace hzio {

class LocalDataset : public Dataset {
 public:
  LocalDataset(IdxHeader header, std::string source, std::string idx_dir, OpenOptions options);

  void ReadInto(const Resolved& query, uint8_t* out) override;
  std::optional<DecodedBlock> ReadBlock(int field, int64_t time, uint64_t block) override;

  /// Where a block is stored: its file (null if the file is absent) and its table entry.
  struct Location {
    std::shared_ptr<ReadFile> file;
    BlockEntry entry;
  };
  Location Locate(int field, int64_t time, uint64_t block);
  const BlockFiles& files() const { return files_; }

 private:
  struct FileTable {
    std::shared_ptr<ReadFile> file;  // null: the file does not exist (every block absent)
    std::vector<BlockEntry> entries;
  };
  std::shared_ptr<const FileTable> Table(const std::string& path);

  BlockFiles files_;
  std::mutex tables_mu_;
  std::unordered_map<std::string, std::shared_ptr<const FileTable>> tables_;
};

}  // namespace hzio
