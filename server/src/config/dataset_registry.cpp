#include "config/dataset_registry.h"

#include <atomic>

#include "hzio/util/error.h"

namespace hzio::server {

namespace {

uint32_t NextIndex() {
  static std::atomic<uint32_t> next{0};
  return next++;
}

}  // namespace

std::shared_ptr<const ServedDataset> DatasetRegistry::OpenVersion(const DatasetEntry& entry) const {
  // A commit between the two stats means what was opened may be either version: open again.
  for (int attempt = 0;; ++attempt) {
    auto s = std::make_shared<ServedDataset>();
    try {
      s->identity = StatIdentity(entry.path);
      s->version = DatasetVersion(entry.path, s->identity);
      s->dataset = OpenDataset(entry.path, open_);
      if (!(StatIdentity(entry.path) == s->identity) && attempt < 3) continue;
    } catch (const Error& err) {
      throw Error(err.code(), "dataset '" + entry.name + "': " + err.what());
    }
    s->index = NextIndex();
    s->name = entry.name;
    s->group = entry.group;
    s->path = entry.path;
    s->generation = VersionDigest(s->version);
    return s;
  }
}

DatasetRegistry DatasetRegistry::Open(const std::vector<DatasetEntry>& entries, const OpenOptions& options,
                                      const DatasetRegistry* previous) {
  DatasetRegistry r;
  r.open_ = options;
  for (const DatasetEntry& e : entries) {
    Check(r.by_name_.count(e.name) == 0, ErrorCode::kInvalidArgument, "dataset name '" + e.name + "' is used twice");
    auto slot = std::make_shared<Slot>();
    slot->entry = e;
    if (previous) {
      auto it = previous->by_name_.find(e.name);
      if (it != previous->by_name_.end() && previous->slots_[it->second]->entry.path == e.path) {
        const Slot& old = *previous->slots_[it->second];
        std::lock_guard<std::mutex> lock(old.mutex);
        auto copy = std::make_shared<ServedDataset>(*old.current);
        copy->group = e.group;
        slot->current = std::move(copy);
      }
    }
    if (!slot->current) slot->current = r.OpenVersion(e);
    r.by_name_[e.name] = r.slots_.size();
    r.slots_.push_back(std::move(slot));
  }
  return r;
}

void DatasetRegistry::Add(std::string name, std::string group, std::shared_ptr<Dataset> dataset) {
  Check(by_name_.count(name) == 0, ErrorCode::kInvalidArgument, "dataset name '" + name + "' is used twice");
  auto s = std::make_shared<ServedDataset>();
  s->index = NextIndex();
  s->name = name;
  s->group = group;
  s->path = dataset->source();
  try {
    s->identity = StatIdentity(s->path);
    s->version = DatasetVersion(s->path, s->identity);
  } catch (const Error&) {
    s->version = "unversioned:" + s->path;  // not a local file (a remote dataset, a test double)
  }
  s->generation = VersionDigest(s->version);
  s->dataset = std::move(dataset);
  auto slot = std::make_shared<Slot>();
  slot->entry = DatasetEntry{name, s->path, group};
  slot->watched = false;
  slot->current = std::move(s);
  by_name_[name] = slots_.size();
  slots_.push_back(std::move(slot));
}

std::shared_ptr<const ServedDataset> DatasetRegistry::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return nullptr;
  const Slot& slot = *slots_[it->second];
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (!slot.watched) return slot.current;
  FileIdentity now;
  try {
    now = StatIdentity(slot.entry.path);
  } catch (const Error& e) {
    throw Error(ErrorCode::kUnavailable, "dataset '" + name + "' is not available: " + e.what());
  }
  if (now == slot.current->identity) return slot.current;
  // Reopened under the slot's lock: concurrent requests wait for one reopen instead of racing.
  try {
    slot.current = OpenVersion(slot.entry);
  } catch (const Error& e) {
    throw Error(ErrorCode::kUnavailable, "dataset '" + name + "' changed and cannot be reopened: " + e.what());
  }
  if (on_reopen_) on_reopen_(*slot.current);
  return slot.current;
}

const DatasetEntry* DatasetRegistry::Entry(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &slots_[it->second]->entry;
}

std::vector<const DatasetEntry*> DatasetRegistry::Entries() const {
  std::vector<const DatasetEntry*> out;
  out.reserve(slots_.size());
  for (const auto& s : slots_) out.push_back(&s->entry);
  return out;
}

}  // namespace hzio::server
