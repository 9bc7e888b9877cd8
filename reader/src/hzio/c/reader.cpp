// hzio_reader_*: argument checks shared by serial and collective readers, and the serial reader
// (hzio::core's OpenDataset: local .idx paths and mod_visus URLs, idx-format.md §3.4).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/c/api_status.h"
#include "hzio/c/handles.h"
#include "hzio/c/hzio.h"

using hzio::internal_c::Get;
using hzio::internal_c::Guard;
using hzio::internal_c::RequireNonNull;
using hzio::internal_c::Text;

namespace hzio::internal_c {

int CheckedLevel(const IdxHeader& header, int level) {
  if (level == HZIO_FULL_RESOLUTION) return header.maxh();
  Check(level >= 0 && level <= header.maxh(), ErrorCode::kOutOfRange,
        "level " + std::to_string(level) + " is outside 0.." + std::to_string(header.maxh()) +
            " (HZIO_FULL_RESOLUTION is " + std::to_string(header.maxh()) + ")");
  return level;
}

Grid ResultGridOrEmpty(const IdxHeader& header, const BlockLayout& layout, const Box& box, int level) {
  level = CheckedLevel(header, level);
  const Box clipped = box.Intersect(header.box);
  Check(!clipped.Empty(), ErrorCode::kOutOfRange,
        "box " + box.ToRangesString() + " lies outside the dataset box " + header.box.ToRangesString());
  try {
    return layout.QueryGrid(clipped, LevelRange{0, level});
  } catch (const Error& e) {
    // The level and the box are known good: the only kOutOfRange left is a box between that
    // level's samples (a rank's small box at a coarse level).
    if (e.code() != ErrorCode::kOutOfRange) throw;
    const int dims = header.dims();
    return Grid{clipped.p1, header.bitmask.CumulativeStride(level), Point(dims, 0)};
  }
}

namespace {

// hzio::core's serial reader (a local dataset or a mod_visus URL).
class SerialReader final : public ReaderBackend {
 public:
  explicit SerialReader(const std::string& path)
      : dataset_(OpenDataset(path)) {}

  const IdxHeader& header() const override { return dataset_->header(); }
  const BlockLayout& layout() const override { return dataset_->layout(); }
  void Agreed(const std::function<void()>& checks) override { checks(); }

  hzio_io_stats ReadInto(const std::vector<int>& fields, int64_t time, int level, const std::vector<Box>& boxes,
                         const std::vector<std::vector<uint8_t*>>& out) override {
    const auto start = std::chrono::steady_clock::now();
    hzio_io_stats stats{};
    for (size_t k = 0; k < fields.size(); ++k) {
      const Field& f = header().fields[static_cast<size_t>(fields[k])];
      for (size_t i = 0; i < boxes.size(); ++i) {
        const Dataset::Resolved r = dataset_->Resolve(BoxQuery{.box = boxes[i], .level = level, .field = f.name, .time = time});
        dataset_->ReadInto(r, out[k][i]);
        stats.data_bytes += f.dtype.BytesFor(r.grid.NumSamples());
      }
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.file_bytes = -1;
    stats.aggregators = 1;
    return stats;
  }

 private:
  std::shared_ptr<Dataset> dataset_;
};

// The checks of every read: fields by name, a declared timestep, boxes inside the dataset with
// their result grids; boxes without samples at `level` are dropped (nothing to read into them).
// Then the read itself.
void ReadChecked(hzio_reader* reader, int nfields, const char* const* names, int64_t time, int level, int64_t nboxes,
                 const int64_t* offsets, const int64_t* counts, void* const* out,
                 const std::function<void(const Field&, const Grid&)>& check_target = {}) {
  RequireNonNull(reader, "reader");
  ReaderBackend& backend = *reader->backend;
  const IdxHeader& h = backend.header();
  std::vector<int> fields;
  std::vector<Box> boxes;
  std::vector<std::vector<uint8_t*>> targets;
  backend.Agreed([&] {
    Check(nfields >= 1, ErrorCode::kInvalidArgument, "nfields " + std::to_string(nfields) + " is not positive");
    RequireNonNull(names, "fields");
    for (int k = 0; k < nfields; ++k) fields.push_back(h.FieldIndex(Text(names[k], "field")));
    Check(h.time.Contains(time), ErrorCode::kNotFound, "timestep " + std::to_string(time) + " is not declared");
    level = CheckedLevel(h, level);
    Check(nboxes >= 0, ErrorCode::kInvalidArgument, "nboxes " + std::to_string(nboxes) + " is negative");
    if (nboxes > 0) {
      RequireNonNull(offsets, "offsets");
      RequireNonNull(counts, "counts");
      RequireNonNull(out, "out");
    }
    targets.resize(fields.size());
    const int dims = h.dims();
    for (int64_t i = 0; i < nboxes; ++i) {
      const Box box = BoxOf(dims, offsets + i * dims, counts + i * dims);
      const Grid grid = ResultGridOrEmpty(h, backend.layout(), box, level);
      for (size_t k = 0; k < fields.size(); ++k) {
        if (check_target) check_target(h.fields[static_cast<size_t>(fields[k])], grid);
        if (grid.NumSamples() == 0) continue;
        void* to = out[static_cast<int64_t>(k) * nboxes + i];
        RequireNonNull(to, ("out[" + std::to_string(static_cast<int64_t>(k) * nboxes + i) + "]").c_str());
        targets[k].push_back(static_cast<uint8_t*>(to));
      }
      if (grid.NumSamples() > 0) boxes.push_back(box.Intersect(h.box));
    }
  });
  reader->stats = backend.ReadInto(fields, time, level, boxes, targets);
}

}  // namespace

}  // namespace hzio::internal_c

using hzio::internal_c::ReadChecked;

extern "C" {

hzio_status hzio_reader_open(const char* path_or_url, int flags, hzio_reader** reader) {
  return Guard(__func__, [&] {
    RequireNonNull(reader, "reader");
    const std::string where = Text(path_or_url, "path_or_url");
    hzio::internal_c::CheckFlags(flags, 0, "a serial reader");
    *reader = new hzio_reader(std::make_unique<hzio::internal_c::SerialReader>(where));
  });
}

hzio_status hzio_reader_free(hzio_reader* reader) {
  return Guard(__func__, [&] { delete reader; });
}

hzio_status hzio_reader_get_desc(const hzio_reader* reader, const hzio_desc** desc) {
  return Get(__func__, reader, "reader", desc, "desc", [](const hzio_reader& h) { return &h.desc; });
}

hzio_status hzio_reader_query_grid(const hzio_reader* reader, const int64_t* offset, const int64_t* count, int level,
                                   int64_t* origin, int64_t* stride, int64_t* grid_count) {
  return Guard(__func__, [&] {
    RequireNonNull(reader, "reader");
    const hzio::IdxHeader& h = reader->backend->header();
    const hzio::Box box = hzio::internal_c::BoxOf(h.dims(), offset, count);
    const hzio::Grid g = hzio::internal_c::ResultGridOrEmpty(h, reader->backend->layout(), box, level);
    for (int d = 0; d < h.dims(); ++d) {
      if (origin != nullptr) origin[d] = g.origin[d];
      if (stride != nullptr) stride[d] = g.stride[d];
      if (grid_count != nullptr) grid_count[d] = g.count[d];
    }
  });
}

hzio_status hzio_reader_read(hzio_reader* reader, const char* field, int64_t time, int level, int64_t nboxes,
                             const int64_t* offsets, const int64_t* counts, void* const* out) {
  return Guard(__func__, [&] { ReadChecked(reader, 1, &field, time, level, nboxes, offsets, counts, out); });
}

hzio_status hzio_reader_read_fields(hzio_reader* reader, int nfields, const char* const* fields, int64_t time,
                                    int level, int64_t nboxes, const int64_t* offsets, const int64_t* counts,
                                    void* const* out) {
  return Guard(__func__, [&] { ReadChecked(reader, nfields, fields, time, level, nboxes, offsets, counts, out); });
}

hzio_status hzio_reader_read_array(hzio_reader* reader, const char* field, int64_t time, int level,
                                   const int64_t* offset, const int64_t* count, int64_t elements, int element_bytes,
                                   void* data) {
  return Guard(__func__, [&] {
    void* const out[1] = {data};
    const auto check = [&](const hzio::Field& f, const hzio::Grid& grid) {
      hzio::internal_c::CheckElementBytes(f, element_bytes);
      const int64_t want = f.dtype.BytesFor(grid.NumSamples()) / element_bytes;
      hzio::Check(elements == want, hzio::ErrorCode::kInvalidArgument,
                  "an array of " + std::to_string(elements) + " elements for " + std::to_string(grid.NumSamples()) +
                      " samples of field '" + f.name + "' (" + f.dtype.ToString() + "); it needs " +
                      std::to_string(want));
    };
    ReadChecked(reader, 1, &field, time, level, 1, offset, count, out, check);
  });
}

hzio_status hzio_reader_get_stats(const hzio_reader* reader, hzio_io_stats* stats) {
  return Get(__func__, reader, "reader", stats, "stats", [](const hzio_reader& h) { return h.stats; });
}

}  // extern "C"
