#include "hzio/remote/object_store.h"

#include <ctime>

#include "hzio/util/percent_encoding.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

// The text of <Tag>...</Tag> in an S3 XML error body, or "".
std::string XmlValue(const std::string& body, const std::string& tag) {
  const size_t open = body.find("<" + tag + ">");
  if (open == std::string::npos) return "";
  const size_t start = open + tag.size() + 2;
  const size_t close = body.find("</" + tag + ">", start);
  return close == std::string::npos ? "" : body.substr(start, std::min<size_t>(close - start, 300));
}

// "host[:port]" and "/path" of an absolute URL, and its decoded query parameters.
void SplitForSigning(const std::string& url, std::string& host, std::string& path, HeaderList& query) {
  const size_t start = url.find("://") + 3;
  size_t slash = url.find('/', start);
  const size_t q = url.find('?', start);
  if (slash == std::string::npos || (q != std::string::npos && q < slash)) slash = q;
  host = url.substr(start, (slash == std::string::npos ? url.size() : slash) - start);
  path = slash == std::string::npos ? "/" : url.substr(slash, (q == std::string::npos ? url.size() : q) - slash);
  if (path.empty()) path = "/";
  if (q == std::string::npos) return;
  for (const std::string& pair : Split(url.substr(q + 1), '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    query.emplace_back(PercentDecode(pair.substr(0, eq)), eq == std::string::npos ? "" : PercentDecode(pair.substr(eq + 1)));
  }
}

}  // namespace

ObjectStore::ObjectStore(ObjectLocation location, const EnvLookup& env, std::shared_ptr<HttpClient> client)
    : location_(std::move(location)), client_(std::move(client)) {
  if (!location_.s3) {
    base_ = location_.endpoint + "/";
    return;
  }
  settings_ = ResolveS3Settings(location_.params, env, location_.region_hint);
  const std::string bucket = AwsUriEncode(location_.bucket, false);
  // The URL's endpoint_url, else the host of an http(s) URL (OpenVisus's form), else for s3://
  // the environment's or profile's endpoint, else Amazon S3 itself.
  std::string endpoint;
  if (location_.params.count("endpoint_url")) endpoint = settings_.endpoint_url;
  else if (location_.virtual_hosted) endpoint = "";
  else if (!location_.endpoint.empty()) endpoint = location_.endpoint;
  else endpoint = settings_.endpoint_url;
  if (endpoint.empty()) {
    // Amazon S3: virtual-hosted addressing, except for bucket names with dots (TLS certificates
    // cover one label), which go path-style.
    if (location_.bucket.find('.') == std::string::npos)
      base_ = "https://" + location_.bucket + ".s3." + settings_.region + ".amazonaws.com/";
    else
      base_ = "https://s3." + settings_.region + ".amazonaws.com/" + bucket + "/";
  } else {
    Check(StartsWith(endpoint, "http://") || StartsWith(endpoint, "https://"), ErrorCode::kInvalidArgument,
          location_.display + ": the S3 endpoint '" + endpoint + "' is not an http:// or https:// URL");
    base_ = endpoint + "/" + bucket + "/";  // path-style: MinIO, OSN, Wasabi, ...
  }
}

std::string ObjectStore::Url(const std::string& key) const { return base_ + AwsUriEncode(key, true); }

std::string ObjectStore::Key(const std::string& relative) const {
  return ResolveObjectKey(location_.folder, relative, location_.display);
}

HttpRequest ObjectStore::Request(const std::string& method, const std::string& key) const {
  HttpRequest r;
  r.method = method;
  r.url = Url(key);
  return r;
}

void ObjectStore::Sign(HttpRequest& request) const {
  if (!location_.s3 || settings_.credentials.anonymous()) return;
  SigV4Request s;
  s.method = request.method;
  SplitForSigning(request.url, s.host, s.canonical_uri, s.query);
  for (const auto& h : request.headers)
    if (ToLower(h.first) == "range") s.headers.push_back(h);
  s.payload_hash = request.body ? PayloadHash(*request.body) : PayloadHash("");
  for (auto& h : SignS3Request(std::move(s), settings_.credentials, settings_.region, std::time(nullptr)))
    request.headers.push_back(std::move(h));
}

void ObjectStore::GetMany(std::span<const Get> gets, const HttpClient::OnResponse& on_response) const {
  std::vector<HttpRequest> requests;
  requests.reserve(gets.size());
  for (const Get& g : gets) {
    HttpRequest r = Request("GET", g.key);
    if (g.length > 0)
      r.headers.emplace_back("Range", "bytes=" + std::to_string(g.offset) + "-" + std::to_string(g.offset + g.length - 1));
    if (!g.if_match.empty()) r.headers.emplace_back("If-Match", g.if_match);
    if (!g.if_none_match.empty()) r.headers.emplace_back("If-None-Match", g.if_none_match);
    if (!g.if_modified_since.empty()) r.headers.emplace_back("If-Modified-Since", g.if_modified_since);
    r.max_body_bytes = g.max_bytes;
    requests.push_back(std::move(r));
  }
  client_->PerformMany(requests, on_response, [this](HttpRequest& r) { Sign(r); });
}

HttpResponse ObjectStore::GetOne(const Get& get) const {
  HttpResponse out;
  GetMany({&get, 1}, [&](size_t, HttpResponse&& r) { out = std::move(r); });
  return out;
}

HttpResponse ObjectStore::Head(const std::string& key) const {
  return client_->Perform(Request("HEAD", key), [this](HttpRequest& r) { Sign(r); });
}

HttpResponse ObjectStore::Put(const std::string& key, std::shared_ptr<const std::string> body) const {
  HttpRequest r = Request("PUT", key);
  r.body = std::move(body);
  return client_->Perform(r, [this](HttpRequest& req) { Sign(req); });
}

void ObjectStore::PutMany(std::span<const PutObject> puts, const HttpClient::OnResponse& on_response) const {
  std::vector<HttpRequest> requests;
  requests.reserve(puts.size());
  for (const PutObject& p : puts) {
    HttpRequest r = Request("PUT", p.key);
    r.body = p.body;
    requests.push_back(std::move(r));
  }
  client_->PerformMany(requests, on_response, [this](HttpRequest& r) { Sign(r); });
}

HttpResponse ObjectStore::Delete(const std::string& key) const {
  return client_->Perform(Request("DELETE", key), [this](HttpRequest& r) { Sign(r); });
}

Error ObjectStore::ResponseError(const std::string& key, const HttpResponse& res) const {
  std::string what = XmlValue(res.body, "Code");
  const std::string message = XmlValue(res.body, "Message");
  if (!message.empty()) what += (what.empty() ? "" : ": ") + message;
  if (what.empty() && res.status >= 400 && !res.body.empty() && res.body.size() < 300 &&
      res.body.find('<') == std::string::npos)
    what = Trim(res.body);
  std::string text = Url(key) + ": HTTP " + std::to_string(res.status) + (what.empty() ? "" : " (" + what + ")");
  switch (res.status) {
    case 400:
      return Error(ErrorCode::kInvalidArgument, text);
    case 401:
    case 403: {
      std::string who = !location_.s3 ? "the web server refused the request"
                        : settings_.credentials.anonymous()
                            ? "no credentials were found (anonymous request): give access_key=/secret_key= in the "
                              "URL, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or a profile in ~/.aws"
                            : "check the credentials (taken from the " + settings_.credentials_from + ")";
      return Error(ErrorCode::kIo, text + ": access denied; " + who);
    }
    case 404:
      return Error(ErrorCode::kNotFound, text + ": no such object");
    case 416:
      return Error(ErrorCode::kCorrupt, text + ": the object is shorter than the range asked for");
    default:
      return Error(res.status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kIo, text);
  }
}

}  // namespace hzio::internal_remote
