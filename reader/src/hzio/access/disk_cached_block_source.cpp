#include "hzio/access/disk_cached_block_source.h"

#include <algorithm>
#include <mutex>
#include <tuple>
#include <vector>

#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// An entry's value: one flag byte (1 = present, 2 = row-major), the codec code, the payload.
constexpr uint8_t kPresent = 1, kRowMajor = 2;

std::string EncodeEntry(const EncodedBlock& b) {
  std::string v(2 + (b.present ? b.size : 0), '\0');
  v[0] = static_cast<char>((b.present ? kPresent : 0) | (b.row_major ? kRowMajor : 0));
  v[1] = static_cast<char>(static_cast<int>(b.codec));
  if (b.present && b.size) std::copy(b.data, b.data + b.size, reinterpret_cast<uint8_t*>(v.data()) + 2);
  return v;
}

}  // namespace

DiskCachedBlockSource::DiskCachedBlockSource(std::shared_ptr<BlockSource> inner, std::shared_ptr<DiskCache> cache,
                                             std::string dataset_id)
    : BlockSource(inner->shared_header(), inner->shared_layout(), inner->name()),
      inner_(std::move(inner)),
      cache_(std::move(cache)),
      prefix_("block|" + dataset_id + "|" + inner_->Version() + "|") {}

std::string DiskCachedBlockSource::EntryKey(const BlockKey& key) const {
  return prefix_ + std::to_string(key.field) + "|" + std::to_string(key.time) + "|" + std::to_string(key.block);
}

void DiskCachedBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) {
  for (const BlockKey& k : keys) CheckKey(k);
  std::mutex mu;
  std::vector<size_t> misses;
  auto lookup = [&](int64_t i) {
    const BlockKey& k = keys[static_cast<size_t>(i)];
    std::optional<std::string> entry = cache_->Get(EntryKey(k));
    if (entry && entry->size() >= 2) {
      const uint8_t flags = static_cast<uint8_t>((*entry)[0]);
      const std::string where = inner_->name() + " (disk cache " + cache_->dir() + "): block " + std::to_string(k.block);
      const Codec codec = CodecFromCode(static_cast<uint8_t>((*entry)[1]), where);
      auto value = std::make_shared<std::string>(std::move(*entry));
      EncodedBlock b;
      b.present = (flags & kPresent) != 0;
      b.row_major = (flags & kRowMajor) != 0;
      b.codec = codec;
      if (b.present) {
        b.data = reinterpret_cast<const uint8_t*>(value->data()) + 2;
        b.size = value->size() - 2;
        b.owner = value;
      }
      b.where = where;
      sink(static_cast<size_t>(i), std::move(b));
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    misses.push_back(static_cast<size_t>(i));
  };
  const int64_t n = static_cast<int64_t>(keys.size());
  if (n <= 2) {
    for (int64_t i = 0; i < n; ++i) lookup(i);
  } else {
    ThreadPool::Shared().ParallelFor(n, lookup);
  }
  if (misses.empty()) return;
  // Each missing block is fetched once, however often the batch names it.
  std::sort(misses.begin(), misses.end(), [&](size_t a, size_t b) {
    const BlockKey &x = keys[a], &y = keys[b];
    return std::tie(x.field, x.time, x.block, a) < std::tie(y.field, y.time, y.block, b);
  });
  std::vector<BlockKey> fetch;
  std::vector<std::pair<size_t, size_t>> receivers;  // [begin, end) of `misses` per fetched key
  for (size_t i = 0; i < misses.size();) {
    size_t j = i + 1;
    const BlockKey& k = keys[misses[i]];
    while (j < misses.size() && keys[misses[j]].field == k.field && keys[misses[j]].time == k.time &&
           keys[misses[j]].block == k.block)
      ++j;
    fetch.push_back(k);
    receivers.emplace_back(i, j);
    i = j;
  }
  try {
    inner_->Fetch(fetch, [&](size_t j, EncodedBlock&& b) {
      cache_->Put(EntryKey(fetch[j]), EncodeEntry(b));
      const auto [begin, end] = receivers[j];
      for (size_t r = begin; r + 1 < end; ++r) sink(misses[r], EncodedBlock(b));
      sink(misses[end - 1], std::move(b));
    });
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kUnavailable) throw;
    throw Error(e.code(), std::string(e.what()) + " (" + std::to_string(keys.size() - misses.size()) + " of the " +
                              std::to_string(keys.size()) + " blocks asked for were in the disk cache " +
                              cache_->dir() + "; the others need the store)");
  }
}

}  // namespace hzio
