#include "hz_floor.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "hzio/hz/box_encoder.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/util/stream_copy.h"

namespace hzio_bench {

namespace {

std::string FloorFile(const std::string& dir, int rank) { return dir + "/hzfloor_" + std::to_string(rank) + ".bin"; }

hzio::BoxEncoder EncoderFor(const S3dCase& c) {
  const hzio::IdxHeader h = hzio::mpi::MakeHeader(c.domain.p2, c.fields, 1, 0, 0, "raw", "visus.idx", 1);
  const hzio::Point size = c.mine.Size();
  for (int d = 0; d < size.dims; ++d)
    if ((size[d] & (size[d] - 1)) != 0 || c.mine.p1[d] % size[d] != 0)
      throw std::runtime_error("hz floor: the box " + c.mine.ToRangesString() + " is not an aligned power-of-two cell");
  return hzio::BoxEncoder(h.bitmask, size);
}

}  // namespace

// Encodes `data` (row-major over the case's box) into `out`: each hz run at its place (places_;
// the encoder hands out pieces of runs in any order).
void HzFloor::EncodeInto(const hzio::BoxEncoder& encoder, const uint8_t* data, int64_t sb, uint8_t* out) const {
  encoder.Encode(case_.mine, data, sb, case_.domain, [&](uint64_t hz, int64_t count) {
    const auto at = std::upper_bound(places_.begin(), places_.end(), hz,
                                     [](uint64_t h, const RunPlace& p) { return h < p.hz; }) - 1;
    const int64_t offset = static_cast<int64_t>(hz - at->hz);
    return hzio::RunSpan{out + (at->first + offset) * sb, std::min(count, at->count - offset)};
  });
}

HzFloor::HzFloor(const S3dCase& c) : case_(c) {
  const hzio::BoxEncoder encoder = EncoderFor(c);
  std::vector<uint32_t> index(static_cast<size_t>(c.mine.Size().Product()));
  if (index.size() > (uint64_t{1} << 32)) throw std::runtime_error("hz floor: a box of more than 2^32 samples");
  std::iota(index.begin(), index.end(), uint32_t{0});
  const auto* const data = reinterpret_cast<const uint8_t*>(index.data());
  // The box's hz runs: the pieces the encoder hands out (every span skipped), merged within each
  // level (the runs of two levels may touch; a run of one level keeps its scatter's groups).
  std::vector<std::pair<uint64_t, int64_t>> pieces;
  encoder.Encode(c.mine, data, 4, c.domain, [&](uint64_t hz, int64_t count) {
    pieces.emplace_back(hz, count);
    return hzio::RunSpan{nullptr, count};
  });
  std::sort(pieces.begin(), pieces.end());
  int64_t at = 0;
  for (const auto& [hz, count] : pieces) {
    if (!places_.empty() && places_.back().hz + static_cast<uint64_t>(places_.back().count) == hz &&
        std::bit_width(places_.back().hz) == std::bit_width(hz))
      places_.back().count += count;
    else
      places_.push_back(RunPlace{hz, at, count});
    at += count;
  }
  if (at != c.mine.Size().Product()) throw std::runtime_error("hz floor: the encoder's runs do not cover the box");
  std::vector<uint32_t> order(index.size());  // order[k]: row-major index of the k-th encoded sample
  EncodeInto(encoder, data, 4, reinterpret_cast<uint8_t*>(order.data()));
  index = {};
  // Each run in pieces of a block's samples (hzio's blocks hold 2^16), one scatter per layout of a
  // piece for every field: its groups sized for the smallest samples (the larger ones, beyond
  // BlockScatter::kMaxGroupedSampleBytes, go sample by sample anyway).
  constexpr int64_t kPieceSamples = int64_t{1} << 16;
  int64_t sb = INT64_MAX;
  for (const auto& f : c.fields) sb = std::min(sb, f.dtype.SampleBytes());
  std::vector<uint32_t> last;  // the last scatter's offsets, relative to its lowest
  for (const RunPlace& p : places_)
    for (int64_t piece = p.first; piece < p.first + p.count; piece += kPieceSamples) {
      const auto begin = order.begin() + piece, end = begin + std::min(kPieceSamples, p.first + p.count - piece);
      const uint32_t base = *std::min_element(begin, end);
      std::vector<uint32_t> offsets(begin, end);
      for (uint32_t& o : offsets) o -= base;
      if (scatters_.empty() || offsets != last) {
        scatters_.emplace_back(offsets, sb);
        last = std::move(offsets);
      }
      runs_.push_back(Run{piece, base, scatters_.size() - 1});
    }
  for (const auto& d : c.data) encoded_.emplace_back(d.size(), uint8_t{0x5A});
}

void HzFloor::Write(const std::string& dir) {
  const hzio::BoxEncoder encoder = EncoderFor(case_);  // as a writer would build it per call
  for (size_t f = 0; f < case_.fields.size(); ++f)
    EncodeInto(encoder, case_.data[f].data(), case_.fields[f].dtype.SampleBytes(), encoded_[f].data());
  WriteOwnFile(FloorFile(dir, case_.rank), encoded_, case_.durable);
}

void HzFloor::Read(const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  ReadOwnFile(FloorFile(dir, case_.rank), encoded_);
  // The scatter of hzio's reader (hz/unit_scatter.h), piece by piece, with streaming stores where
  // the reader uses them, so the floor stays the least work of the same kind.
  int64_t result_bytes = 0;
  for (const auto& o : out) result_bytes += static_cast<int64_t>(o.size());
  const bool stream = result_bytes >= hzio::kStreamResultBytes;
  for (size_t f = 0; f < case_.fields.size(); ++f) {
    const int64_t sb = case_.fields[f].dtype.SampleBytes();
    for (const Run& run : runs_)
      scatters_[run.scatter].Apply(out[f].data() + run.base * sb, encoded_[f].data() + run.first * sb, sb, stream);
  }
  hzio::StreamFence();
}

}  // namespace hzio_bench
