/// Client side of mod_visus replies (idx-format.md §7.5, §7.6.1): a composite reply split into its
/// parts (headers with the `-i` suffix removed, `status-i`, `body-size-i`), and an array part
/// decoded with its wire codec after checking dtype and sample count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/codec/codec.h"
#include "hzio/format/dtype.h"
#include "hzio/remote/http_client.h"
#include "hzio/util/box.h"
#include "hzio/util/error.h"

namespace hzio::internal_remote {

/// The error for a non-2xx reply to `url`, with the server's visus-errormsg (or the start of the
/// body): 400 kInvalidArgument, 404 kNotFound, 413 kTooLarge, 5xx kUnavailable, else kIo.
Error ReplyError(const std::string& url, const HttpResponse& reply);

/// The parts of a reply: the reply itself when it has no `response-compose-num`. A part whose
/// status is missing takes the top-level status; missing parts count as failed (status 0).
std::vector<HttpResponse> DecomposeReply(const HttpResponse& reply, size_t expected_parts);

/// Checks an array part's `visus-dtype` and `visus-nsamples` against what the request expects;
/// throws kCorrupt naming `what` otherwise.
void CheckArrayPart(const HttpResponse& part, const DType& dtype, const Point& nsamples, const std::string& what);

/// The codec of an array part's body (`visus-compression`, else its Content-Type).
Codec WireCodec(const HttpResponse& part);

/// Decodes an array body into `out` (exactly `out_size` bytes), after CheckArrayPart. `what`
/// names the request in errors.
void DecodeArrayPart(const HttpResponse& part, const DType& dtype, const Point& nsamples, uint8_t* out,
                     size_t out_size, const std::string& what);

}  // namespace hzio::internal_remote
