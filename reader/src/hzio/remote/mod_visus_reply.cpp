#include "hzio/remote/mod_visus_reply.h"

#include "hzio/codec/codec.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

Error ReplyError(const std::string& url, const HttpResponse& res) {
  std::string why = res.Header("visus-errormsg");
  if (why.empty()) why = Trim(res.body.substr(0, 300));
  std::string message = url + ": HTTP " + std::to_string(res.status) + (why.empty() ? "" : ": " + why);
  switch (res.status) {
    case 400: return Error(ErrorCode::kInvalidArgument, message);
    case 404: return Error(ErrorCode::kNotFound, message);
    case 413: return Error(ErrorCode::kTooLarge, message);
    default: return Error(res.status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kIo, message);
  }
}

Codec WireCodec(const HttpResponse& res) {
  if (res.HasHeader("visus-compression")) return CodecSpec::Parse(ToLower(res.Header("visus-compression"))).codec;
  const std::string type = ToLower(res.Header("Content-Type"));
  if (type == "application/zip") return Codec::kZip;
  if (type == "application/x-lz4") return Codec::kLz4;
  if (type == "image/png") return Codec::kPng;
  if (type == "image/jpeg") return Codec::kJpg;
  return Codec::kRaw;
}

namespace {

bool SameCounts(const Point& got, const Point& want) {
  // A server may drop or add trailing unit axes (`32 32 1`, §7.6).
  for (int d = 0; d < std::max(got.dims, want.dims); ++d) {
    int64_t g = d < got.dims ? got[d] : 1, w = d < want.dims ? want[d] : 1;
    if (g != w) return false;
  }
  return true;
}

}  // namespace

std::vector<HttpResponse> DecomposeReply(const HttpResponse& reply, size_t expected_parts) {
  if (!reply.HasHeader("response-compose-num")) return {reply};
  const int64_t n = ParseInt64(reply.Header("response-compose-num"), "response-compose-num");
  std::vector<HttpResponse> parts(std::max<size_t>(expected_parts, static_cast<size_t>(std::max<int64_t>(n, 0))));
  size_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    HttpResponse& p = parts[static_cast<size_t>(i)];
    const std::string suffix = "-" + std::to_string(i);
    for (const auto& [name, value] : reply.headers)
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        p.headers[name.substr(0, name.size() - suffix.size())] = value;
    p.status = reply.status >= 200 && reply.status < 300 && p.HasHeader("status")
                   ? static_cast<long>(ParseInt64(p.Header("status"), "status-i"))
                   : reply.status;
    const int64_t size = p.HasHeader("body-size") ? ParseInt64(p.Header("body-size"), "body-size-i") : 0;
    Check(size >= 0 && offset + static_cast<size_t>(size) <= reply.body.size(), ErrorCode::kCorrupt,
          "composite reply part " + std::to_string(i) + " runs past the body");
    p.body = reply.body.substr(offset, static_cast<size_t>(size));
    offset += static_cast<size_t>(size);
  }
  return parts;
}

void CheckArrayPart(const HttpResponse& part, const DType& dtype, const Point& nsamples, const std::string& what) {
  if (part.HasHeader("visus-nsamples")) {
    std::vector<std::string> words = SplitWhitespace(part.Header("visus-nsamples"));
    Check(!words.empty() && words.size() <= static_cast<size_t>(kMaxDims), ErrorCode::kCorrupt,
          what + ": bad visus-nsamples '" + part.Header("visus-nsamples") + "'");
    Point got(static_cast<int>(words.size()));
    for (size_t i = 0; i < words.size(); ++i) got[static_cast<int>(i)] = ParseInt64(words[i], "visus-nsamples");
    Check(SameCounts(got, nsamples), ErrorCode::kCorrupt,
          what + ": the server returned " + got.ToString() + " samples, expected " + nsamples.ToString() +
              " (grids of idx-format.md §3.4 / §4.1)");
  }
  if (part.HasHeader("visus-dtype"))
    Check(DType::Parse(part.Header("visus-dtype")) == dtype, ErrorCode::kCorrupt,
          what + ": the server returned dtype " + part.Header("visus-dtype") + ", expected " + dtype.ToString());
}

void DecodeArrayPart(const HttpResponse& part, const DType& dtype, const Point& nsamples, uint8_t* out,
                     size_t out_size, const std::string& what) {
  CheckArrayPart(part, dtype, nsamples, what);
  Decode(CodecSpec::ForBlock(WireCodec(part), ""), reinterpret_cast<const uint8_t*>(part.body.data()),
         part.body.size(), SampleShape{dtype, nsamples}, out, out_size, what);
}

}  // namespace hzio::internal_remote
