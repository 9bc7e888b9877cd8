// Codec specs as headers and the wire spell them (idx-format.md §5): name, then options after '-'.
#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>

#include "hzio/codec/codec.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

// '-' separates options, but also sits in a decimal exponent ("accuracy=1e-3"): a piece ending
// in an exponent mark glues back to the next one.
std::vector<std::string> SplitOptions(const std::string& spec) {
  std::vector<std::string> parts;
  for (const std::string& piece : Split(spec, '-')) {
    const bool exponent_open = !parts.empty() && parts.back().size() >= 2 &&
                               (parts.back().back() == 'e' || parts.back().back() == 'E') &&
                               std::isdigit(static_cast<unsigned char>(parts.back()[parts.back().size() - 2])) &&
                               !piece.empty() && std::isdigit(static_cast<unsigned char>(piece[0]));
    if (exponent_open) parts.back() += "-" + piece;
    else parts.push_back(piece);
  }
  return parts;
}

// One part of `zfp-<encode>-<decode>` (§5): reversible | precision=N | accuracy=X | N | X.
ZfpMode ParseZfpMode(const std::string& text, const std::string& spec) {
  const std::string t = ToLower(Trim(text));
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::kInvalidArgument, "compression '" + spec + "': zfp mode '" + text + "' " + why);
  };
  ZfpMode m;
  if (t.empty() || t == "reversible") return m;
  std::string value = t;
  enum { kEither, kPrecision, kAccuracy } wanted = kEither;
  if (StartsWith(t, "precision=")) value = t.substr(10), wanted = kPrecision;
  else if (StartsWith(t, "accuracy=")) value = t.substr(9), wanted = kAccuracy;
  const bool decimal = value.find_first_of(".eE") != std::string::npos;
  const char* const forms = "is not reversible, precision=N, accuracy=X, an integer or a decimal";
  if (wanted == kAccuracy || (wanted == kEither && decimal)) {
    m.kind = ZfpMode::Kind::kAccuracy;
    try {
      m.accuracy = ParseDouble(value, "accuracy");
    } catch (const Error&) {
      throw bad(forms);
    }
    if (!(m.accuracy > 0) || !std::isfinite(m.accuracy)) throw bad("needs an accuracy above 0");
  } else {
    m.kind = ZfpMode::Kind::kPrecision;
    int64_t p = 0;
    try {
      p = ParseInt64(value, "precision");
    } catch (const Error&) {
      throw bad(forms);
    }
    if (p < 1 || p > 64) throw bad("needs a precision of 1 to 64 bit planes");
    m.precision = static_cast<int>(p);
  }
  return m;
}

}  // namespace

std::string ZfpMode::ToString() const {
  switch (kind) {
    case Kind::kReversible: return "reversible";
    case Kind::kPrecision: return "precision=" + std::to_string(precision);
    case Kind::kAccuracy: {
      // Fixed notation: OpenVisus splits specs on '-', which an exponent ("1e-05") would cut.
      char text[400];
      const auto r = std::to_chars(text, text + sizeof text, accuracy, std::chars_format::fixed);
      return "accuracy=" + std::string(text, r.ptr);
    }
  }
  return "reversible";
}

CodecSpec CodecSpec::Parse(const std::string& spec) {
  CodecSpec s;
  auto starts = [&](const char* p) { return spec.rfind(p, 0) == 0; };
  const std::vector<std::string> options = SplitOptions(spec);
  auto has = [&](const char* option) { return std::find(options.begin(), options.end(), option) != options.end(); };
  if (starts("zip")) {
    s.codec = Codec::kZip;
    if (spec.find("Z_BEST_SPEED") != std::string::npos) s.zip_level = 1;
    else if (spec.find("Z_BEST_COMPRESSION") != std::string::npos) s.zip_level = 9;
    else if (spec.find("Z_NO_COMPRESSION") != std::string::npos) s.zip_level = 0;
    else if (spec.find("Z_DEFAULT_COMPRESSION") != std::string::npos) s.zip_level = 6;
  } else if (starts("lz4")) {
    s.codec = Codec::kLz4;
  } else if (starts("zfp")) {
    s.codec = Codec::kZfp;
    Check(options[0] == "zfp" && options.size() <= 3, ErrorCode::kInvalidArgument,
          "compression '" + spec + "' is not zfp, zfp-<encode> or zfp-<encode>-<decode>");
    if (options.size() >= 2) {  // "zfp-E" decodes with E too
      s.zfp_encode = ParseZfpMode(options[1], spec);
      s.zfp_decode = options.size() == 3 ? ParseZfpMode(options[2], spec) : s.zfp_encode;
    }
  } else if (starts("png")) {
    s.codec = Codec::kPng;
    if (has("PNG_Z_BEST_SPEED")) s.png_level = 1;
    else if (has("PNG_Z_BEST_COMPRESSION")) s.png_level = 9;
    else if (has("PNG_Z_NO_COMPRESSION")) s.png_level = 0;
  } else if (starts("jpg")) {
    s.codec = Codec::kJpg;
    // The lowest quality named wins, as FreeImage tests its flags from BAD up to SUPERB.
    const std::pair<const char*, int> qualities[] = {{"JPEG_QUALITYBAD", 10}, {"JPEG_QUALITYAVERAGE", 25},
                                                     {"JPEG_QUALITYNORMAL", 50}, {"JPEG_QUALITYGOOD", 75},
                                                     {"JPEG_QUALITYSUPERB", 100}};
    for (const auto& [name, q] : qualities)
      if (has(name)) {
        s.jpg_quality = q;
        break;
      }
    if (has("JPEG_SUBSAMPLING_411")) s.jpg_subsampling = JpgSubsampling::k411;
    else if (has("JPEG_SUBSAMPLING_420")) s.jpg_subsampling = JpgSubsampling::k420;
    else if (has("JPEG_SUBSAMPLING_422")) s.jpg_subsampling = JpgSubsampling::k422;
    else if (has("JPEG_SUBSAMPLING_444")) s.jpg_subsampling = JpgSubsampling::k444;
    s.jpg_progressive = has("JPEG_PROGRESSIVE");
    s.jpg_optimize = has("JPEG_OPTIMIZE");
  }
  return s;
}

CodecSpec CodecSpec::ForBlock(Codec stored, const std::string& field_compression) {
  if (stored == Codec::kZfp && StartsWith(field_compression, "zfp")) return Parse(field_compression);
  CodecSpec s;
  s.codec = stored;
  return s;
}

std::string CodecSpec::Name() const { return CodecName(codec); }

}  // namespace hzio
