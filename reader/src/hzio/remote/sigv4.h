/// AWS Signature Version 4 (the request signing S3 and S3-compatible stores check), as pure
/// functions of a request's parts: the canonical request, the string to sign, the signing key and
/// the Authorization header, and SignS3Request that adds every header an S3 request carries. The
/// caller builds the request path already URI-encoded (S3 encodes object keys once, keeping '/'),
/// so the canonical URI is the path as sent. Tested against AWS's published test vectors.
#pragma once

#include <ctime>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hzio::internal_remote {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

/// Who signs. An empty access key means anonymous: requests go unsigned (public buckets).
struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // temporary credentials (AWS_SESSION_TOKEN); sent as x-amz-security-token
  bool anonymous() const { return access_key_id.empty(); }
};

/// The parts of a request that SigV4 covers.
struct SigV4Request {
  std::string method;          // "GET", "PUT", ...
  std::string host;            // the Host header as sent: "bucket.s3.us-east-1.amazonaws.com", "127.0.0.1:9000"
  std::string canonical_uri;   // the path as sent, URI-encoded ("/bucket/run%207/visus.idx")
  HeaderList query;            // decoded query parameters (names and values)
  HeaderList headers;          // headers to sign besides host (any case; x-amz-date must be one)
  std::string payload_hash;    // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
};

/// The credential scope's parts.
struct SigV4Scope {
  std::string amz_date;  // "20150830T123600Z" (UTC)
  std::string region;    // "us-east-1"
  std::string service;   // "s3"
};

/// RFC 3986 percent-encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - _ . ~ (and '/' when
/// `keep_slash`) becomes %XX with upper-case hex.
std::string AwsUriEncode(std::string_view text, bool keep_slash);
/// "YYYYMMDDTHHMMSSZ" of a UTC time.
std::string AmzDate(std::time_t when);
/// Hex SHA-256 of a payload (x-amz-content-sha256).
std::string PayloadHash(std::string_view payload);

std::string CanonicalRequest(const SigV4Request& request);
/// "host;x-amz-date;..." — the lower-case names of every signed header, sorted.
std::string SignedHeaderNames(const SigV4Request& request);
std::string StringToSign(const std::string& canonical_request, const SigV4Scope& scope);
/// kSigning of the SigV4 key derivation (raw bytes) for the scope's date, region and service.
std::string SigningKey(std::string_view secret_access_key, const SigV4Scope& scope);
/// "AWS4-HMAC-SHA256 Credential=.../aws4_request, SignedHeaders=..., Signature=...".
std::string AuthorizationHeader(const SigV4Request& request, const AwsCredentials& credentials,
                                const SigV4Scope& scope);

/// The headers to add to an S3 request signed at `now`: x-amz-date, x-amz-content-sha256,
/// x-amz-security-token (with a session token) and Authorization. `request.headers` lists any
/// other headers the request sends that should be signed (e.g. Range); `request.payload_hash`
/// defaults to the hash of an empty body when empty. Anonymous credentials: no headers at all.
HeaderList SignS3Request(SigV4Request request, const AwsCredentials& credentials, const std::string& region,
                         std::time_t now);

}  // namespace hzio::internal_remote
