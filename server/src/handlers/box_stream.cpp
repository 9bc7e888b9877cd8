#include "handlers/box_stream.h"

#include <algorithm>

#include "engine/box_reader.h"
#include "hzio/codec/codec.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

bool StreamableCompression(const std::string& compression) {
  const std::string c = ToLower(compression);
  if (c.empty() || c == "raw" || c == "bin") return true;
  return CodecSpec::Parse(c).codec == Codec::kZip;
}

BoxBodyStream::BoxBodyStream(std::shared_ptr<const ServedDataset> dataset, std::shared_ptr<ServerShared> shared,
                             const Dataset::Resolved& query, std::string prefix, bool zip, int zip_level,
                             int64_t piece_bytes)
    : dataset_(std::move(dataset)),
      shared_(std::move(shared)),
      query_(query),
      prefix_(std::move(prefix)),
      zip_(zip),
      piece_bytes_(std::max<int64_t>(1 << 16, piece_bytes)) {
  const Field& field = dataset_->dataset->header().fields[static_cast<size_t>(query_.field)];
  sample_bytes_ = field.dtype.SampleBytes();
  total_bytes_ = field.dtype.BytesFor(query_.grid.NumSamples());
  // The slowest axis whose runs (all faster axes whole) still fit a piece.
  const Point& count = query_.grid.count;
  int64_t unit = sample_bytes_;
  axis_ = 0;
  for (int a = 0; a + 1 < count.dims; ++a) {
    if (unit * count[a] > piece_bytes_) break;
    unit *= count[a];
    axis_ = a + 1;
  }
  per_run_ = std::max<int64_t>(1, piece_bytes_ / unit);
  pos_ = Point(count.dims, 0);
  finished_ = query_.grid.NumSamples() == 0;
  if (zip_) {
    Check(deflateInit(&z_, zip_level) == Z_OK, ErrorCode::kInternal, "zlib deflateInit failed");
    z_open_ = true;
  }
}

BoxBodyStream::~BoxBodyStream() {
  if (z_open_) deflateEnd(&z_);
}

int64_t BoxBodyStream::Size() const { return zip_ ? -1 : static_cast<int64_t>(prefix_.size()) + total_bytes_; }

int64_t BoxBodyStream::NextPieceBound() const {
  // Runs never exceed a piece (a run along axis 0 is a part of one row).
  const int64_t run = std::min(total_bytes_, piece_bytes_) + sample_bytes_ + static_cast<int64_t>(prefix_.size());
  // zip: the raw run and its compressed form are alive at once.
  return zip_ ? 2 * run + 1024 : run;
}

bool BoxBodyStream::NextRun(Dataset::Resolved* run) {
  if (finished_) return false;
  const Point& count = query_.grid.count;
  *run = query_;
  const int64_t n = std::min(per_run_, count[axis_] - pos_[axis_]);
  for (int a = axis_; a < count.dims; ++a) {
    run->grid.origin.v[a] = query_.grid.origin[a] + pos_[a] * query_.grid.stride[a];
    run->grid.count.v[a] = a == axis_ ? n : 1;
  }
  run->box = run->grid.LogicBox();
  // Odometer over axis_ (by runs) and the slower axes (one index at a time).
  pos_.v[axis_] += n;
  for (int a = axis_; a < count.dims && pos_[a] >= count[a]; ++a) {
    pos_.v[a] = 0;
    if (a + 1 == count.dims) finished_ = true;
    else ++pos_.v[a + 1];
  }
  return true;
}

void BoxBodyStream::Raw(std::string& out) {
  out.clear();
  if (!prefix_sent_) {
    out = prefix_;
    prefix_sent_ = true;
  }
  Dataset::Resolved run;
  if (!NextRun(&run)) return;
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(sample_bytes_ * run.grid.NumSamples()));
  ReadBoxCached(*dataset_, shared_->cache, run, reinterpret_cast<uint8_t*>(out.data() + at));
}

bool BoxBodyStream::Next(std::string& piece) {
  piece.clear();
  if (!zip_) {
    if (finished_ && prefix_sent_) return false;
    Raw(piece);
    return !piece.empty();
  }
  if (!z_open_) return false;
  // Deflate runs until some output exists (zlib buffers small inputs), or finish the stream.
  std::string raw;
  while (piece.empty()) {
    const bool last = finished_ && prefix_sent_;
    if (!last) Raw(raw);
    z_.next_in = reinterpret_cast<Bytef*>(raw.data());
    z_.avail_in = static_cast<uInt>(raw.size());
    const int flush = finished_ ? Z_FINISH : Z_NO_FLUSH;
    int rc;
    do {
      char buf[1 << 16];
      z_.next_out = reinterpret_cast<Bytef*>(buf);
      z_.avail_out = sizeof buf;
      rc = deflate(&z_, flush);
      Check(rc != Z_STREAM_ERROR, ErrorCode::kInternal, "zlib deflate failed");
      piece.append(buf, sizeof buf - z_.avail_out);
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    if (flush == Z_FINISH) {
      deflateEnd(&z_);
      z_open_ = false;
      return !piece.empty();
    }
  }
  return true;
}

}  // namespace hzio::server
