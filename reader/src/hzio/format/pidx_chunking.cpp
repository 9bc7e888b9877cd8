// PIDX's chunked layout (pidx_chunking.h): the presented header, the stored header, and where each
// value of the presented dataset lies in the chunk records.
#include "hzio/format/pidx_chunking.h"

#include <algorithm>

#include "hzio/format/idx_header.h"
#include "hzio/hz/hz_order.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

constexpr int64_t kPidxChunkingOnly = 1;   // PIDX_CHUNKING_ONLY (PIDX_define.h)
constexpr int64_t kPidxDefaultChunk = 4;   // PIDX_set_compression_type, the v6.1 parser

// Up to kPidxChunkAxes integers of a PIDX key ("16 16 16"); absent axes keep `fill`.
Point ParseAxes(const std::string& text, const std::string& key, int64_t fill) {
  Point p(kPidxChunkAxes, fill);
  const std::vector<std::string> words = SplitWhitespace(text);
  for (size_t d = 0; d < words.size() && d < kPidxChunkAxes; ++d) {
    p[static_cast<int>(d)] = ParseInt64(words[d], key);
    Check(p[static_cast<int>(d)] >= 1, ErrorCode::kInvalidArgument,
          key + " '" + text + "' must hold positive sizes");
  }
  return p;
}

// PIDX's bit string for one patch (guess_bit_string_ZYX): halve the largest axis first, z before
// y before x when they tie, until every axis is 1.
std::string ChunkBits(const Point& chunk, int dims) {
  Point n(dims);
  for (int d = 0; d < dims; ++d) n[d] = chunk[d];
  std::string bits;
  for (;;) {
    int axis = -1;
    for (int d = dims - 1; d >= 0; --d)
      if (n[d] > 1 && (axis < 0 || n[d] > n[axis])) axis = d;
    if (axis < 0) return bits;
    bits += static_cast<char>('0' + axis);
    n[axis] /= 2;
  }
}

bool IsPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

void EraseMetadata(IdxHeader& h, const std::string& key) {
  std::erase_if(h.metadata, [&](const auto& kv) { return kv.first == key; });
}

}  // namespace

void ApplyPidxChunking(IdxHeader& h) {
  const std::string* type = h.Metadata("compression type");
  if (!type || ParseInt64(*type, "(compression type)") != kPidxChunkingOnly) return;
  const std::string what = "PIDX chunked layout ((compression type) 1): ";
  Check(!h.bitmask.text().empty(), ErrorCode::kInvalidArgument, what + "(bits) is missing");
  const int dims = h.bitmask.dims();
  Check(dims <= kPidxChunkAxes, ErrorCode::kUnsupported,
        what + "(bits) " + h.bitmask.text() + " has " + std::to_string(dims) + " axes; PIDX chunks at most 3");
  Check(h.box.dims() == dims, ErrorCode::kInvalidArgument,
        what + "(box) has " + std::to_string(h.box.dims()) + " axes but (bits) " + h.bitmask.text() + " has " +
            std::to_string(dims));
  Check(h.arco == 0, ErrorCode::kUnsupported, what + "an (arco) layout is not PIDX's");

  PidxChunking c;
  const std::string* sizes = h.Metadata("compressed box");
  c.chunk = sizes ? ParseAxes(*sizes, "(compressed box)", kPidxDefaultChunk) : Point(kPidxChunkAxes, kPidxDefaultChunk);
  for (int d = 0; d < kPidxChunkAxes; ++d)
    Check(IsPowerOfTwo(c.chunk[d]) && c.chunk[d] <= 1024, ErrorCode::kUnsupported,
          what + "chunk size " + c.chunk.ToString() + " is not a power of two per axis up to 1024");
  Check(c.RecordValues() <= 4096, ErrorCode::kUnsupported,
        what + "chunks of " + std::to_string(c.RecordValues()) + " samples are larger than hzio reads (4096)");
  for (const Field& f : h.fields) {
    Check(f.dtype.ByteAligned(), ErrorCode::kUnsupported,
          what + "field '" + f.name + "' has dtype " + f.dtype.ToString() + "; PIDX chunks whole-byte types only");
    Check(f.dtype.components() * c.RecordValues() <= (int64_t{1} << 20), ErrorCode::kUnsupported,
          what + "field '" + f.name + "' has too many components for a chunk record");
  }
  // The patches PIDX chunked, as its writer laid them out (pidx_chunking.h). They matter only for
  // fields of several components; a dataset without them is still read when it has none.
  bool vectors = false;
  for (const Field& f : h.fields) vectors = vectors || f.dtype.components() > 1;
  if (const std::string* patch = h.Metadata("restructure box size")) {
    c.patch = ParseAxes(*patch, "(restructure box size)", 1);
  } else {
    Check(!vectors, ErrorCode::kUnsupported,
          what + "(restructure box size) is missing: it says where PIDX put the components of vector fields");
    c.patch = Point(kPidxChunkAxes, 1);
    for (int d = 0; d < dims; ++d) c.patch[d] = h.box.p2[d];  // one patch: only scalars, which need none
  }
  for (int d = 0; d < dims; ++d) {
    Check(h.box.p1[d] == 0, ErrorCode::kUnsupported,
          what + "(box) " + h.box.ToInclusiveString() + " does not start at 0 (PIDX chunks from the origin)");
    Check(c.patch[d] % c.chunk[d] == 0 || !vectors, ErrorCode::kUnsupported,
          what + "(restructure box size) " + c.patch.ToString() + " is not whole chunks of " + c.chunk.ToString());
    const int64_t chunks = (h.box.p2[d] + c.chunk[d] - 1) / c.chunk[d];
    Check(chunks <= h.bitmask.pow2()[d], ErrorCode::kInvalidArgument,
          what + "(box) " + h.box.ToInclusiveString() + " needs " + std::to_string(chunks) + " chunks on axis " +
              std::to_string(d) + " but (bits) " + h.bitmask.text() + " orders " + std::to_string(h.bitmask.pow2()[d]));
  }

  c.stored_bitmask = h.bitmask;
  const int stored_maxh = h.bitmask.maxh();
  Check(h.bits_per_block >= 0, ErrorCode::kInvalidArgument,
        "(bitsperblock) " + std::to_string(h.bits_per_block) + " is negative");
  c.stored_bits_per_block = h.bits_per_block == 0 ? std::min(stored_maxh, 16) : std::min(h.bits_per_block, stored_maxh);
  c.within_bits = ChunkBits(c.chunk, dims);
  Check(stored_maxh + static_cast<int>(c.within_bits.size()) <= kMaxBitmaskLevels, ErrorCode::kUnsupported,
        what + "(bits) " + h.bitmask.text() + " with the chunks' " + c.within_bits + " has more than " +
            std::to_string(kMaxBitmaskLevels) + " levels");

  h.bitmask = Bitmask::Parse(h.bitmask.text() + c.within_bits);
  h.bits_per_block = c.stored_bits_per_block + static_cast<int>(c.within_bits.size());
  EraseMetadata(h, "compression type");
  EraseMetadata(h, "compressed box");
  h.pidx_chunking = std::move(c);
}

IdxHeader PidxStoredHeader(const IdxHeader& header) {
  Check(header.pidx_chunking.has_value(), ErrorCode::kInternal, "PidxStoredHeader of an unchunked header");
  const PidxChunking& c = *header.pidx_chunking;
  IdxHeader s = header;
  s.pidx_chunking.reset();
  s.bitmask = c.stored_bitmask;
  s.bits_per_block = c.stored_bits_per_block;
  for (int d = 0; d < s.box.dims(); ++d) {
    s.box.p1[d] = 0;
    s.box.p2[d] = (header.box.p2[d] + c.chunk[d] - 1) / c.chunk[d];
  }
  for (Field& f : s.fields) {
    const DType& t = f.dtype;
    f.dtype = DType(t.kind(), t.bits(), static_cast<int>(t.components() * c.RecordValues()));
  }
  return s;
}

PidxChunkMap::PidxChunkMap(const IdxHeader& header)
    : dims_(header.dims()), stored_(header.pidx_chunking.value().stored_bitmask) {
  const PidxChunking& c = *header.pidx_chunking;
  chunk_ = c.chunk;
  patch_ = c.patch;
  extent_ = Point(kPidxChunkAxes, 1);
  for (int d = 0; d < dims_; ++d) extent_[d] = header.box.p2[d];
  record_values_ = c.RecordValues();
}

PidxChunkMap::RunAt PidxChunkMap::Locate(const Point& c, int component, int components) const {
  RunAt at;
  if (components == 1) {  // a scalar's record is its own chunk
    at.record_chunk = c;
    at.record_chunk.dims = dims_;
    return at;
  }
  // The patch holding the chunk, its first chunk and its size in (padded) chunks.
  Point first(kPidxChunkAxes), count(kPidxChunkAxes);
  int64_t local = 0, patch_chunks = 1;
  for (int d = kPidxChunkAxes - 1; d >= 0; --d) {
    const int64_t origin = c[d] * chunk_[d] / patch_[d] * patch_[d];
    const int64_t size = std::min(patch_[d], extent_[d] - origin);
    first[d] = origin / chunk_[d];
    count[d] = (size + chunk_[d] - 1) / chunk_[d];
    local = local * count[d] + (c[d] - first[d]);
    patch_chunks *= count[d];
  }
  const int64_t q = static_cast<int64_t>(component) * patch_chunks + local;
  int64_t k = q / components;
  at.value_offset = (q % components) * record_values_;
  at.record_chunk = Point(dims_);
  for (int d = 0; d < kPidxChunkAxes; ++d) {
    const int64_t coordinate = first[d] + k % count[d];
    k /= count[d];
    if (d < dims_) at.record_chunk[d] = coordinate;
  }
  return at;
}

uint64_t PidxChunkMap::StoredHz(const Point& record_chunk) const { return HzFromPoint(stored_, record_chunk); }

}  // namespace hzio
