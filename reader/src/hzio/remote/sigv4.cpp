#include "hzio/remote/sigv4.h"

#include <algorithm>
#include <map>

#include "hzio/remote/crypto.h"
#include "hzio/util/error.h"
#include "hzio/util/percent_encoding.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

constexpr const char* kAlgorithm = "AWS4-HMAC-SHA256";

// Canonical header values: trimmed, runs of spaces folded to one (SigV4 "Trimall").
std::string TrimAll(std::string_view value) {
  std::string out;
  bool space = false;
  for (char c : Trim(value)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Lower-case name -> values in request order (repeated headers are joined with ',').
std::map<std::string, std::string> CanonicalHeaderMap(const SigV4Request& r) {
  std::map<std::string, std::string> headers;
  headers["host"] = TrimAll(r.host);
  for (const auto& [name, value] : r.headers) {
    const std::string key = ToLower(Trim(name));
    auto [it, fresh] = headers.emplace(key, TrimAll(value));
    if (!fresh && key != "host") it->second += "," + TrimAll(value);
  }
  return headers;
}

}  // namespace

std::string AwsUriEncode(std::string_view text, bool keep_slash) {
  return PercentEncode(text, keep_slash ? "-_.~/" : "-_.~");
}

std::string AmzDate(std::time_t when) {
  std::tm utc{};
  gmtime_r(&when, &utc);
  char text[32];
  const size_t n = std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  Check(n == 16, ErrorCode::kInternal, "cannot format the request time");
  return std::string(text, n);
}

std::string PayloadHash(std::string_view payload) { return HexLower(Sha256(payload)); }

std::string CanonicalRequest(const SigV4Request& r) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : r.query) query.emplace_back(AwsUriEncode(name, false), AwsUriEncode(value, false));
  std::sort(query.begin(), query.end());
  std::string query_text;
  for (const auto& [name, value] : query) query_text += (query_text.empty() ? "" : "&") + name + "=" + value;
  std::string header_text;
  for (const auto& [name, value] : CanonicalHeaderMap(r)) header_text += name + ":" + value + "\n";
  return r.method + "\n" + (r.canonical_uri.empty() ? "/" : r.canonical_uri) + "\n" + query_text + "\n" + header_text +
         "\n" + SignedHeaderNames(r) + "\n" + r.payload_hash;
}

std::string SignedHeaderNames(const SigV4Request& r) {
  std::string names;
  for (const auto& [name, value] : CanonicalHeaderMap(r)) names += (names.empty() ? "" : ";") + name;
  return names;
}

std::string StringToSign(const std::string& canonical_request, const SigV4Scope& scope) {
  Check(scope.amz_date.size() == 16, ErrorCode::kInvalidArgument,
        "SigV4: the request time '" + scope.amz_date + "' is not YYYYMMDDTHHMMSSZ");
  return std::string(kAlgorithm) + "\n" + scope.amz_date + "\n" + scope.amz_date.substr(0, 8) + "/" + scope.region +
         "/" + scope.service + "/aws4_request\n" + HexLower(Sha256(canonical_request));
}

std::string SigningKey(std::string_view secret_access_key, const SigV4Scope& scope) {
  const std::string date = HmacSha256("AWS4" + std::string(secret_access_key), scope.amz_date.substr(0, 8));
  const std::string region = HmacSha256(date, scope.region);
  const std::string service = HmacSha256(region, scope.service);
  return HmacSha256(service, "aws4_request");
}

std::string AuthorizationHeader(const SigV4Request& request, const AwsCredentials& credentials,
                                const SigV4Scope& scope) {
  const std::string to_sign = StringToSign(CanonicalRequest(request), scope);
  const std::string signature = HexLower(HmacSha256(SigningKey(credentials.secret_access_key, scope), to_sign));
  return std::string(kAlgorithm) + " Credential=" + credentials.access_key_id + "/" + scope.amz_date.substr(0, 8) +
         "/" + scope.region + "/" + scope.service + "/aws4_request, SignedHeaders=" + SignedHeaderNames(request) +
         ", Signature=" + signature;
}

HeaderList SignS3Request(SigV4Request request, const AwsCredentials& credentials, const std::string& region,
                         std::time_t now) {
  if (credentials.anonymous()) return {};
  if (request.payload_hash.empty()) request.payload_hash = PayloadHash("");
  const SigV4Scope scope{AmzDate(now), region.empty() ? "us-east-1" : region, "s3"};
  HeaderList added = {{"x-amz-date", scope.amz_date}, {"x-amz-content-sha256", request.payload_hash}};
  if (!credentials.session_token.empty()) added.emplace_back("x-amz-security-token", credentials.session_token);
  for (const auto& h : added) request.headers.push_back(h);
  added.emplace_back("Authorization", AuthorizationHeader(request, credentials, scope));
  return added;
}

}  // namespace hzio::internal_remote
