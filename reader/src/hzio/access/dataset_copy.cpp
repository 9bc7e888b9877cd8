#include "hzio/access/dataset_copy.h"

#include <algorithm>

#include "hzio/access/dataset_paths.h"
#include "hzio/format/hzio_keys.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {

// The pieces the copy reads: the padded domain split by the bitmask's first k bits (§2: bit i
// halves the axis it names), k the fewest that make every piece at most `max_samples`, in hz
// order, clipped to the box. A destination block whose region lies within one piece completes
// with that piece; only blocks of the k coarsest levels above a block's own wait for several.
std::vector<Box> HzPieces(const IdxHeader& h, int64_t max_samples) {
  int k = 0;
  for (int64_t samples = h.bitmask.PaddedBox().Size().Product(); k < h.maxh() && samples > max_samples; samples /= 2)
    ++k;
  std::vector<Box> out;
  for (uint64_t i = 0; i < (uint64_t{1} << k); ++i) {
    Box b = h.bitmask.PaddedBox();
    for (int j = 0; j < k; ++j) {
      const int axis = h.bitmask.axis(1 + j);
      const int64_t mid = (b.p1[axis] + b.p2[axis]) / 2;
      if ((i >> (k - 1 - j)) & 1) b.p1[axis] = mid;
      else b.p2[axis] = mid;
    }
    b = b.Intersect(h.box);
    if (!b.Empty()) out.push_back(b);
  }
  return out;
}

}  // namespace

IdxHeader CopyHeader(const IdxHeader& source, const std::string& destination, const CopyOptions& options) {
  IdxHeader h = source;
  SetMetadataValue(h, kWrittenKey, std::nullopt);  // every copied part is written
  SetMetadataValue(h, kGenerationKey, std::nullopt);
  if (!options.fields.empty()) {
    std::vector<Field> picked;
    for (const std::string& name : options.fields) {
      auto it = std::find_if(source.fields.begin(), source.fields.end(), [&](const Field& f) { return f.name == name; });
      Check(it != source.fields.end(), ErrorCode::kNotFound, "the source has no field '" + name + "'");
      picked.push_back(*it);
    }
    h.fields = std::move(picked);
  }
  for (Field& f : h.fields) {
    if (options.compression) f.compression = *options.compression;
    if (options.hz_layout) f.hz_layout = *options.hz_layout;
  }
  if (options.times) {
    const auto [first, last] = *options.times;
    for (int64_t t : {first, last})
      Check(source.time.Contains(t), ErrorCode::kNotFound, "the source does not declare timestep " + std::to_string(t));
    h.time = TimeSpec::Range(first, last, source.time.tmpl.empty() ? "time_%04d/" : source.time.tmpl);
    h.has_time = true;
  }
  // Block geometry: what the options say; a classic source's own when they say nothing; the
  // defaults (OpenVisus's guesses) from an ARCO source, whose one-block files are ARCO's.
  const bool keep = source.arco == 0;
  h.arco = options.arco;
  h.bits_per_block = options.bits_per_block != 0 ? options.bits_per_block : keep ? source.bits_per_block : 0;
  h.blocks_per_file = options.blocks_per_file ? *options.blocks_per_file : keep ? source.blocks_per_file : 0;
  h.filename_template.clear();  // guessed for the destination's name (§2.4)
  h.Validate(IdxStemOf(destination));
  return h;
}

int64_t CopyDataset(Dataset& source, const std::string& destination, const CopyOptions& options) {
  DatasetWriter writer(destination, CopyHeader(source.header(), destination, options), options.writer);
  return CopyDatasetInto(source, writer, options);
}

int64_t CopyDatasetInto(Dataset& source, DatasetWriter& writer, const CopyOptions& options) {
  const IdxHeader& h = writer.header();
  const std::vector<int64_t> times = h.time.List();
  const Point size = h.box.Size();
  int64_t total = 0;
  for (const Field& f : h.fields) total += f.dtype.BytesFor(size.Product()) * static_cast<int64_t>(times.size());
  int64_t done = 0;
  for (size_t fi = 0; fi < h.fields.size(); ++fi) {
    const Field& field = h.fields[fi];
    const int64_t sample_bytes = std::max<int64_t>(1, field.dtype.BytesFor(1));
    const std::vector<Box> pieces = HzPieces(h, std::max<int64_t>(1, options.slab_bytes / sample_bytes));
    for (int64_t t : times) {
      for (const Box& piece : pieces) {
        BoxQuery q;
        q.box = piece;
        q.field = field.name;
        q.time = t;
        const BoxResult r = source.Read(q);  // full resolution: exactly the piece's samples
        writer.Write(static_cast<int>(fi), t, piece, r.data.data());
        done += r.data.ByteSize();
        if (options.progress) options.progress(done, total);
      }
    }
  }
  writer.Finish();
  return done;
}

}  // namespace hzio
