/// Transport-neutral HTTP request and reply used by every handler, so handlers are pure functions
/// that unit tests call without sockets; the Beast session converts at the edges.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hzio::server {

/// Who sent a request, as the router established it (auth/authenticator.h).
struct Caller {
  std::string user;              // "" = anonymous
  bool bad_credentials = false;  // an Authorization header was sent and did not verify
  bool authenticated() const { return !user.empty(); }
};

struct Request {
  std::string method = "GET";
  std::string target;  // path plus "?query", as sent
  std::vector<std::pair<std::string, std::string>> headers;
  std::string remote_address;  // the peer (or, behind a trusted proxy, its X-Forwarded-For)
  Caller caller;               // filled in by the router before any handler runs
  bool secure = false;         // arrived over TLS (or, behind a trusted proxy, X-Forwarded-Proto https)

  /// First header named `name` (case-insensitive), or "" when absent.
  std::string Header(std::string_view name) const;
};

/// A body produced piece by piece on the worker pool while the transport sends the pieces before
/// it (large replies are never materialised whole, handlers/body_stream.h).
class BodyStream {
 public:
  virtual ~BodyStream() = default;
  /// The body's total size, or -1 when unknown until the end (sent chunked).
  virtual int64_t Size() const = 0;
  /// An upper bound of the next piece's size (what the reply budget reserves for it).
  virtual int64_t NextPieceBound() const = 0;
  /// Replaces `piece` with the next bytes; returns false (and leaves `piece` empty) at the end.
  /// Throws hzio::Error when the data cannot be produced (the transport then aborts the reply).
  virtual bool Next(std::string& piece) = 0;
};

struct Reply {
  int status = 200;
  std::string reason;  // "" = the standard text for the status
  std::vector<std::pair<std::string, std::string>> headers;  // names kept verbatim (idx-format.md §7.1)
  std::string body;
  std::shared_ptr<BodyStream> stream;  // when set, the body comes from it (body stays empty)
  std::string route;                   // low-cardinality name for metrics and logs ("mod_visus:boxquery")
  std::string user;                    // who it was for ("" = anonymous), for the access log

  void Set(std::string name, std::string value);
  /// Value of header `name` (exact spelling), or "" when absent.
  std::string Get(std::string_view name) const;
  bool Has(std::string_view name) const;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace hzio::server
