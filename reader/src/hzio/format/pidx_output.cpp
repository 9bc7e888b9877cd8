#include "hzio/format/pidx_output.h"

#include <cstdint>

#include "hzio/util/error.h"

namespace hzio {

namespace {

// The component counts PIDX 0.9.3's dtype table (PIDX_data_types.c) lists per scalar type: 1-4
// for all, plus 7-component stencils and 9-component tensors for some.
bool PidxKnowsDType(const DType& t) {
  const int n = t.components();
  const bool byte_sized = t.bits() == 8 || t.bits() == 16 || t.bits() == 32 || t.bits() == 64;
  if (!byte_sized || (t.kind() == DType::Kind::kFloat && t.bits() < 32)) return false;
  if (n >= 1 && n <= 4) return true;
  if (t.kind() == DType::Kind::kFloat && (n == 7 || n == 9)) return true;
  return n == 9 && t.kind() == DType::Kind::kSigned && t.bits() >= 32;
}

void Require(bool ok, const std::string& what) {
  Check(ok, ErrorCode::kUnsupported, "not readable by PIDX 0.9.3: " + what);
}

}  // namespace

std::string PidxFilenameTemplate(const std::string& idx_stem, int maxh, int bits_per_block) {
  std::string t = "./" + idx_stem;
  int nbits = maxh - bits_per_block;  // PIDX counts the 'V' of (bits) into maxh and subtracts 1
  if (nbits <= 0) return t + "/%01x.bin";
  nbits = (nbits + 3) / 4 * 4;
  if (nbits <= 8) return t + "/%02x.bin";
  if (nbits <= 12) return t + "/%03x.bin";
  while (nbits > 16) {
    t += "/%02x";
    nbits -= 8;
  }
  return t + "/%04x.bin";
}

void MakePidxReadable(IdxHeader& h, const std::string& idx_stem) {
  Require(h.version == 6, "(version) " + std::to_string(h.version) + " (PIDX reads version 6)");
  Require(h.dims() == 3, std::to_string(h.dims()) + "-D box (PIDX reads 3-D datasets)");
  Require(h.box.p1 == Point(3), "(box) " + h.box.ToInclusiveString() + " does not start at the origin");
  Require(h.blocks_per_file > 0, "(blocksperfile) " + std::to_string(h.blocks_per_file) +
                                     " (PIDX names files by a positive number of blocks per file)");
  Require(h.interleave == 0, "(interleave block) " + std::to_string(h.interleave));
  Require(h.arco == 0, "an ARCO dataset");
  Require(!h.pidx_chunking, "a chunked dataset");
  int64_t slot_bytes = 0;
  for (Field& f : h.fields) {
    Require(f.compression.empty(), "field '" + f.name + "' is compressed (" + f.compression + "); PIDX reads raw blocks");
    Require(f.hz_layout, "field '" + f.name + "' is row-major; PIDX reads hz-ordered blocks");
    Require(PidxKnowsDType(f.dtype), "field '" + f.name + "' has dtype " + f.dtype.ToString() +
                                         " (PIDX knows 1-4 components of 8-64 bit integers and 32/64 bit floats)");
    f.counted_dtype = true;
    slot_bytes += f.dtype.BytesFor(int64_t{1} << h.bits_per_block);
  }
  // §4.5: 10 words of file header, 10 per table entry; PIDX reads offsets from word 2 only.
  const int64_t table = 40 + 40 * h.blocks_per_file * static_cast<int64_t>(h.fields.size());
  const int64_t file_bytes = table + slot_bytes * h.blocks_per_file;
  Require(file_bytes <= int64_t{UINT32_MAX}, "block files of " + std::to_string(file_bytes) +
                                                 " bytes (PIDX reads 32-bit offsets; use fewer blocks per file)");
  if (!h.time.tmpl.empty()) {
    const std::string& t = h.time.tmpl;
    Require(!h.time.any && h.time.ranges.size() == 1 && h.time.ranges[0].step == 1,
            "(time) " + h.time.ToHeaderValue() + " (PIDX reads one contiguous range of timesteps)");
    // PIDX puts the formatted template between the data directory and the file name.
    Require(t.back() == '/' && t.find('/') == t.size() - 1,
            "time template '" + t + "' (PIDX needs one directory level, such as time_%04d/)");
  }
  h.filename_template = PidxFilenameTemplate(idx_stem, h.maxh(), h.bits_per_block);
}

}  // namespace hzio
