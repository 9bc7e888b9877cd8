#include "handlers/array_body.h"

#include <algorithm>

#include "hzio/codec/codec.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

const char* ContentTypeFor(Codec codec) {
  switch (codec) {
    case Codec::kZip: return "application/zip";
    case Codec::kLz4: return "application/x-lz4";
    case Codec::kPng: return "image/png";
    case Codec::kJpg: return "image/jpeg";
    default: return "application/octet-stream";
  }
}

// A repository-relative spelling of __FILE__ keeps build paths out of replies.
std::string ShortFile(const char* file) {
  std::string f = file;
  size_t at = f.rfind("/server/");
  return at == std::string::npos ? f : f.substr(at + 1);
}

// Codec names are matched in any case on the wire, their options (Z_BEST_SPEED,
// JPEG_QUALITYSUPERB) as spelled.
CodecSpec ParseWireCodec(const std::string& compression) {
  const size_t dash = compression.find('-');
  return CodecSpec::Parse(ToLower(compression.substr(0, dash)) +
                          (dash == std::string::npos ? "" : compression.substr(dash)));
}

}  // namespace

bool WireCodecSupported(const std::string& compression) {
  std::string c = ToLower(compression);
  if (c.empty() || c == "raw" || c == "bin") return true;
  // Codec lookup is by prefix (§5). png/jpg as OpenVisus's server sends them: uint8 samples of
  // 2-D grids only (ArrayBodyReply says which cannot be).
  for (const char* name : {"zip", "lz4", "png", "jpg"})
    if (StartsWith(c, name)) return true;
  return false;
}

std::string NsamplesText(const Point& counts) {
  std::string s;
  for (int d = 0; d < counts.dims; ++d) s += (d ? " " : "") + std::to_string(counts[d]);
  return s;
}

Reply ArrayBodyReply(const std::string& compression, const DType& dtype, const Point& nsamples, bool hz_layout,
                     const uint8_t* data, size_t size, int plain_zip_level) {
  Check(WireCodecSupported(compression), ErrorCode::kUnsupported,
        "compression(" + compression + ") cannot be encoded by this server (use raw, zip, lz4, png or jpg)");
  CodecSpec spec = WireSpec(compression, plain_zip_level);
  Reply r = ArrayHeaders(compression, dtype, nsamples, hz_layout);
  if (spec.codec == Codec::kRaw) {
    r.body.assign(reinterpret_cast<const char*>(data), size);
  } else {
    ByteBuffer enc;  // png/jpg need the grid: kUnsupported for other dtypes or 3-D grids (§5)
    EncodeInto(spec, data, size, SampleShape{dtype, nsamples}, enc);
    r.body.assign(reinterpret_cast<const char*>(enc.data()), enc.size());
  }
  return r;
}

CodecSpec WireSpec(const std::string& compression, int plain_zip_level) {
  CodecSpec spec = ParseWireCodec(compression);
  if (spec.codec == Codec::kZip && ToLower(compression) == "zip") spec.zip_level = plain_zip_level;
  return spec;
}

Reply ArrayHeaders(const std::string& compression, const DType& dtype, const Point& nsamples, bool hz_layout) {
  Reply r;
  r.status = 200;
  r.Set("visus-compression", compression);
  r.Set("visus-nsamples", NsamplesText(nsamples));
  r.Set("visus-dtype", dtype.ToString());
  r.Set("visus-layout", hz_layout ? "hzorder" : "");
  r.Set("Content-Type", ContentTypeFor(CodecSpec::Parse(ToLower(compression)).codec));
  r.Set("Content-Transfer-Encoding", "binary");
  return r;
}

Reply VisusError(int status, const std::string& message, const char* file, int line) {
  Reply r;
  r.status = status;
  r.Set("visus-errormsg", message + " __FILE__(" + ShortFile(file) + ") __LINE__(" + std::to_string(line) + ")");
  return r;
}

Reply ComposeReplies(const std::vector<Reply>& parts) {
  Reply r;
  r.status = 200;
  r.Set("response-compose-num", std::to_string(parts.size()));
  size_t total = 0;
  for (const Reply& p : parts) total += p.body.size();
  r.body.reserve(total);
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string suffix = "-" + std::to_string(i);
    const Reply& p = parts[i];
    r.Set("status" + suffix, std::to_string(p.status));
    r.Set("body-size" + suffix, std::to_string(p.body.size()));
    for (const auto& [k, v] : p.headers) r.Set(k + suffix, v);
    if (!p.body.empty()) r.Set("Content-Length" + suffix, std::to_string(p.body.size()));
    r.body += p.body;
  }
  return r;
}

void AddVisusCommonHeaders(Reply& reply) {
  std::vector<std::string> visus;
  for (const auto& [k, v] : reply.headers)
    if (StartsWith(k, "visus")) visus.push_back(k);
  std::sort(visus.begin(), visus.end());
  std::string expose;
  for (const std::string& k : visus) expose += (expose.empty() ? "" : ",") + k;
  reply.Set("git_revision", "");
  reply.Set("version", "");
  reply.Set("Access-Control-Expose-Headers", expose);
}

}  // namespace hzio::server
