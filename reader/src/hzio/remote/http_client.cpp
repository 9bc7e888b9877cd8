#include "hzio/remote/http_client.h"

#include <curl/curl.h>

#include <cctype>
#include <cstdlib>
#include <chrono>
#include <thread>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * count);
  if (StartsWith(line, "HTTP/")) headers->clear();  // a new response (after a redirect or 100)
  size_t colon = line.find(':');
  if (colon != std::string::npos) (*headers)[ToLower(Trim(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
  return size * count;
}

bool Transient(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(ToLower(name));
  return it == headers.end() ? std::string() : it->second;
}

bool HttpResponse::HasHeader(const std::string& name) const { return headers.count(ToLower(name)) != 0; }

std::string HttpClient::DefaultCaFile() {
  const char* env = std::getenv("HZIO_CA_FILE");
  return env ? env : "";
}

HttpClient::HttpClient() : HttpClient(Options{}) {}

HttpClient::HttpClient(Options options) : options_(options) { GlobalInit(); }

HttpClient::~HttpClient() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::TakeHandle() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  CURL* h = curl_easy_init();
  Check(h != nullptr, ErrorCode::kInternal, "curl_easy_init failed");
  return h;
}

void HttpClient::ReturnHandle(void* handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (static_cast<int>(idle_.size()) < options_.max_idle_handles) idle_.push_back(handle);
  else curl_easy_cleanup(static_cast<CURL*>(handle));
}

HttpResponse HttpClient::Get(const std::string& url) {
  std::string last_error;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) std::this_thread::sleep_for(std::chrono::milliseconds(100 * (1 << (attempt - 2))));
    CURL* h = static_cast<CURL*>(TakeHandle());
    HttpResponse res;
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_reset(h);  // keeps the connection cache, clears the previous request's options
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.timeout_ms);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "hzio/libcurl");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &res.body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &res.headers);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
    if (!options_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
    CURLcode rc = curl_easy_perform(h);
    if (rc == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res.status);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    ReturnHandle(h);
    if (rc == CURLE_OK) {
      if ((res.status == 502 || res.status == 503 || res.status == 504) && attempt < options_.max_attempts) {
        last_error = "HTTP " + std::to_string(res.status);
        continue;
      }
      return res;
    }
    last_error = error[0] ? error : curl_easy_strerror(rc);
    if (!Transient(rc)) break;
  }
  throw Error(ErrorCode::kUnavailable, url + ": " + last_error);
}

}  // namespace hzio::internal_remote
