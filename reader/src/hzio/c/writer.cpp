// hzio_writer_*: argument checks shared by serial and collective writers, and the serial writer
// (hzio::core's DatasetWriter, idx-format.md §4.9).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "hzio/access/dataset_writer.h"
#include "hzio/c/api_status.h"
#include "hzio/c/handles.h"
#include "hzio/c/hzio.h"

using hzio::internal_c::Get;
using hzio::internal_c::Guard;
using hzio::internal_c::RequireNonNull;
using hzio::internal_c::Text;

namespace hzio::internal_c {

void CheckFlags(int flags, int allowed, const char* kind) {
  if ((flags & ~allowed) == 0) return;
  static constexpr struct {
    int bit;
    const char* name;
  } kNames[] = {{HZIO_OVERWRITE, "HZIO_OVERWRITE"}, {HZIO_SYNC, "HZIO_SYNC"}, {HZIO_UPDATE, "HZIO_UPDATE"},
                {HZIO_ONE_PHASE, "HZIO_ONE_PHASE"}, {HZIO_PIDX_COMPATIBLE, "HZIO_PIDX_COMPATIBLE"}};
  std::string refused;
  for (const auto& n : kNames)
    if ((flags & n.bit) != 0 && (allowed & n.bit) == 0) refused += (refused.empty() ? "" : ", ") + std::string(n.name);
  if (refused.empty()) refused = "unknown bits " + std::to_string(flags & ~allowed);
  throw Error(ErrorCode::kInvalidArgument, std::string("flags ") + std::to_string(flags) + ": " + refused +
                                               " cannot be given to " + kind);
}

bool CheckElementBytes(const Field& field, int element_bytes) {
  const int64_t component_bytes = field.dtype.bits() / 8;
  Check(field.dtype.ByteAligned() && (element_bytes == component_bytes || element_bytes == field.dtype.SampleBytes()),
        ErrorCode::kInvalidArgument,
        "array elements of " + std::to_string(element_bytes) + " bytes do not hold field '" + field.name + "' (" +
            field.dtype.ToString() + ", " + std::to_string(component_bytes) + " bytes per component)");
  return element_bytes == component_bytes;
}

namespace {

// Writes with hzio::core's DatasetWriter: the boxes are written in the order they were added,
// each block encoded and appended as soon as all its samples arrived, then the .idx.
class SerialWriter final : public WriterBackend {
 public:
  SerialWriter(const std::string& path, const IdxHeader& header, int flags) : writer_(path, header, Options(flags)) {}

  void Add(int field, int64_t time, const Box& box, const uint8_t* data) override {
    added_.push_back(Added{field, time, box, data});
  }

  hzio_io_stats Write() override {
    const auto start = std::chrono::steady_clock::now();
    hzio_io_stats stats{};
    for (const Added& a : added_) {
      writer_.Write(a.field, a.time, a.box, a.data);
      stats.data_bytes += writer_.header().fields[static_cast<size_t>(a.field)].dtype.BytesFor(a.box.Size().Product());
    }
    writer_.Finish();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stats.file_bytes = -1;
    stats.aggregators = 1;
    return stats;
  }

 private:
  static WriterOptions Options(int flags) {
    WriterOptions o;
    o.allow_existing = (flags & HZIO_UPDATE) != 0;
    o.sync = (flags & HZIO_SYNC) != 0;
    return o;
  }

  struct Added {
    int field;
    int64_t time;
    Box box;
    const uint8_t* data;
  };
  DatasetWriter writer_;
  std::vector<Added> added_;
};

// The checks of hzio_writer_add*: a box of a declared field and timestep inside the dataset.
void AddChecked(hzio_writer* writer, const char* field, int64_t time, const Box& box, const void* data) {
  Check(!writer->written, ErrorCode::kInvalidArgument,
        "this writer has written its dataset already; the next checkpoint takes a new writer");
  const IdxHeader& h = writer->desc.Validated();
  const int index = h.FieldIndex(Text(field, "field"));
  Check(h.time.Contains(time), ErrorCode::kNotFound, "timestep " + std::to_string(time) + " is not declared");
  Check(box.Intersect(h.box) == box, ErrorCode::kOutOfRange,
        "box " + box.ToRangesString() + " is not inside the dataset box " + h.box.ToRangesString());
  RequireNonNull(data, "data");
  writer->backend->Add(index, time, box, static_cast<const uint8_t*>(data));
}

}  // namespace

}  // namespace hzio::internal_c

using hzio::internal_c::AddChecked;

extern "C" {

hzio_status hzio_writer_create(const char* path, const hzio_desc* desc, int flags, hzio_writer** writer) {
  return Guard(__func__, [&] {
    RequireNonNull(writer, "writer");
    RequireNonNull(desc, "desc");
    const std::string where = Text(path, "path");
    hzio::internal_c::CheckFlags(flags, HZIO_SYNC | HZIO_UPDATE, "a serial writer (HZIO_OVERWRITE is for collective writers)");
    hzio::IdxHeader header = hzio::internal_c::HeaderForWriting(*desc, where);
    auto backend = std::make_unique<hzio::internal_c::SerialWriter>(where, header, flags);
    *writer = new hzio_writer(std::move(header), std::move(backend));
  });
}

hzio_status hzio_writer_free(hzio_writer* writer) {
  return Guard(__func__, [&] { delete writer; });
}

hzio_status hzio_writer_add(hzio_writer* writer, const char* field, int64_t time, const int64_t* offset,
                            const int64_t* count, const void* data) {
  return Guard(__func__, [&] {
    RequireNonNull(writer, "writer");
    AddChecked(writer, field, time, hzio::internal_c::BoxOf(writer->desc.Validated().dims(), offset, count), data);
  });
}

hzio_status hzio_writer_add_array(hzio_writer* writer, const char* field, int64_t time, const int64_t* offset,
                                  int rank, const int64_t* shape, int element_bytes, const void* data) {
  return Guard(__func__, [&] {
    using hzio::Check;
    using hzio::ErrorCode;
    RequireNonNull(writer, "writer");
    RequireNonNull(shape, "shape");
    const hzio::IdxHeader& h = writer->desc.Validated();
    const hzio::Field& f = h.fields[static_cast<size_t>(h.FieldIndex(Text(field, "field")))];
    const int dims = h.dims(), components = f.dtype.components();
    // One element per component, with a leading axis of the components (needed for vectors, may
    // be there for scalars: a(1,nx,ny,nz)); or one element per whole sample and no such axis.
    const bool leading =
        hzio::internal_c::CheckElementBytes(f, element_bytes) && (components > 1 || rank == dims + 1);
    const int want_rank = dims + (leading ? 1 : 0);
    Check(rank == want_rank, ErrorCode::kInvalidArgument,
          "an array of rank " + std::to_string(rank) + " for field '" + f.name + "' (" + f.dtype.ToString() +
              ") of a " + std::to_string(dims) + "-D dataset; it needs rank " + std::to_string(want_rank) +
              (leading ? " (components first)" : ""));
    Check(!leading || shape[0] == components, ErrorCode::kInvalidArgument,
          "the first extent of the array for field '" + f.name + "' is " + std::to_string(shape[0]) + ", not its " +
              std::to_string(components) + " components");
    AddChecked(writer, field, time, hzio::internal_c::BoxOf(dims, offset, shape + (leading ? 1 : 0)), data);
  });
}

hzio_status hzio_writer_write(hzio_writer* writer) {
  return Guard(__func__, [&] {
    RequireNonNull(writer, "writer");
    hzio::Check(!writer->written, hzio::ErrorCode::kInvalidArgument,
                "this writer has written its dataset already; the next checkpoint takes a new writer");
    writer->written = true;  // a failed write is not retried: its files are in an unknown state
    writer->stats = writer->backend->Write();
  });
}

hzio_status hzio_writer_get_desc(const hzio_writer* writer, const hzio_desc** desc) {
  return Get(__func__, writer, "writer", desc, "desc", [](const hzio_writer& h) { return &h.desc; });
}

hzio_status hzio_writer_get_stats(const hzio_writer* writer, hzio_io_stats* stats) {
  return Get(__func__, writer, "writer", stats, "stats", [](const hzio_writer& h) { return h.stats; });
}

}  // extern "C"
