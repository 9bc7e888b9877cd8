/// Byte ranges of objects fetched with `Range: bytes=A-B` (RFC 9110 §14): parsing Content-Range
/// and finding the asked-for bytes in a response, whether the server honoured the range (206) or
/// sent the whole object (200), and the validator (ETag, else Last-Modified) that identifies an
/// object's version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hzio/remote/http_client.h"

namespace hzio::internal_remote {

struct ContentRange {
  uint64_t first = 0, last = 0;  // inclusive
  std::optional<uint64_t> total;  // nullopt for "*"
};

/// Parses "bytes A-B/TOTAL" (or ".../*"); nullopt when absent or malformed.
std::optional<ContentRange> ParseContentRange(std::string_view value);

/// The total size of the object a 200 or 206 response comes from, when the response says it.
std::optional<uint64_t> ObjectSize(const HttpResponse& response);

/// The bytes [offset, offset + length) of the object in `response` (a 206 for that range, or a 200
/// with the whole object), or nullopt when the response does not hold them all (a short object).
std::optional<std::string_view> RangeBytes(const HttpResponse& response, uint64_t offset, uint64_t length);

/// "etag:<ETag>;modified:<Last-Modified>" (either part when only one is sent, "" for neither):
/// what identifies this version of the object a response comes from. Both, because S3's ETag is
/// a hash of the content: an object uploaded again with the same bytes keeps its ETag but not its
/// Last-Modified.
std::string ObjectValidator(const HttpResponse& response);
/// The "etag" or "modified" part of a validator ("" when absent).
std::string ValidatorPart(const std::string& validator, const std::string& kind);

}  // namespace hzio::internal_remote
