// OpenVisus's header validation and defaulting (idx-format.md §1.7, §2.2–2.4).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "hzio/format/idx_header.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {
// (arco) beyond this is refused: OpenVisus reads the value into a 32-bit integer.
constexpr int64_t kMaxArcoBytes = (int64_t{1} << 31) - 1;
}  // namespace

std::string GuessFilenameTemplate(const std::string& idx_stem, int maxh, int bits_per_block) {
  std::string t = "./" + (idx_stem.empty() ? std::string("visus_data") : idx_stem);
  int nbits = maxh - bits_per_block;
  while (nbits > 16) {
    t += "/%02x";
    nbits -= 8;
  }
  return t + "/%04x.bin";
}

const std::string* IdxHeader::Metadata(const std::string& key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

int IdxHeader::FieldIndex(const std::string& name) const {
  std::string names;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == name) return static_cast<int>(i);
    names += (i ? ", " : "") + fields[i].name;
  }
  throw Error(ErrorCode::kNotFound, "unknown field '" + name + "' (fields: " + names + ")");
}

std::vector<double> IdxHeader::PhysicBoxOrLogic() const {
  if (!physic_box.empty()) return physic_box;
  std::vector<double> v;
  const size_t k = static_cast<size_t>(dims()) + 1;
  for (int d = 0; d < dims(); ++d) {
    double lo = static_cast<double>(box.p1[d]), hi = static_cast<double>(box.p2[d]);
    if (logic_to_physic.size() == k * k) {  // scale+translate part of the matrix
      const double s = logic_to_physic[static_cast<size_t>(d) * k + static_cast<size_t>(d)];
      const double t = logic_to_physic[static_cast<size_t>(d) * k + k - 1];
      lo = lo * s + t;
      hi = hi * s + t;
      if (lo > hi) std::swap(lo, hi);
    }
    v.push_back(lo);
    v.push_back(hi);
  }
  return v;
}

void IdxHeader::Validate(const std::string& idx_stem) {
  if (version == 0) {
    version = 6;
    version_text.clear();
  }
  CheckPidxLayout(*this);  // first: a chunked PIDX header's bitmask describes chunks, not samples
  ApplyPidxChunking(*this);
  Check(version >= 1 && version <= 6, ErrorCode::kInvalidArgument,
        "(version) " + std::to_string(version) + " is not 1..6");
  Check(box.dims() >= 1 && !box.Empty(), ErrorCode::kInvalidArgument,
        "(box) " + (box.dims() ? box.ToInclusiveString() : std::string("<none>")) + " is empty");
  if (bitmask.text().empty()) bitmask = Bitmask::Guess(box.p2);
  Check(box.dims() == bitmask.dims(), ErrorCode::kInvalidArgument,
        "(box) has " + std::to_string(box.dims()) + " axes but (bits) " + bitmask.text() + " has " +
            std::to_string(bitmask.dims()));
  for (int d = 0; d < dims(); ++d) {
    Check(box.p1[d] >= 0 && box.p2[d] <= bitmask.pow2()[d], ErrorCode::kInvalidArgument,
          "(box) " + box.ToInclusiveString() + " does not fit the bitmask " + bitmask.text() +
              " (padded extent " + bitmask.pow2().ToString() + ")");
  }
  if (!physic_box.empty()) {
    Check(physic_box.size() == 2 * static_cast<size_t>(dims()), ErrorCode::kInvalidArgument,
          "(physic_box) needs " + std::to_string(2 * dims()) + " numbers, has " +
              std::to_string(physic_box.size()));
    for (double v : physic_box)
      Check(std::isfinite(v), ErrorCode::kInvalidArgument, "(physic_box) has a non-finite value");
  }
  if (!logic_to_physic.empty()) {
    const size_t k = static_cast<size_t>(std::lround(std::sqrt(static_cast<double>(logic_to_physic.size()))));
    Check(k * k == logic_to_physic.size() && k >= 2, ErrorCode::kInvalidArgument,
          "(logic_to_physic) must be a square matrix");
    const size_t want = static_cast<size_t>(dims()) + 1;
    if (k != want) {  // §1.2: keep the upper-left block, the translation, the last row, the corner
      std::vector<double> m(want * want, 0.0);
      const size_t n = std::min(k, want) - 1;
      for (size_t r = 0; r < want; ++r) m[r * want + r] = 1.0;
      for (size_t r = 0; r < n; ++r) {
        for (size_t c = 0; c < n; ++c) m[r * want + c] = logic_to_physic[r * k + c];
        m[r * want + want - 1] = logic_to_physic[r * k + k - 1];
        m[(want - 1) * want + r] = logic_to_physic[(k - 1) * k + r];
      }
      m[want * want - 1] = logic_to_physic[k * k - 1];
      logic_to_physic = std::move(m);
    }
  }
  Check(!fields.empty(), ErrorCode::kInvalidArgument, "no fields");
  for (Field& f : fields) {
    Check(!f.name.empty(), ErrorCode::kInvalidArgument, "a field has no name");
    // (fields) is split on '+' outside brackets and options are found by substring (§1.3): a
    // name or option value holding brackets, '+' or spaces would not read back as written.
    auto writable = [&](const std::string& value, const char* what, bool allow_spaces) {
      for (char c : value) {
        const bool bad = std::string("()[]{}+").find(c) != std::string::npos ||
                         (!allow_spaces && std::isspace(static_cast<unsigned char>(c))) ||
                         static_cast<unsigned char>(c) < 0x20;
        Check(!bad, ErrorCode::kInvalidArgument,
              "field '" + f.name + "': " + what + " '" + value + "' has a character the header cannot hold");
      }
    };
    writable(f.name, "name", false);
    writable(f.compression, "compression", false);
    writable(f.filter, "filter", false);
    if (version < 6) f.hz_layout = true;
  }
  Check(bits_per_block >= 0, ErrorCode::kInvalidArgument,
        "(bitsperblock) " + std::to_string(bits_per_block) + " is negative");
  if (bits_per_block == 0) bits_per_block = std::min(maxh(), 16);
  if (bits_per_block > maxh()) bits_per_block = maxh();
  // ARCO fixes bitsperblock and blocksperfile before anything derives from them.
  Check(arco >= 0, ErrorCode::kInvalidArgument, "(arco) " + std::to_string(arco) + " is negative");
  if (arco > 0) {  // §1.7 step 9, with bounds OpenVisus does not check (it divides and takes log2)
    int64_t max_field_bytes = 1;  // OpenVisus's getMaxFieldSize
    for (const Field& f : fields) max_field_bytes = std::max(max_field_bytes, f.dtype.BytesFor(1));
    Check(arco <= kMaxArcoBytes, ErrorCode::kInvalidArgument,
          "(arco) " + std::to_string(arco) + " is absurd: a block file of more than 2 GiB (OpenVisus reads (arco) "
          "into a 32-bit integer; ARCO blocks are normally 1mb)");
    Check(arco >= 2 * max_field_bytes, ErrorCode::kInvalidArgument,
          "(arco) " + std::to_string(arco) + " is absurd: a block must hold at least two samples of " +
              std::to_string(max_field_bytes) + " bytes (ARCO blocks are normally 1mb)");
    int b = 0;  // floor(log2(arco / max_field_bytes)), never past maxh (OpenVisus's min)
    while (b < maxh() && (int64_t{1} << (b + 1)) <= arco / max_field_bytes) ++b;
    blocks_per_file = 1;
    bits_per_block = b;  // >= 1 but for a one-sample box (maxh 0)
    arco = (int64_t{1} << bits_per_block) * max_field_bytes;
  }
  const int64_t totblocks = int64_t{1} << (maxh() - bits_per_block);
  Check(blocks_per_file >= -1, ErrorCode::kInvalidArgument,
        "(blocksperfile) " + std::to_string(blocks_per_file) + " is invalid");
  if (blocks_per_file == -1) {
    blocks_per_file = totblocks;
  } else if (blocks_per_file == 0) {
    if (!filename_template.empty() && filename_template.find('%') == std::string::npos) {
      blocks_per_file = totblocks;
    } else {  // §2.3: 128 MiB of uncompressed blocks per file
      int64_t block_bytes = 0;
      for (const Field& f : fields) block_bytes += f.dtype.BytesFor(int64_t{1} << bits_per_block);
      blocks_per_file = std::clamp<int64_t>(134217728 / std::max<int64_t>(1, block_bytes), 1, totblocks);
    }
  }
  // The binary header is 40 bytes per field and block slot: refuse sizes no real writer makes.
  Check(blocks_per_file * static_cast<int64_t>(fields.size()) <= (int64_t{1} << 26),
        ErrorCode::kTooLarge,
        "(blocksperfile) " + std::to_string(blocks_per_file) + " x " + std::to_string(fields.size()) +
            " fields gives a block table over 2.5 GiB");
  Check(interleave >= 0, ErrorCode::kInvalidArgument, "(interleave block) is negative");
  if (filename_template.empty())
    filename_template = GuessFilenameTemplate(idx_stem, maxh(), bits_per_block);
}

}  // namespace hzio
