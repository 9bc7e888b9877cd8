// Remote datasets over the mod_visus protocol (idx-format.md §7): the header from `readdataset`
// (§7.4); box queries as server-side `boxquery` requests (§7.6, the result grid of §3.4 computed on
// both sides and checked), or, with `cached=1` in the URL, as batched `rangequery` block requests
// (§7.5, composite replies) through a local LRU cache of decoded blocks, scattered here like a
// local read. Works against hzio serve and the OpenVisus server alike.
#include "hzio/remote/remote_dataset.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <tuple>

#include "hzio/access/sample_copy.h"
#include "hzio/remote/http_client.h"
#include "hzio/remote/mod_visus_reply.h"
#include "hzio/remote/mod_visus_url.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

using internal_remote::DecodeArrayPart;
using internal_remote::DecomposeReply;
using internal_remote::HttpClient;
using internal_remote::HttpResponse;
using internal_remote::ModVisusUrl;

constexpr size_t kBlocksPerRequest = 64;
constexpr int64_t kBlockCacheBytes = int64_t{256} << 20;
// Box replies above this size are split into slabs (the hzio server's default limit is 1 GiB).
// HZIO_REMOTE_MAX_REPLY_BYTES lowers it (tests).
const int64_t kMaxReplyBytes = [] {
  const char* env = std::getenv("HZIO_REMOTE_MAX_REPLY_BYTES");
  return env && std::atoll(env) > 0 ? static_cast<int64_t>(std::atoll(env)) : int64_t{256} << 20;
}();

// An error for a non-2xx reply, with the server's visus-errormsg (or the start of the body).
Error HttpError(const std::string& url, const HttpResponse& res) {
  std::string why = res.Header("visus-errormsg");
  if (why.empty()) why = Trim(res.body.substr(0, 300));
  std::string message = url + ": HTTP " + std::to_string(res.status) + (why.empty() ? "" : ": " + why);
  switch (res.status) {
    case 400: return Error(ErrorCode::kInvalidArgument, message);
    case 404: return Error(ErrorCode::kNotFound, message);
    case 413: return Error(ErrorCode::kTooLarge, message);
    default: return Error(res.status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kIo, message);
  }
}

// Decoded blocks fetched from the server (nullptr = absent), least recently used dropped first.
class RemoteBlockCache {
 public:
  using Key = std::tuple<int, int64_t, uint64_t>;  // field, time, block

  bool Find(const Key& key, std::shared_ptr<const DecodedBlock>* block) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    lru_.splice(lru_.begin(), lru_, it->second);
    *block = it->second->second;
    return true;
  }

  void Put(const Key& key, std::shared_ptr<const DecodedBlock> block) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      bytes_ -= Cost(it->second->second);
      lru_.erase(it->second);
      index_.erase(it);
    }
    bytes_ += Cost(block);
    lru_.emplace_front(key, std::move(block));
    index_[key] = lru_.begin();
    while (bytes_ > kBlockCacheBytes && lru_.size() > 1) {
      bytes_ -= Cost(lru_.back().second);
      index_.erase(lru_.back().first);
      lru_.pop_back();
    }
  }

 private:
  static int64_t Cost(const std::shared_ptr<const DecodedBlock>& b) {
    return 64 + (b ? static_cast<int64_t>(b->bytes.size()) : 0);
  }
  std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<const DecodedBlock>>> lru_;
  std::map<Key, std::list<std::pair<Key, std::shared_ptr<const DecodedBlock>>>::iterator> index_;
  int64_t bytes_ = 0;
};

class RemoteDataset : public Dataset {
 public:
  RemoteDataset(IdxHeader header, std::string url, ModVisusUrl endpoint, std::shared_ptr<HttpClient> client,
                OpenOptions options)
      : Dataset(std::move(header), std::move(url), options), url_(std::move(endpoint)), client_(std::move(client)) {
    auto it = url_.params.find("compression");
    wire_compression_ = it != url_.params.end() && !it->second.empty() ? it->second : "zip";
    url_.params.erase("compression");
    url_.params.erase("time");
    if (url_.cached) {
      // As ModVisusAccess does: batch only when the server says it aggregates (§7.9 step 3).
      HttpResponse ping = client_->Get(url_.Request({{"action", "ping"}}));
      batch_ = ping.status == 200 && ping.Header("block-query-support-aggregation") == "1" ? kBlocksPerRequest : 1;
    }
  }

  void ReadInto(const Resolved& query, uint8_t* out) override {
    if (url_.cached) ReadThroughBlocks(query, out);
    else ReadThroughBoxQuery(query, out);
  }

  std::optional<DecodedBlock> ReadBlock(int field_index, int64_t time, uint64_t block) override {
    Check(field_index >= 0 && field_index < static_cast<int>(header_.fields.size()), ErrorCode::kNotFound,
          source_ + ": no field " + std::to_string(field_index));
    auto blocks = FetchBlocks(field_index, time, {block});
    if (!blocks[0]) return std::nullopt;
    return *blocks[0];
  }

 private:
  // Large results are fetched as slabs along the slowest axis, each an exact sub-grid of the
  // result (its box runs from one grid row to another), so no server limit is hit by one reply.
  void ReadThroughBoxQuery(const Resolved& query, uint8_t* out) {
    const Field& field = header_.fields[static_cast<size_t>(query.field)];
    const int last = query.grid.dims() - 1;
    const int64_t rows = query.grid.count[last];
    const int64_t row_bytes = field.dtype.BytesFor(query.grid.NumSamples() / rows);
    const int64_t rows_per_slab = std::clamp<int64_t>(kMaxReplyBytes / std::max<int64_t>(row_bytes, 1), 1, rows);
    for (int64_t r0 = 0; r0 < rows; r0 += rows_per_slab) {
      const int64_t r1 = std::min(rows, r0 + rows_per_slab);
      Resolved slab = query;
      slab.grid.origin[last] = query.grid.origin[last] + r0 * query.grid.stride[last];
      slab.grid.count[last] = r1 - r0;
      slab.box.p1[last] = slab.grid.origin[last];
      slab.box.p2[last] = query.grid.origin[last] + (r1 - 1) * query.grid.stride[last] + 1;
      uint8_t* dst = out + r0 * row_bytes;
      if (slab.box.p2[last] <= header_.box.p1[last] || slab.box.p1[last] >= header_.box.p2[last]) {
        // Rows in the padding outside the dataset box: servers refuse such a box; they hold the
        // default value (§3.4).
        const std::vector<uint8_t> fill = field.DefaultSample();
        for (int64_t i = 0; i < slab.grid.NumSamples(); ++i)
          std::memcpy(dst + i * static_cast<int64_t>(fill.size()), fill.data(), fill.size());
        continue;
      }
      if (rows_per_slab == rows) slab.box = query.box;  // one request: the box exactly as asked
      ReadSlab(field, slab, dst);
    }
  }

  void ReadSlab(const Field& field, const Resolved& query, uint8_t* out) {
    const std::string request = url_.Request({{"action", "boxquery"},
                                              {"field", field.name},
                                              {"time", FormatFixed6(static_cast<double>(query.time))},
                                              {"compression", wire_compression_},
                                              {"fromh", std::to_string(query.levels.from)},
                                              {"toh", std::to_string(query.levels.to)},
                                              {"maxh", std::to_string(header_.maxh())},
                                              {"box", query.box.ToInclusiveString()}});
    HttpResponse res = client_->Get(request);
    if (res.status < 200 || res.status >= 300) throw HttpError(request, res);
    DecodeArrayPart(res, field.dtype, query.grid.count, out,
                    static_cast<size_t>(field.dtype.BytesFor(query.grid.NumSamples())), request);
  }

  void ReadThroughBlocks(const Resolved& q, uint8_t* out) {
    const Field& field = header_.fields[static_cast<size_t>(q.field)];
    const int64_t sb = field.dtype.SampleBytes();
    const std::vector<uint8_t> fill = field.DefaultSample();
    const Box region = q.grid.LogicBox();
    const SampleSide dst{out, q.grid.count, nullptr};
    std::vector<uint64_t> ids = layout_->BlocksInRegion(region, q.levels);
    std::vector<std::shared_ptr<const DecodedBlock>> blocks = FetchBlocks(q.field, q.time, ids);
    for (size_t i = 0; i < ids.size(); ++i) {
      const Grid grid = layout_->BlockGrid(ids[i]);
      AxisCopy plan[kMaxDims];
      if (!PlanGridCopy(grid, q.grid, region, plan)) continue;
      if (!blocks[i]) {
        FillSamples(plan, layout_->dims(), dst, fill.data(), sb);
        continue;
      }
      const uint32_t* map = blocks[i]->row_major ? nullptr : layout_->RowMajorToHz(layout_->BlockLevel(ids[i])).data();
      CopySamples(plan, layout_->dims(), SampleSide{const_cast<uint8_t*>(blocks[i]->bytes.data()), grid.count, map},
                  dst, sb);
    }
  }

  // The blocks `ids` (nullptr = absent), from the cache or in batched rangequery requests.
  std::vector<std::shared_ptr<const DecodedBlock>> FetchBlocks(int field_index, int64_t time,
                                                               const std::vector<uint64_t>& ids) {
    const Field& field = header_.fields[static_cast<size_t>(field_index)];
    std::vector<std::shared_ptr<const DecodedBlock>> out(ids.size());
    std::vector<size_t> missing;
    for (size_t i = 0; i < ids.size(); ++i)
      if (!cache_.Find({field_index, time, ids[i]}, &out[i])) missing.push_back(i);
    const size_t block_bytes = static_cast<size_t>(field.dtype.BytesFor(layout_->samples_per_block()));
    for (size_t start = 0; start < missing.size(); start += batch_) {
      const size_t end = std::min(missing.size(), start + batch_);
      std::string list;
      for (size_t k = start; k < end; ++k) list += (list.empty() ? "" : " ") + std::to_string(ids[missing[k]]);
      const std::string request = url_.Request({{"action", "rangequery"},
                                                {"field", field.name},
                                                {"time", FormatFixed6(static_cast<double>(time))},
                                                {"compression", wire_compression_},
                                                {"block", list}});
      HttpResponse res = client_->Get(request);
      if (res.status != 200 && !(res.status == 404 && end - start == 1)) throw HttpError(request, res);
      std::vector<HttpResponse> parts = DecomposeReply(res, end - start);
      for (size_t k = start; k < end; ++k) {
        const uint64_t id = ids[missing[k]];
        const HttpResponse& part = parts[k - start];
        std::shared_ptr<const DecodedBlock> block;
        if (part.status == 200) {
          DecodedBlock b;
          b.id = id;
          b.grid = layout_->BlockGrid(id);
          // visus-layout describes a block body: "hzorder" or empty (row-major); legacy visus-format.
          b.row_major = part.HasHeader("visus-layout") ? part.Header("visus-layout") != "hzorder"
                                                       : part.HasHeader("visus-format") && part.Header("visus-format") != "0";
          b.bytes.resize(block_bytes);
          DecodeArrayPart(part, field.dtype, b.grid.count, b.bytes.data(), b.bytes.size(),
                          request + " (block " + std::to_string(id) + ")");
          block = std::make_shared<const DecodedBlock>(std::move(b));
        } else if (part.status != 404) {
          throw HttpError(request + " (block " + std::to_string(id) + ")", part);
        }
        cache_.Put({field_index, time, id}, block);
        out[missing[k]] = std::move(block);
      }
    }
    return out;
  }

  ModVisusUrl url_;
  std::shared_ptr<HttpClient> client_;
  std::string wire_compression_;
  size_t batch_ = 1;
  RemoteBlockCache cache_;
};

}  // namespace

std::shared_ptr<Dataset> OpenRemoteDataset(const std::string& url, const OpenOptions& options) {
  ModVisusUrl endpoint = ModVisusUrl::Parse(url);
  auto client = std::make_shared<HttpClient>();
  // The dataset URL itself is the readdataset request (§7.4, §7.9 step 1).
  const std::string request = endpoint.Request({});
  HttpResponse res = client->Get(request);
  if (res.status < 200 || res.status >= 300) throw HttpError(request, res);
  Check(!res.body.empty(), ErrorCode::kCorrupt, request + ": empty dataset description");
  IdxHeader header = IdxHeader::Parse(res.body, url, "visus");
  return std::make_shared<RemoteDataset>(std::move(header), url, std::move(endpoint), std::move(client), options);
}

}  // namespace hzio
