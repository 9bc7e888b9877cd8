/// Reply building blocks of the mod_visus protocol (idx-format.md §7): the array body with its
/// `visus-*` headers (§7.6.1), composite replies of several parts (§7.5), error replies with
/// `visus-errormsg` (§7.8) and the headers every mod_visus reply carries (§7.1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "http/message.h"
#include "hzio/codec/codec.h"
#include "hzio/format/dtype.h"
#include "hzio/util/box.h"

namespace hzio::server {

/// Whether `compression` names a codec the server can encode on the wire ("", raw, bin, zip*, lz4*,
/// png*, jpg*; png and jpg only for uint8 samples of 2-D grids, as OpenVisus).
bool WireCodecSupported(const std::string& compression);

/// A 200 reply whose body is `size` bytes of samples encoded with `compression` (sent back
/// verbatim in `visus-compression`). A plain `zip` is encoded at `plain_zip_level` (any zlib
/// stream decodes the same, §5); `zip-Z_BEST_...` options win. Throws hzio::Error(kUnsupported)
/// for codecs it cannot encode.
Reply ArrayBodyReply(const std::string& compression, const DType& dtype, const Point& nsamples, bool hz_layout,
                     const uint8_t* data, size_t size, int plain_zip_level = 6);

/// The headers of ArrayBodyReply without a body (a streamed array reply).
Reply ArrayHeaders(const std::string& compression, const DType& dtype, const Point& nsamples, bool hz_layout);

/// The codec spec of a wire `compression` name (plain `zip` at `plain_zip_level`).
CodecSpec WireSpec(const std::string& compression, int plain_zip_level);

/// "x y z" text of grid counts (x first), as `visus-nsamples` carries them.
std::string NsamplesText(const Point& counts);

/// An error reply: `status`, header `visus-errormsg: <message> __FILE__(<file>) __LINE__(<line>)`.
Reply VisusError(int status, const std::string& message, const char* file, int line);
#define HZIO_VISUS_ERROR(status, message) ::hzio::server::VisusError((status), (message), __FILE__, __LINE__)

/// Several replies as one composite reply (§7.5): parts in order, `-i` suffixed headers,
/// `status-i`, `body-size-i`, `response-compose-num`; always 200 at the top level.
Reply ComposeReplies(const std::vector<Reply>& parts);

/// Adds the headers every mod_visus reply carries: `git_revision`, `version` and
/// `Access-Control-Expose-Headers` listing the `visus*` headers (§7.1).
void AddVisusCommonHeaders(Reply& reply);

}  // namespace hzio::server
