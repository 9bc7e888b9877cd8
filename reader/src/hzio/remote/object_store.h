/// The objects of a web server or an S3-compatible bucket holding a dataset (object_url.h), named
/// by keys (paths from the server's root or the bucket's, without a leading '/'), fetched through the one transport (http_client.h): GETs
/// of whole objects or byte ranges (many in flight), HEAD and PUT. S3 requests are signed with
/// SigV4 (sigv4.h) before every attempt, with the credentials, region and endpoint of
/// aws_config.h; anonymous and plain-HTTP requests go unsigned. Errors name the object's URL
/// (never the credentials) and what the store said (S3's XML <Code> and <Message>).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "hzio/remote/aws_config.h"
#include "hzio/remote/http_client.h"
#include "hzio/remote/object_url.h"
#include "hzio/util/error.h"

namespace hzio::internal_remote {

class ObjectStore {
 public:
  /// Resolves S3 settings from the location's parameters and `env` (aws_config.h).
  ObjectStore(ObjectLocation location, const EnvLookup& env, std::shared_ptr<HttpClient> client);

  bool s3() const { return location_.s3; }
  const ObjectLocation& location() const { return location_; }
  const S3Settings& settings() const { return settings_; }
  HttpClient& client() const { return *client_; }

  /// The URL of `key`, as requested, without credentials.
  std::string Url(const std::string& key) const;
  /// The key of a path relative to the dataset's folder ("./visus/0000.bin" -> "run7/visus/0000.bin").
  std::string Key(const std::string& relative) const;
  /// The key of the `.idx` itself.
  std::string IdxKey() const { return location_.folder + location_.idx_name; }

  struct Get {
    std::string key;
    uint64_t offset = 0;
    uint64_t length = 0;        // bytes from offset; 0 = the whole object (no Range header)
    std::string if_match;       // an ETag: 412 when the object is no longer that version
    std::string if_none_match;  // an ETag: 304 when the object is still that version
    std::string if_modified_since;  // an HTTP date: 304 when the object is not newer
    size_t max_bytes = 0;       // a longer response is an error (0: the transport's limit)
  };
  /// Sends every GET (many in flight); `on_response(i, response)` runs on this thread as each one
  /// completes, with any status. Throws kUnavailable when a request got no answer.
  void GetMany(std::span<const Get> gets, const HttpClient::OnResponse& on_response) const;
  HttpResponse GetOne(const Get& get) const;
  HttpResponse Head(const std::string& key) const;
  /// PUTs `body` as `key` (Content-Length and a signed payload hash).
  HttpResponse Put(const std::string& key, std::shared_ptr<const std::string> body) const;
  struct PutObject {
    std::string key;
    std::shared_ptr<const std::string> body;
  };
  /// PUTs every object (many in flight, the transport's retries); `on_response(i, response)` runs
  /// on this thread as each one completes, with any status.
  void PutMany(std::span<const PutObject> puts, const HttpClient::OnResponse& on_response) const;
  /// DELETEs `key` (S3 answers 204 whether or not it existed).
  HttpResponse Delete(const std::string& key) const;

  /// The error for an unexpected `response` to a request for `key`: 400 kInvalidArgument, 401/403
  /// kIo ("access denied", naming where the credentials came from), 404 kNotFound, 416 kCorrupt,
  /// 5xx kUnavailable, others kIo; with the store's own error code and message.
  Error ResponseError(const std::string& key, const HttpResponse& response) const;

 private:
  HttpRequest Request(const std::string& method, const std::string& key) const;
  void Sign(HttpRequest& request) const;

  ObjectLocation location_;
  S3Settings settings_;
  std::string base_;  // URL of the server's root or the bucket's, ending in '/'
  std::shared_ptr<HttpClient> client_;
};

}  // namespace hzio::internal_remote
