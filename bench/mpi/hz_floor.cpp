#include "hz_floor.h"

#include <numeric>
#include <stdexcept>

#include "hzio/hz/box_encoder.h"
#include "hzio/mpi/parallel_writer.h"

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

// Encodes `data` (row-major over the case's box) into `out`, runs back to back; `runs` gets each
// run's first sample and length.
void EncodeInto(const hzio::BoxEncoder& encoder, const S3dCase& c, const uint8_t* data, int64_t sb, uint8_t* out,
                std::vector<std::pair<int64_t, int64_t>>* runs = nullptr) {
  int64_t at = 0;
  encoder.Encode(c.mine, data, sb, c.domain, [&](uint64_t, int64_t count) {
    const hzio::RunSpan d{out + at * sb, count};
    if (runs) runs->emplace_back(at, count);
    at += count;
    return d;
  });
}

}  // namespace

HzFloor::HzFloor(const S3dCase& c) : case_(c) {
  const hzio::BoxEncoder encoder = EncoderFor(c);
  std::vector<uint32_t> index(static_cast<size_t>(c.mine.Size().Product()));
  if (index.size() > (uint64_t{1} << 32)) throw std::runtime_error("hz floor: a box of more than 2^32 samples");
  std::iota(index.begin(), index.end(), uint32_t{0});
  std::vector<uint32_t> order(index.size());  // order[k]: row-major index of the k-th encoded sample
  std::vector<std::pair<int64_t, int64_t>> runs;
  EncodeInto(encoder, c, reinterpret_cast<const uint8_t*>(index.data()), 4, reinterpret_cast<uint8_t*>(order.data()),
             &runs);
  index = {};
  for (const auto& [first, count] : runs)
    runs_.push_back(Run{first, hzio::BlockScatter(std::vector<uint32_t>(order.begin() + first, order.begin() + first + count))});
  for (const auto& d : c.data) encoded_.emplace_back(d.size(), uint8_t{0x5A});
}

void HzFloor::Write(const std::string& dir) {
  const hzio::BoxEncoder encoder = EncoderFor(case_);  // as a writer would build it per call
  for (size_t f = 0; f < case_.fields.size(); ++f)
    EncodeInto(encoder, case_, case_.data[f].data(), case_.fields[f].dtype.SampleBytes(), encoded_[f].data());
  WriteOwnFile(FloorFile(dir, case_.rank), encoded_, case_.durable);
}

void HzFloor::Read(const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  ReadOwnFile(FloorFile(dir, case_.rank), encoded_);
  // The scatter of hzio's reader (hz/unit_scatter.h), run by run, so the floor stays the least work
  // of the same kind.
  for (size_t f = 0; f < case_.fields.size(); ++f) {
    const int64_t sb = case_.fields[f].dtype.SampleBytes();
    for (const Run& run : runs_) run.scatter.Apply(out[f].data(), encoded_[f].data() + run.first * sb, sb);
  }
}

}  // namespace hzio_bench
