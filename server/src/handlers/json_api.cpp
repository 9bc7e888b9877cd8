#include "handlers/json_api.h"

#include <nlohmann/json.hpp>

#include "engine/box_reader.h"
#include "handlers/array_body.h"
#include "handlers/box_stream.h"
#include "handlers/caching.h"
#include "handlers/npy.h"
#include "handlers/query_cost.h"
#include "hzio/codec/codec.h"
#include "hzio/util/strings.h"

namespace hzio::server {

using nlohmann::json;

namespace {

json PointJson(const Point& p) {
  json a = json::array();
  for (int d = 0; d < p.dims; ++d) a.push_back(p[d]);
  return a;
}

std::string CommaList(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string CommaList(const Point& p) {
  std::vector<int64_t> v(p.v.begin(), p.v.begin() + p.dims);
  return CommaList(v);
}

Reply JsonReply(const json& body) {
  Reply r;
  // Messages echo parts of the request: invalid UTF-8 there is replaced, never a reason to throw.
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  r.Set("Content-Type", "application/json");
  return r;
}

std::string BaseUrl(const Request& request) {
  std::string host = request.Header("Host");
  return host.empty() ? "" : (request.secure ? "https://" : "http://") + host;
}

json DatasetMetadata(const ServedDataset& ds) {
  const IdxHeader& h = ds.dataset->header();
  const BlockLayout& layout = ds.dataset->layout();
  json fields = json::array();
  for (const Field& f : h.fields) {
    json jf{{"name", f.name},
            {"dtype", f.dtype.ToString()},
            {"components", f.dtype.components()},
            {"default_layout", f.hz_layout ? "hzorder" : "rowmajor"},
            {"compression", f.compression},
            {"default_value", f.default_value}};
    try {
      jf["numpy_dtype"] = f.dtype.NumpyDescr();
    } catch (const Error&) {
      jf["numpy_dtype"] = nullptr;
    }
    // min/max as OpenVisus writes them: unknown when absent or all zero.
    bool known = !f.min.empty() && !f.max.empty();
    if (known) {
      bool all_zero = true;
      for (size_t i = 0; i < f.min.size(); ++i) all_zero &= f.min[i] == 0 && (i >= f.max.size() || f.max[i] == 0);
      known = !all_zero;
    }
    jf["min"] = known ? json(f.min) : json(nullptr);
    jf["max"] = known ? json(f.max) : json(nullptr);
    fields.push_back(jf);
  }
  json levels = json::array();
  for (int level = 0; level <= h.maxh(); ++level) {
    Grid g = layout.QueryGrid(h.box, LevelRange{0, level});
    levels.push_back({{"level", level},
                      {"shape", PointJson(g.count)},
                      {"stride", PointJson(g.stride)},
                      {"origin", PointJson(g.origin)},
                      {"samples", g.NumSamples()}});
  }
  json timesteps = json::array();
  for (int64_t t : h.time.List(100000)) timesteps.push_back(t);
  return json{{"name", ds.name},
              {"group", ds.group},
              {"dims", PointJson(h.box.Size())},
              {"logic_box", {{"p1", PointJson(h.box.p1)}, {"p2", PointJson(h.box.p2)}}},
              {"physic_box", h.PhysicBoxOrLogic()},
              {"bitmask", h.bitmask.text()},
              {"maxh", h.maxh()},
              {"bitsperblock", h.bits_per_block},
              {"blocksperfile", h.blocks_per_file},
              {"total_blocks", h.total_blocks()},
              {"fields", fields},
              {"timesteps", timesteps},
              {"default_time", h.time.Default()},
              {"any_time", h.time.any},
              {"levels", levels},
              {"mod_visus", "/mod_visus?dataset=" + ds.name}};
}

Reply Data(ServerContext& context, const Request& request, const std::shared_ptr<const ServedDataset>& dsp,
           const QueryString& query) {
  const ServedDataset& ds = *dsp;
  const IdxHeader& h = ds.dataset->header();
  BoxQuery q;
  if (std::optional<std::string> b = query.Get("box"); b && !b->empty()) {
    q.box = Box::ParseRanges(*b);
    Check(q.box->dims() == h.dims(), ErrorCode::kInvalidArgument,
          "box '" + *b + "' has " + std::to_string(q.box->dims()) + " axes; dataset '" + ds.name + "' has " +
              std::to_string(h.dims()));
  }
  if (std::optional<std::string> l = query.Get("level"); l && !l->empty()) {
    int64_t level = ParseInt64(*l, "level");
    Check(level >= 0 && level <= h.maxh(), ErrorCode::kOutOfRange,
          "level " + *l + " is outside 0.." + std::to_string(h.maxh()));
    q.level = static_cast<int>(level);
  }
  q.field = query.GetOr("field", "");
  if (std::optional<std::string> t = query.Get("time"); t && !t->empty()) q.time = ParseInt64(*t, "time");
  const std::string format = query.GetOr("format", "npy");
  Check(format == "npy" || format == "raw", ErrorCode::kInvalidArgument,
        "format '" + format + "' is not one of npy, raw");
  const std::string compression = ToLower(query.GetOr("compression", "raw"));
  Check(compression == "raw" || compression == "zip" || compression == "lz4" || compression.empty(),
        ErrorCode::kInvalidArgument, "compression '" + compression + "' is not one of raw, zip, lz4");

  Dataset::Resolved resolved = ds.dataset->Resolve(q);
  const Field& field = h.fields[static_cast<size_t>(resolved.field)];
  const int64_t bytes = field.dtype.BytesFor(resolved.grid.NumSamples());
  Check(bytes <= context.options.max_query_bytes, ErrorCode::kTooLarge,
        "query of " + std::to_string(bytes) + " bytes is over the server's limit of " +
            std::to_string(context.options.max_query_bytes) + " bytes; ask for a coarser level or a smaller box");

  std::vector<int64_t> shape = Array::View(field.dtype, resolved.grid.count, nullptr).NumpyShape();
  std::map<std::string, std::string> key{{"box", resolved.box.ToRangesString()},
                                         {"field", field.name},
                                         {"time", std::to_string(resolved.time)},
                                         {"level", std::to_string(resolved.levels.to)},
                                         {"format", format},
                                         {"compression", compression}};
  const std::string etag = MakeEtag(ds.generation, "api-data", key);
  if (EtagMatches(request, etag)) return NotModified(etag, context.options.max_age_seconds);

  CheckReadCost(context, ds, resolved);

  std::string body;
  size_t header_size = 0;
  if (format == "npy") {
    body = NpyHeader(field.dtype.NumpyDescr(), shape);
    header_size = body.size();
  }
  Reply r;
  if (bytes > context.options.stream_piece_bytes && compression != "lz4") {
    // Produced and sent piece by piece (box_stream.h); an lz4 body is one block, made whole below.
    r.stream = std::make_shared<BoxBodyStream>(dsp, context.shared, resolved, std::move(body), compression == "zip",
                                               context.options.wire_zip_level, context.options.stream_piece_bytes);
    r.Set("Content-Type", compression == "zip" ? "application/zip" : "application/octet-stream");
  } else {
  body.resize(header_size + static_cast<size_t>(bytes));
  ReadBoxCached(ds, context.cache, resolved, reinterpret_cast<uint8_t*>(body.data() + header_size));
  if (compression == "zip" || compression == "lz4") {
    CodecSpec spec = CodecSpec::Parse(compression);
    spec.zip_level = context.options.wire_zip_level;
    std::vector<uint8_t> enc = Encode(spec, reinterpret_cast<const uint8_t*>(body.data()), body.size());
    r.body.assign(reinterpret_cast<const char*>(enc.data()), enc.size());
    r.Set("Content-Type", compression == "zip" ? "application/zip" : "application/x-lz4");
  } else {
    r.body = std::move(body);
    r.Set("Content-Type", "application/octet-stream");
  }
  }
  const Box aligned = resolved.grid.LogicBox();
  r.Set("X-Hzio-Shape", CommaList(shape));
  r.Set("X-Hzio-Dtype", field.dtype.ToString());
  r.Set("X-Hzio-Numpy-Dtype", field.dtype.NumpyDescr());
  r.Set("X-Hzio-Level", std::to_string(resolved.levels.to));
  r.Set("X-Hzio-Box", aligned.ToRangesString());
  r.Set("X-Hzio-Origin", CommaList(resolved.grid.origin));
  r.Set("X-Hzio-Stride", CommaList(resolved.grid.stride));
  r.Set("X-Hzio-Count", CommaList(resolved.grid.count));
  r.Set("X-Hzio-Field", field.name);
  r.Set("X-Hzio-Time", std::to_string(resolved.time));
  r.Set("X-Hzio-Format", format);
  r.Set("X-Hzio-Compression", compression.empty() ? "raw" : compression);
  r.Set("X-Hzio-Decoded-Size", std::to_string(header_size + static_cast<size_t>(bytes)));
  MarkCacheable(r, etag, context.options.max_age_seconds);
  return r;
}

}  // namespace

int JsonErrorStatus(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kOutOfRange: return 400;
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kTooLarge: return 413;
    case ErrorCode::kUnavailable:
    case ErrorCode::kChanged:
    case ErrorCode::kLocked: return 503;
    case ErrorCode::kUnsupported: return 501;
    default: return 500;
  }
}

Reply JsonError(int status, const std::string& code, const std::string& message) {
  Reply r = JsonReply(json{{"error", {{"code", code}, {"message", message}}}});
  r.status = status;
  r.Set("Cache-Control", "no-store");
  return r;
}

Reply JsonErrorFrom(const Error& error) {
  return JsonError(JsonErrorStatus(error.code()), std::string(ErrorCodeName(error.code())), error.what());
}

Reply HandleJsonApi(ServerContext& context, const Request& request, const QueryString& query) {
  const std::string& path = query.path();
  const std::string prefix = "/api/v1/datasets";
  try {
    if (path == "/api/v1/health" || path == "/api/v1/health/") {
      BlockCacheStats c = context.cache.Stats();
      Reply r = JsonReply(json{{"status", "ok"},
                               {"datasets", context.Visible(request).size()},
                               {"cache",
                                {{"hits", c.hits},
                                 {"misses", c.misses},
                                 {"entries", c.entries},
                                 {"bytes", c.bytes},
                                 {"capacity", c.capacity}}}});
      r.Set("Cache-Control", "no-store");
      return r;
    }
    if (path == prefix || path == prefix + "/") {
      json list = json::array();
      for (const DatasetEntry* s : context.Visible(request)) {
        json e{{"name", s->name}, {"url", BaseUrl(request) + "/mod_visus?dataset=" + s->name}};
        if (!s->group.empty()) e["group"] = s->group;
        list.push_back(e);
      }
      Reply r = JsonReply(list);
      r.Set("Cache-Control", "no-cache");
      return r;
    }
    if (StartsWith(path, prefix + "/")) {
      std::string rest = path.substr(prefix.size() + 1);
      bool data = false;
      if (rest.size() > 5 && rest.compare(rest.size() - 5, 5, "/data") == 0) {
        data = true;
        rest.resize(rest.size() - 5);
      }
      std::shared_ptr<const ServedDataset> ds = context.FindReadable(request, rest);
      if (!ds) return JsonError(404, "not_found", "no dataset named '" + rest + "'");
      if (data) return Data(context, request, ds, query);
      json meta = DatasetMetadata(*ds);
      meta["url"] = BaseUrl(request) + "/mod_visus?dataset=" + ds->name;
      Reply r = JsonReply(meta);
      r.Set("Cache-Control", "no-cache");
      return r;
    }
    return JsonError(404, "not_found", "no API endpoint " + path);
  } catch (const Error& e) {
    RethrowIfChanged(e);
    return JsonErrorFrom(e);
  } catch (const std::bad_alloc&) {
    return JsonError(503, "unavailable", "out of memory");
  }
}

}  // namespace hzio::server
