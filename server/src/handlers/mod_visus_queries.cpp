// mod_visus data actions: blockquery/rangequery (idx-format.md §7.5) and boxquery (§7.6), with
// the §7.8 error rows. Block reads and decoding go through the shared cache (engine/).
#include <cmath>

#include <nlohmann/json.hpp>

#include "engine/box_reader.h"
#include "handlers/array_body.h"
#include "handlers/box_stream.h"
#include "handlers/query_cost.h"
#include "handlers/caching.h"
#include "handlers/json_api.h"
#include "handlers/mod_visus_handler.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

bool Truthy(const std::string& v) {
  std::string s = ToLower(Trim(v));
  return s == "1" || s == "true" || s == "yes" || s == "on";
}

// 413 keeps the visus-errormsg of the protocol and adds the JSON error body of the API.
Reply TooLarge(const std::string& message, const char* file, int line) {
  Reply r = VisusError(413, message, file, line);
  r.body = nlohmann::json{{"error", {{"code", "too_large"}, {"message", message}}}}.dump();
  r.Set("Content-Type", "application/json");
  return r;
}

// Time as the client sends it ("0.000000"); nullopt when it is not an integer.
std::optional<int64_t> ParseTime(const std::string& text) {
  try {
    double t = ParseDouble(Trim(text), "time");
    if (!std::isfinite(t) || t != std::floor(t) || std::fabs(t) > 9.0e15) return std::nullopt;
    return static_cast<int64_t>(t);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

Reply ModVisusBlockQuery(ServerContext& context, const Request& request, const QueryString& query) {
  const std::string name = query.GetOr("dataset", "");
  std::shared_ptr<const ServedDataset> ds = context.FindReadable(request, name);
  if (!ds) return HZIO_VISUS_ERROR(404, "Cannot find dataset(" + name + ")");
  const IdxHeader& header = ds->dataset->header();
  const BlockLayout& layout = ds->dataset->layout();

  int field = 0;
  if (std::optional<std::string> f = query.Get("field"); f && !f->empty()) {
    try {
      field = header.FieldIndex(*f);
    } catch (const Error&) {
      return HZIO_VISUS_ERROR(404, "Cannot find field(" + *f + ")");
    }
  }
  const DType& dtype = header.fields[static_cast<size_t>(field)].dtype;

  // Block ids from `block`, or legacy hz start addresses from `from` (block = from >> bpb).
  std::vector<uint64_t> ids;
  const bool legacy = !query.Has("block") && query.Has("from");
  for (const std::string& token : SplitWhitespace(query.GetOr(legacy ? "from" : "block", ""))) {
    int64_t v;
    try {
      v = ParseInt64(token, "block id");
    } catch (const Error&) {
      return HZIO_VISUS_ERROR(400, "wrong block id(" + token + ")");
    }
    if (v < 0) return HZIO_VISUS_ERROR(400, "wrong block id(" + token + ")");
    ids.push_back(legacy ? static_cast<uint64_t>(v) >> layout.bits_per_block() : static_cast<uint64_t>(v));
  }
  if (ids.empty()) return HZIO_VISUS_ERROR(404, "blocks empty()");
  const int64_t block_bytes = dtype.BytesFor(layout.samples_per_block());
  if (static_cast<int64_t>(ids.size()) > context.options.max_blocks_per_query ||
      static_cast<int64_t>(ids.size()) * block_bytes > context.options.max_query_bytes)
    return TooLarge("block query of " + std::to_string(ids.size()) + " blocks is over the server's limit (" +
                        std::to_string(context.options.max_blocks_per_query) + " blocks, " +
                        std::to_string(context.options.max_query_bytes >> 20) + " MiB)",
                    __FILE__, __LINE__);

  const std::string compression = query.GetOr("compression", "");
  if (!WireCodecSupported(compression))
    return HZIO_VISUS_ERROR(500, "Encoding converting to row major failed compression(" + compression +
                                     ") is not supported by this server");
  const bool rowmajor = Truthy(query.GetOr("rowmajor", "0"));

  std::optional<int64_t> time = header.time.Default();
  if (std::optional<std::string> t = query.Get("time"); t && !t->empty()) time = ParseTime(*t);
  const bool time_ok = time && header.time.Contains(*time);

  std::map<std::string, std::string> key = query.params();
  key.erase("action");
  const std::string etag = MakeEtag(ds->generation, "blockquery", key);
  if (EtagMatches(request, etag)) return NotModified(etag, context.options.max_age_seconds);

  // One batched fetch of the valid ids (the block source merges their reads); if it fails, each
  // block alone, so that a bad block fails only its own part.
  std::vector<std::shared_ptr<const DecodedBlock>> blocks(ids.size());
  std::vector<std::string> failures(ids.size());
  std::vector<uint64_t> valid;
  std::vector<size_t> valid_at;
  for (size_t i = 0; i < ids.size(); ++i)
    if (time_ok && ids[i] < layout.total_blocks()) {
      valid.push_back(ids[i]);
      valid_at.push_back(i);
    }
  try {
    std::vector<std::shared_ptr<const DecodedBlock>> got = CachedBlocks(*ds, context.cache, field, *time, valid);
    for (size_t k = 0; k < valid.size(); ++k) blocks[valid_at[k]] = std::move(got[k]);
  } catch (const Error&) {
    for (size_t k = 0; k < valid.size(); ++k) {
      try {
        blocks[valid_at[k]] = CachedBlock(*ds, context.cache, field, *time, valid[k]);
      } catch (const Error& e) {
        RethrowIfChanged(e);
        failures[valid_at[k]] = std::string(" ") + e.what();
      }
    }
  }
  std::vector<Reply> parts;
  parts.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::shared_ptr<const DecodedBlock>& block = blocks[i];
    const std::string& why = failures[i];
    if (!block) {
      parts.push_back(HZIO_VISUS_ERROR(404, "block_query->executeAndWait failed" + why));
      continue;
    }
    try {
      if (rowmajor && !block->row_major) {
        std::vector<uint8_t> rm = BlockInRowMajor(layout, *block, dtype);
        parts.push_back(ArrayBodyReply(compression, dtype, block->grid.count, false, rm.data(), rm.size(),
                                       context.options.wire_zip_level));
      } else {
        parts.push_back(ArrayBodyReply(compression, dtype, block->grid.count, !block->row_major,
                                       block->bytes.data(), block->bytes.size(),
                                       context.options.wire_zip_level));
      }
    } catch (const Error& e) {
      parts.push_back(HZIO_VISUS_ERROR(500, std::string("Encoding converting to row major failed ") + e.what()));
    }
  }
  Reply r = parts.size() == 1 ? std::move(parts[0]) : ComposeReplies(parts);
  if (r.status == 200) MarkCacheable(r, etag, context.options.max_age_seconds);
  return r;
}

Reply ModVisusBoxQuery(ServerContext& context, const Request& request, const QueryString& query) {
  const std::string name = query.GetOr("dataset", "");
  std::shared_ptr<const ServedDataset> ds = context.FindReadable(request, name);
  if (!ds) return HZIO_VISUS_ERROR(404, "Cannot find dataset(" + name + ")");
  const IdxHeader& header = ds->dataset->header();

  BoxQuery q;
  if (std::optional<std::string> f = query.Get("field"); f && !f->empty()) {
    try {
      header.FieldIndex(*f);
    } catch (const Error&) {
      return HZIO_VISUS_ERROR(400, "Cannot find fieldname(" + *f + ")");
    }
    q.field = *f;
  }
  auto rejected = [&](const std::string& why, int line) {
    return VisusError(400, "dataset->beginBoxQuery() failed " + why, __FILE__, line);
  };

  // Levels: toh is the end level; fromh is 0 or equal to toh (§3.4).
  int64_t fromh = 0, toh = 0;
  try {
    std::string f = Trim(query.GetOr("fromh", "")), t = Trim(query.GetOr("toh", ""));
    fromh = f.empty() ? 0 : ParseInt64(f, "fromh");
    toh = t.empty() ? 0 : ParseInt64(t, "toh");
  } catch (const Error& e) {
    return rejected(e.what(), __LINE__);
  }
  if (toh < 0 || toh > header.maxh())
    return rejected("wrong end resolution toh(" + std::to_string(toh) + "), valid 0.." + std::to_string(header.maxh()),
                    __LINE__);
  if (fromh < 0 || fromh > toh || (fromh != 0 && fromh != toh))
    return rejected("wrong query start resolution fromh(" + std::to_string(fromh) + ")", __LINE__);
  q.level = static_cast<int>(toh);
  q.only_level = fromh == toh && toh > 0;

  if (std::optional<std::string> t = query.Get("time"); t && !t->empty()) {
    std::optional<int64_t> time = ParseTime(*t);
    if (!time || !header.time.Contains(*time)) return rejected("wrong time(" + *t + ")", __LINE__);
    q.time = *time;
  }

  std::optional<std::string> box_text = query.Get("box");
  if (!box_text || Trim(*box_text).empty()) return rejected("user_box not valid: box parameter missing", __LINE__);
  try {
    q.box = Box::ParseInclusive(*box_text, header.dims());
  } catch (const Error& e) {
    return rejected(std::string("user_box not valid: ") + e.what(), __LINE__);
  }
  if (q.box->Empty() || q.box->Intersect(header.box).Empty())
    return rejected("user_box not valid: box(" + *box_text + ") does not intersect the dataset box(" +
                        header.box.ToInclusiveString() + ")",
                    __LINE__);

  const std::string compression = query.GetOr("compression", "");
  if (!WireCodecSupported(compression))
    return HZIO_VISUS_ERROR(500, "NetResponse encodeBuffer failed compression(" + compression +
                                     ") is not supported by this server");

  Dataset::Resolved resolved;
  try {
    resolved = ds->dataset->Resolve(q);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kTooLarge) return TooLarge(e.what(), __FILE__, __LINE__);
    return rejected(e.what(), __LINE__);
  }
  const Field& field = header.fields[static_cast<size_t>(resolved.field)];
  const int64_t bytes = field.dtype.BytesFor(resolved.grid.NumSamples());
  if (bytes > context.options.max_query_bytes)
    return TooLarge("box query of " + std::to_string(bytes) + " bytes is over the server's limit of " +
                        std::to_string(context.options.max_query_bytes) + " bytes; ask for a coarser level or a smaller box",
                    __FILE__, __LINE__);

  std::map<std::string, std::string> key{{"box", resolved.box.ToInclusiveString()},
                                         {"field", field.name},
                                         {"time", std::to_string(resolved.time)},
                                         {"fromh", std::to_string(fromh)},
                                         {"toh", std::to_string(toh)},
                                         {"compression", compression}};
  const std::string etag = MakeEtag(ds->generation, "boxquery", key);
  if (EtagMatches(request, etag)) return NotModified(etag, context.options.max_age_seconds);
  try {
    CheckReadCost(context, *ds, resolved);
  } catch (const Error& e) {
    return TooLarge(e.what(), __FILE__, __LINE__);
  }
  if (bytes > context.options.stream_piece_bytes && StreamableCompression(compression)) {
    // Produced and sent piece by piece: a large reply never sits whole in memory (box_stream.h).
    const CodecSpec spec = WireSpec(compression, context.options.wire_zip_level);
    Reply r = ArrayHeaders(compression, field.dtype, resolved.grid.count, field.hz_layout);
    r.stream = std::make_shared<BoxBodyStream>(ds, context.shared, resolved, "", spec.codec == Codec::kZip,
                                               spec.zip_level, context.options.stream_piece_bytes);
    MarkCacheable(r, etag, context.options.max_age_seconds);
    return r;
  }

  std::vector<uint8_t> data(static_cast<size_t>(bytes));
  try {
    ReadBoxCached(*ds, context.cache, resolved, data.data());
  } catch (const Error& e) {
    RethrowIfChanged(e);
    return VisusError(400, std::string("dataset->executeBoxQuery() failed ") + e.what(), __FILE__, __LINE__);
  }
  Reply r;
  try {
    r = ArrayBodyReply(compression, field.dtype, resolved.grid.count, field.hz_layout, data.data(), data.size(),
                       context.options.wire_zip_level);
  } catch (const Error& e) {
    return VisusError(500, std::string("NetResponse encodeBuffer failed ") + e.what(), __FILE__, __LINE__);
  }
  MarkCacheable(r, etag, context.options.max_age_seconds);
  return r;
}

}  // namespace hzio::server
