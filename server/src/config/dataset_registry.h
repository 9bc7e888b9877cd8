/// The datasets a server publishes: configured names mapped to opened datasets. Requests look
/// names up here and nowhere else, so a name never reaches the file system (design.md §5).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "config/server_options.h"
#include "hzio/access/dataset.h"

namespace hzio::server {

struct ServedDataset {
  uint32_t index = 0;  // position in the registry; part of cache keys
  std::string name;
  std::string group;
  std::string path;
  std::shared_ptr<Dataset> dataset;
  /// Identifies this version of the dataset (path, header size and mtime) in ETags.
  uint64_t generation = 0;
};

class DatasetRegistry {
 public:
  DatasetRegistry() = default;
  /// Opens every entry; throws hzio::Error naming the file that failed.
  static DatasetRegistry Open(const std::vector<DatasetEntry>& entries, const OpenOptions& options);

  /// Adds an already opened dataset (tests, embedding).
  void Add(std::string name, std::string group, std::shared_ptr<Dataset> dataset);

  /// The dataset called exactly `name`, or nullptr.
  const ServedDataset* Find(const std::string& name) const;
  const std::vector<ServedDataset>& all() const { return datasets_; }

 private:
  std::vector<ServedDataset> datasets_;
  std::unordered_map<std::string, size_t> by_name_;
};

}  // namespace hzio::server
