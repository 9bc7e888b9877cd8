// mod_visus `pointquery` (idx-format.md §7.7, 3-D datasets): nx·ny·nz points spread over a box
// and mapped through a 4x4 logic transform, snapped to the grid of levels 0..toh, each read from
// the block holding it (through the shared cache); points outside the dataset get default_value.
#include <cmath>
#include <cstring>
#include <map>

#include "engine/box_reader.h"
#include "handlers/array_body.h"
#include "handlers/caching.h"
#include "handlers/json_api.h"
#include "handlers/mod_visus_handler.h"
#include "hzio/hz/hz_order.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

std::vector<double> Numbers(const std::string& text, size_t count, const std::string& what) {
  std::vector<std::string> words = SplitWhitespace(text);
  Check(words.size() == count, ErrorCode::kInvalidArgument,
        what + "(" + text + ") needs " + std::to_string(count) + " numbers");
  std::vector<double> out;
  for (const std::string& w : words) out.push_back(ParseDouble(w, what));
  return out;
}

}  // namespace

Reply ModVisusPointQuery(ServerContext& context, const Request& request, const QueryString& query) {
  const std::string name = query.GetOr("dataset", "");
  std::shared_ptr<const ServedDataset> ds = context.FindReadable(request, name);
  if (!ds) return HZIO_VISUS_ERROR(404, "Cannot find dataset(" + name + ")");
  const IdxHeader& header = ds->dataset->header();
  const BlockLayout& layout = ds->dataset->layout();
  auto rejected = [&](const std::string& why, int line) {
    return VisusError(400, "dataset->beginPointQuery() failed " + why, __FILE__, line);
  };
  int field_index = 0;
  if (std::optional<std::string> f = query.Get("field"); f && !f->empty()) {
    try {
      field_index = header.FieldIndex(*f);
    } catch (const Error&) {
      return HZIO_VISUS_ERROR(400, "Cannot find fieldname(" + *f + ")");
    }
  }
  const Field& field = header.fields[static_cast<size_t>(field_index)];
  if (header.dims() != 3) return rejected("point queries need a 3-D dataset", __LINE__);
  int64_t toh = 0, fromh = 0;
  std::vector<double> matrix, box, counts;
  int64_t time = header.time.Default();
  try {
    std::string t = Trim(query.GetOr("toh", "")), f = Trim(query.GetOr("fromh", ""));
    toh = t.empty() ? header.maxh() : ParseInt64(t, "toh");
    fromh = f.empty() ? 0 : ParseInt64(f, "fromh");
    matrix = query.Has("matrix") ? Numbers(query.GetOr("matrix", ""), 16, "matrix")
                                 : std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    box = Numbers(query.GetOr("box", ""), 6, "box");
    counts = Numbers(query.GetOr("nsamples", ""), 3, "nsamples");
    if (std::optional<std::string> ts = query.Get("time"); ts && !ts->empty()) {
      double v = ParseDouble(Trim(*ts), "time");
      Check(v == std::floor(v) && header.time.Contains(static_cast<int64_t>(v)), ErrorCode::kNotFound,
            "wrong time(" + *ts + ")");
      time = static_cast<int64_t>(v);
    }
  } catch (const Error& e) {
    return rejected(e.what(), __LINE__);
  }
  if (toh < 0 || toh > header.maxh()) return rejected("wrong end resolution toh(" + std::to_string(toh) + ")", __LINE__);
  if (fromh != 0) return rejected("wrong query start resolution fromh(" + std::to_string(fromh) + ")", __LINE__);
  Point n(3);
  for (int d = 0; d < 3; ++d) {
    if (counts[static_cast<size_t>(d)] < 1 || counts[static_cast<size_t>(d)] != std::floor(counts[static_cast<size_t>(d)]))
      return rejected("wrong nsamples", __LINE__);
    n[d] = static_cast<int64_t>(counts[static_cast<size_t>(d)]);
  }
  const int64_t total = n.Product();
  const int64_t bytes = field.dtype.BytesFor(total);
  if (total > (int64_t{1} << 32) || bytes > context.options.max_query_bytes) {
    Reply r = HZIO_VISUS_ERROR(413, "point query of " + std::to_string(bytes) + " bytes is over the server's limit");
    return r;
  }
  const std::string compression = query.GetOr("compression", "");
  if (!WireCodecSupported(compression))
    return HZIO_VISUS_ERROR(500, "NetResponse encodeBuffer failed compression(" + compression + ")");
  std::map<std::string, std::string> key = query.params();
  key.erase("action");
  const std::string etag = MakeEtag(ds->generation, "pointquery", key);
  if (EtagMatches(request, etag)) return NotModified(etag, context.options.max_age_seconds);

  // The point whose hz is the last of level toh has every coordinate bit of levels 0..toh set.
  const Point mask = toh == 0 ? Point(3) : PointFromHz(header.bitmask, (uint64_t{1} << toh) - 1);
  const int64_t sb = field.dtype.SampleBytes();
  std::vector<uint8_t> data(static_cast<size_t>(bytes));
  FillDefault(field, data.data(), total);
  try {
    std::shared_ptr<const DecodedBlock> block;
    uint64_t block_id = ~uint64_t{0};
    int64_t index = 0;
    for (int64_t k = 0; k < n[2]; ++k)
      for (int64_t j = 0; j < n[1]; ++j)
        for (int64_t i = 0; i < n[0]; ++i, ++index) {
          const double local[3] = {box[0] + static_cast<double>(i) * (box[3] - box[0]) / static_cast<double>(n[0]),
                                   box[1] + static_cast<double>(j) * (box[4] - box[1]) / static_cast<double>(n[1]),
                                   box[2] + static_cast<double>(k) * (box[5] - box[2]) / static_cast<double>(n[2])};
          Point p(3);
          bool inside = true;
          for (int r = 0; r < 3; ++r) {
            const double* row = &matrix[static_cast<size_t>(4 * r)];
            const double v = row[0] * local[0] + row[1] * local[1] + row[2] * local[2] + row[3];
            if (!std::isfinite(v) || std::fabs(v) > 9.0e15) {
              inside = false;
              break;
            }
            const int64_t c = static_cast<int64_t>(v);  // truncation, as OpenVisus casts
            inside = inside && c >= header.box.p1[r] && c < header.box.p2[r];
            p[r] = c & mask[r];
          }
          if (!inside) continue;
          const uint64_t hz = HzFromPoint(header.bitmask, p);
          const uint64_t id = hz >> layout.bits_per_block();
          if (id != block_id) {  // neighbouring points mostly share a block: one cache lookup
            block = CachedBlock(*ds, context.cache, field_index, time, id);
            block_id = id;
          }
          if (!block) continue;
          int64_t offset;
          if (block->row_major) {
            offset = 0;
            int64_t pitch = 1;
            for (int d = 0; d < 3; ++d) {
              offset += (p[d] - block->grid.origin[d]) / block->grid.stride[d] * pitch;
              pitch *= block->grid.count[d];
            }
          } else {
            offset = static_cast<int64_t>(hz - (id << layout.bits_per_block()));
          }
          std::memcpy(&data[static_cast<size_t>(index * sb)], &block->bytes[static_cast<size_t>(offset * sb)],
                      static_cast<size_t>(sb));
        }
  } catch (const Error& e) {
    RethrowIfChanged(e);
    return VisusError(400, std::string("dataset->executePointQuery() failed ") + e.what(), __FILE__, __LINE__);
  }
  Reply r;
  try {
    r = ArrayBodyReply(compression, field.dtype, n, false, data.data(), data.size(), context.options.wire_zip_level);
  } catch (const Error& e) {
    return VisusError(500, std::string("NetResponse encodeBuffer failed ") + e.what(), __FILE__, __LINE__);
  }
  MarkCacheable(r, etag, context.options.max_age_seconds);
  return r;
}

}  // namespace hzio::server
