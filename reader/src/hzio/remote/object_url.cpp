#include "hzio/remote/object_url.h"

#include <vector>

#include "hzio/util/error.h"
#include "hzio/util/percent_encoding.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

// Parameters that make an http(s) URL an S3 one (OpenVisus's AmazonCloudStorage reads them).
constexpr const char* kS3Params[] = {"endpoint_url", "access_key", "secret_key", "secret_access_key",
                                     "session_token", "region", "profile"};
constexpr const char* kSecretParams[] = {"access_key", "secret_key", "secret_access_key", "session_token"};

struct SplitUrl {
  std::string scheme, authority, path, query;
};

SplitUrl Split3(const std::string& url) {
  SplitUrl u;
  const size_t colon = url.find("://");
  u.scheme = ToLower(url.substr(0, colon));
  const size_t start = colon + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string::npos) end = url.size();
  u.authority = url.substr(start, end - start);
  size_t q = url.find('?', end);
  const size_t hash = url.find('#', end);
  const size_t path_end = std::min(q == std::string::npos ? url.size() : q, hash == std::string::npos ? url.size() : hash);
  u.path = url.substr(end, path_end - end);
  if (q != std::string::npos) u.query = url.substr(q + 1, (hash == std::string::npos || hash < q ? url.size() : hash) - q - 1);
  return u;
}

std::map<std::string, std::string> ParseQuery(const std::string& query) {
  std::map<std::string, std::string> params;
  for (const std::string& pair : Split(query, '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    params[PercentDecode(pair.substr(0, eq))] = eq == std::string::npos ? "" : PercentDecode(pair.substr(eq + 1));
  }
  return params;
}

// "host:80" for http and "host:443" for https name the default port: drop it, so the Host header
// curl sends and the one signed agree.
std::string NormalAuthority(const std::string& scheme, std::string authority) {
  authority = ToLower(authority);
  const std::string default_port = scheme == "https" ? ":443" : ":80";
  if (authority.size() > default_port.size() &&
      authority.compare(authority.size() - default_port.size(), default_port.size(), default_port) == 0)
    authority.resize(authority.size() - default_port.size());
  return authority;
}

// Amazon S3 host names: "BUCKET.s3.REGION.amazonaws.com", "BUCKET.s3.amazonaws.com",
// "s3.REGION.amazonaws.com", "s3.amazonaws.com" (and the older "s3-REGION" forms).
bool ParseAmazonHost(const std::string& host, std::string& bucket, std::string& region) {
  const std::string suffix = ".amazonaws.com";
  if (host.size() <= suffix.size() || host.compare(host.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string name = host.substr(0, host.size() - suffix.size());
  size_t at = name.rfind(".s3");
  size_t s3 = std::string::npos;
  if (StartsWith(name, "s3.") || StartsWith(name, "s3-") || name == "s3") s3 = 0;
  else if (at != std::string::npos) s3 = at + 1;
  else if ((at = name.rfind(".s3-")) != std::string::npos) s3 = at + 1;
  if (s3 == std::string::npos) return false;
  bucket = s3 == 0 ? "" : name.substr(0, s3 - 1);
  std::string rest = name.substr(s3 + 2);  // ".REGION", "-REGION" or ""
  if (!rest.empty()) rest = rest.substr(1);
  if (StartsWith(rest, "dualstack.")) rest = rest.substr(10);
  region = rest;
  return true;
}

}  // namespace

bool IsModVisusUrl(const std::string& url) {
  const SplitUrl u = Split3(url);
  if (u.path.find("mod_visus") != std::string::npos) return true;
  for (const std::string& pair : Split(u.query, '&'))
    if (StartsWith(pair, "dataset=")) return true;
  return false;
}

std::string RedactUrl(const std::string& url) {
  const size_t q = url.find('?');
  if (q == std::string::npos) return url;
  std::string kept;
  for (const std::string& pair : Split(url.substr(q + 1), '&')) {
    if (pair.empty()) continue;
    bool secret = false;
    for (const char* name : kSecretParams) secret = secret || PercentDecode(pair.substr(0, pair.find('='))) == name;
    if (!secret) kept += (kept.empty() ? "" : "&") + pair;
  }
  return url.substr(0, q) + (kept.empty() ? "" : "?" + kept);
}

std::string ResolveObjectKey(const std::string& folder, const std::string& relative, const std::string& what) {
  Check(!relative.empty() && relative[0] != '/', ErrorCode::kInvalidArgument,
        what + ": '" + relative + "' is an absolute path; a remote dataset can only name files beside its .idx");
  std::vector<std::string> parts;
  for (const std::string& p : Split(folder + relative, '/')) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      Check(!parts.empty(), ErrorCode::kInvalidArgument,
            what + ": '" + relative + "' climbs above the root of the store");
      parts.pop_back();
      continue;
    }
    parts.push_back(p);
  }
  std::string key;
  for (const std::string& p : parts) key += (key.empty() ? "" : "/") + p;
  return key;
}

ObjectLocation ParseObjectLocation(const std::string& url) {
  const size_t colon = url.find("://");
  Check(colon != std::string::npos, ErrorCode::kInvalidArgument, url + ": not a URL");
  const SplitUrl u = Split3(url);
  ObjectLocation loc;
  loc.params = ParseQuery(u.query);
  loc.display = RedactUrl(url);
  std::string path;  // decoded, without the leading '/'
  if (u.scheme == "s3") {
    loc.s3 = true;
    loc.bucket = u.authority;
    path = u.path.empty() ? "" : u.path.substr(1);  // aws-cli style: the key is literal
  } else {
    Check(u.scheme == "http" || u.scheme == "https", ErrorCode::kInvalidArgument,
          url + ": expected an s3://, http:// or https:// URL");
    Check(!u.authority.empty(), ErrorCode::kInvalidArgument, url + ": the URL has no host");
    const std::string authority = NormalAuthority(u.scheme, u.authority);
    path = PercentDecode(u.path.empty() ? "" : u.path.substr(1));
    std::string host = authority.substr(0, authority.find(':'));
    std::string amazon_bucket, amazon_region;
    const bool amazon = ParseAmazonHost(host, amazon_bucket, amazon_region);
    bool s3_params = false;
    for (const char* p : kS3Params) s3_params = s3_params || loc.params.count(p);
    loc.s3 = amazon || s3_params;
    loc.region_hint = amazon_region;
    if (amazon && !amazon_bucket.empty()) {
      loc.bucket = amazon_bucket;  // virtual-hosted: the whole path is the key
    } else if (loc.s3) {
      const size_t slash = path.find('/');
      loc.bucket = path.substr(0, slash);
      path = slash == std::string::npos ? "" : path.substr(slash + 1);
    }
    if (loc.s3 && !loc.params.count("endpoint_url")) {
      if (amazon && !amazon_bucket.empty()) loc.virtual_hosted = true;
      else loc.endpoint = u.scheme + "://" + authority;
    } else if (!loc.s3) {
      loc.endpoint = u.scheme + "://" + authority;
    }
  }
  if (loc.s3) Check(!loc.bucket.empty(), ErrorCode::kInvalidArgument, url + ": the URL names no bucket");
  Check(!path.empty() && path.back() != '/', ErrorCode::kInvalidArgument,
        url + ": the URL names a folder, not a dataset file (expected .../visus.idx)");
  const size_t slash = path.rfind('/');
  loc.folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  loc.idx_name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  if (!loc.folder.empty()) {
    loc.folder = ResolveObjectKey("", loc.folder, url);
    if (!loc.folder.empty()) loc.folder += "/";
  }
  return loc;
}

}  // namespace hzio::internal_remote
