/// The datasets a server publishes: configured names mapped to opened datasets. Requests look
/// names up here and nowhere else, so a name never reaches the file system (design.md §5).
/// Every lookup checks whether the dataset's `.idx` was replaced (one stat) and reopens it when it
/// was, so a request holds one version (a ServedDataset snapshot) from its start to its reply, and
/// the next request sees the new one (dataset_version.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/dataset_version.h"
#include "config/server_options.h"
#include "hzio/access/dataset.h"

namespace hzio::server {

/// One version of one served dataset; immutable once published.
struct ServedDataset {
  uint32_t index = 0;  // unique per opened version in this process; part of block cache keys
  std::string name;
  std::string group;
  std::string path;
  std::shared_ptr<Dataset> dataset;
  std::string version;      // DatasetVersion() of the header this was opened from
  uint64_t generation = 0;  // VersionDigest(version): what ETags are computed from
  FileIdentity identity;    // of the .idx when opened ({} for datasets added already opened)
};

class DatasetRegistry {
 public:
  DatasetRegistry() = default;
  DatasetRegistry(DatasetRegistry&&) = default;
  DatasetRegistry& operator=(DatasetRegistry&&) = default;

  /// Opens every entry; throws hzio::Error naming the dataset and file that failed. Datasets of
  /// `previous` with the same name and path are taken over without reopening (a reload).
  static DatasetRegistry Open(const std::vector<DatasetEntry>& entries, const OpenOptions& options,
                              const DatasetRegistry* previous = nullptr);

  /// Adds an already opened dataset (tests, embedding); it is never reopened.
  void Add(std::string name, std::string group, std::shared_ptr<Dataset> dataset);

  /// The current version of the dataset called exactly `name` (reopened first when its .idx
  /// changed), or nullptr for an unknown name. Throws hzio::Error(kUnavailable) when the header
  /// changed and cannot be opened any more. Thread-safe.
  std::shared_ptr<const ServedDataset> Find(const std::string& name) const;

  /// The configured entry called `name` (access lists), or nullptr. No file system access.
  const DatasetEntry* Entry(const std::string& name) const;
  /// Every entry, in configuration order.
  std::vector<const DatasetEntry*> Entries() const;
  size_t size() const { return slots_.size(); }

  /// Called with each reopened version (metrics); may be empty.
  void OnReopen(std::function<void(const ServedDataset&)> callback) { on_reopen_ = std::move(callback); }

 private:
  struct Slot {
    DatasetEntry entry;
    bool watched = true;  // false: added already opened, never reopened
    mutable std::mutex mutex;
    mutable std::shared_ptr<const ServedDataset> current;
  };
  std::shared_ptr<const ServedDataset> OpenVersion(const DatasetEntry& entry) const;

  std::vector<std::shared_ptr<Slot>> slots_;
  std::unordered_map<std::string, size_t> by_name_;
  OpenOptions open_;
  std::function<void(const ServedDataset&)> on_reopen_;
};

}  // namespace hzio::server
