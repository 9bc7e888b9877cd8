/// PIDX 0.9.3's chunked layout, PIDX_CHUNKING_ONLY (`(compression type) 1`, idx-format.md §1.2),
/// and the plain IDX dataset hzio presents it as.
///
/// What PIDX writes (facts from sci-visus/PIDX d09b4b2, checked byte for byte against
/// shared/testdata/pidx-golden/s3dchunk_n2):
///  * Chunks. The sample box is cut into chunks of 4x4x4 samples from the origin
///    (`PIDX_set_compression_type` in pidx/PIDX_idx_set_get.c; a reader takes 4 on every axis when
///    `(compression type)` is not 0, or the sizes of a `(compressed box)` key:
///    pidx/metadata/PIDX_metadata_parse_v6_1.c). Chunks crossing the box's upper faces are padded.
///  * The HZ hierarchy is built over the chunk grid: `(bits)` orders the power-of-two padded grid of
///    ceil(box / 4) chunks (pidx/io/idx/bit_string.c divides the patch sizes by the chunk size before
///    guessing the bit string), and `(bitsperblock)` is the unchunked value minus log2(64) (one HZ
///    "sample" is one chunk). Blocks, block tables, files and their names are those of a plain IDX
///    dataset over that grid (§4.3–4.6), raw and hz-ordered, each HZ sample 64 x the field's sample
///    bytes long.
///  * Inside a chunk record. PIDX_chunk (pidx/core/PIDX_block_rst/PIDX_block_restructure.c) works
///    on one restructured patch at a time (the writer's patch of `(restructure box size)`, aligned
///    to multiples of it from the origin, cut at the box and padded up to whole chunks:
///    pidx/io/idx/restructure_box_setup.c). It splits a field into its components and writes, for
///    each component in turn, every chunk of the patch (x fastest, then y, then z), each chunk's 64
///    values x fastest, then y, then z. The HZ encoder (pidx/core/PIDX_hz/PIDX_hz_encode_write.c)
///    then takes the patch's chunk number k (x fastest) and stores bytes [k*B, (k+1)*B) of that
///    buffer as the chunk's record, B = 64 x sample bytes. For a scalar field a record is therefore
///    its own chunk's 64 values. For a field of n components the record of chunk k holds runs of 64
///    values from the component planes: the values of chunk j of component c sit in the record of
///    chunk (c*P + j) / n of the same patch, at value offset 64*((c*P + j) % n), P being the number
///    of chunks in the patch. PIDX's own reader inverts this with the patch size it derives from
///    its process count, not the header's, so it reads vector fields correctly only with the
///    writer's decomposition; hzio uses `(restructure box size)`, which the writer recorded.
///  * PIDX_CHUNKING_ZFP (`(compression type) 2`) stores zfp streams in the records; PIDX 0.9.3
///    cannot read its own output, so there is nothing to match and hzio refuses it.
///
/// What hzio shows: the dataset as what it is, the full sample grid, with the bitmask extended by
/// the bits inside a chunk — `(bits)` followed by the chunk's own bit string, which PIDX guesses as
/// for any patch (largest axis first, z before y before x on ties: "210210" for 4x4x4). Extended
/// this way, a chunked dataset gets exactly the bitmask PIDX writes for the same run with chunking
/// off (V2210210 + 210210 = V2210210210210, the bitmask of pidx-golden/s3d_n2). Its coarse levels
/// (up to the stored maxh) are the chunk hierarchy, each chunk standing at its corner sample
/// (0,0,0), whose value it carries; the finer levels subdivide the chunks. Levels, grids, boxes
/// and blocks then behave as for any IDX dataset; the blocks of that dataset are built from the
/// stored chunk records (access/pidx_chunk_source.h).
#pragma once

#include <cstdint>

#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio {

struct IdxHeader;

/// PIDX always chunks three axes; a dataset of fewer dims has coordinate 0 on the others.
inline constexpr int kPidxChunkAxes = 3;

/// How a chunked PIDX dataset is stored (the header as PIDX wrote it).
struct PidxChunking {
  Point chunk;               // samples per chunk on each of kPidxChunkAxes axes (PIDX: 4)
  Point patch;               // `(restructure box size)`: the writer's patches (kPidxChunkAxes axes)
  Bitmask stored_bitmask;    // `(bits)` as written: orders the chunk grid
  int stored_bits_per_block = 0;  // `(bitsperblock)` as written, defaulted as §1.7 does
  std::string within_bits;   // the chunk's bit string appended to `(bits)` ("210210")

  /// Values of one component in a chunk record (chunk[0]*chunk[1]*chunk[2]).
  int64_t RecordValues() const { return chunk[0] * chunk[1] * chunk[2]; }
};

/// Turns a validated-so-far header with `(compression type) 1` into the dataset hzio presents
/// (called by IdxHeader::Validate before the box is checked against the bitmask): records how it
/// is stored in `pidx_chunking`, extends `(bits)`, adds the chunk's bits to `(bitsperblock)` and
/// drops the keys that described the chunking, so that the header's text form is the plain IDX
/// header of that dataset. Headers without `(compression type) 1` are left alone. Throws
/// kUnsupported / kInvalidArgument naming the key for chunkings hzio cannot place (a box not
/// starting at 0, more than 3 axes, patches not whole chunks, a vector field without
/// `(restructure box size)`, sub-byte dtypes, ARCO).
void ApplyPidxChunking(IdxHeader& header);

/// The header the stored block files obey: the chunk grid as box, the stored bitmask and
/// bitsperblock, and each field as one chunk record per sample (its dtype with RecordValues() x
/// components). `header` must be chunked (pidx_chunking set).
IdxHeader PidxStoredHeader(const IdxHeader& header);

/// The placement arithmetic of a chunked dataset: where each value of the presented dataset lies
/// in the stored chunk records. Pure; built once per dataset.
class PidxChunkMap {
 public:
  /// `header` must be chunked (pidx_chunking set).
  explicit PidxChunkMap(const IdxHeader& header);

  const Point& chunk() const { return chunk_; }
  /// The chunk holding sample coordinate `c` on axis d.
  int64_t ChunkIndex(int d, int64_t c) const { return c / chunk_[d]; }
  /// Index of a value inside its chunk's run of RecordValues() (x fastest), from the sample's
  /// offset in its chunk per axis.
  int64_t WithinIndex(int64_t wx, int64_t wy, int64_t wz) const { return wx + chunk_[0] * (wy + chunk_[1] * wz); }
  int64_t record_values() const { return record_values_; }

  /// Where the run of component `component` (of `components`) of chunk `c` (chunk coordinates,
  /// kPidxChunkAxes axes) is stored: the chunk whose record holds it and the run's first value
  /// in that record (in values of one component). `c` must lie in the chunk grid of the box.
  struct RunAt {
    Point record_chunk;
    int64_t value_offset = 0;
  };
  RunAt Locate(const Point& c, int component, int components) const;

  /// HZ address of a chunk's record in the stored hierarchy.
  uint64_t StoredHz(const Point& record_chunk) const;

 private:
  Point chunk_, patch_, extent_;  // kPidxChunkAxes axes; extent_ = the box (1 beyond its dims)
  int dims_ = 0;
  int64_t record_values_ = 0;
  Bitmask stored_;
};

}  // namespace hzio
