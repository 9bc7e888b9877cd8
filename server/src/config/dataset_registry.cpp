#include "config/dataset_registry.h"

#include <filesystem>

#include "hzio/util/error.h"

namespace hzio::server {

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

uint64_t Generation(const std::string& path, const std::string& version) {
  uint64_t h = 1469598103934665603ull;
  for (char c : path) h = Mix(h, static_cast<unsigned char>(c));
  for (char c : version) h = Mix(h, static_cast<unsigned char>(c));  // remote datasets: their ETag
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (!ec) h = Mix(h, size);
  auto mtime = std::filesystem::last_write_time(path, ec);
  if (!ec) h = Mix(h, static_cast<uint64_t>(mtime.time_since_epoch().count()));
  return h;
}

}  // namespace

DatasetRegistry DatasetRegistry::Open(const std::vector<DatasetEntry>& entries, const OpenOptions& options) {
  DatasetRegistry r;
  for (const DatasetEntry& e : entries) {
    std::shared_ptr<Dataset> ds;
    try {
      ds = OpenDataset(e.path, options);
    } catch (const Error& err) {
      throw Error(err.code(), "dataset '" + e.name + "': " + err.what());
    }
    r.Add(e.name, e.group, std::move(ds));
    r.datasets_.back().path = e.path;
  }
  return r;
}

void DatasetRegistry::Add(std::string name, std::string group, std::shared_ptr<Dataset> dataset) {
  Check(Find(name) == nullptr, ErrorCode::kInvalidArgument, "dataset name '" + name + "' is used twice");
  ServedDataset s;
  s.index = static_cast<uint32_t>(datasets_.size());
  s.name = std::move(name);
  s.group = std::move(group);
  s.path = dataset->source();
  s.generation = Generation(s.path, dataset->Version());
  s.dataset = std::move(dataset);
  by_name_[s.name] = datasets_.size();
  datasets_.push_back(std::move(s));
}

const ServedDataset* DatasetRegistry::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &datasets_[it->second];
}

}  // namespace hzio::server
