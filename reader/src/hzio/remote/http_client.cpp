#include "hzio/remote/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <random>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

using Clock = std::chrono::steady_clock;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One attempt of one request while it is in flight.
struct Transfer {
  CURL* easy = nullptr;
  size_t index = 0;
  int attempt = 1;
  HttpRequest request;  // as prepared for this attempt
  HttpResponse response;
  curl_slist* header_list = nullptr;
  char error[CURL_ERROR_SIZE] = {0};
  size_t limit = 0;
  bool too_large = false;

  ~Transfer() {
    if (header_list) curl_slist_free_all(header_list);
  }
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->response.body.size() + n > t->limit) {
    t->too_large = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  t->response.body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  const std::string line(data, n);
  if (StartsWith(line, "HTTP/")) t->response.headers.clear();  // a new response (after a redirect or 100)
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  const std::string name = ToLower(Trim(line.substr(0, colon)));
  const std::string value = Trim(line.substr(colon + 1));
  t->response.headers[name] = value;
  if (name == "content-length") {
    const uint64_t length = std::strtoull(value.c_str(), nullptr, 10);
    if (length > t->limit) {
      t->too_large = true;
      return 0;
    }
    t->response.body.reserve(static_cast<size_t>(length));
  }
  return n;
}

long EnvMilliseconds(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  const long parsed = std::atol(v);
  return parsed > 0 ? parsed : fallback;
}

}  // namespace

size_t DecodeBacklog(const HttpClient& client, size_t pool_threads) {
  return std::max(2 * pool_threads + 2, static_cast<size_t>(std::max(1, client.options().max_in_flight)));
}

bool IsTransientFailure(int curl_code, long status) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_OK:
      return status >= 500 || status == 429;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

long BackoffMilliseconds(int retry, long base_ms, long max_ms, double unit) {
  const int shift = std::clamp(retry, 0, 20);
  const long ceiling = std::min<long>(max_ms, base_ms * (1L << shift));
  return static_cast<long>(unit * static_cast<double>(std::max<long>(ceiling, 0)));
}

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(ToLower(name));
  return it == headers.end() ? std::string() : it->second;
}

bool HttpResponse::HasHeader(const std::string& name) const { return headers.count(ToLower(name)) != 0; }

HttpClient::Options HttpClient::Options::FromEnvironment() {
  Options o;
  o.connect_timeout_ms = EnvMilliseconds("HZIO_HTTP_CONNECT_TIMEOUT_MS", o.connect_timeout_ms);
  o.stall_timeout_ms = EnvMilliseconds("HZIO_HTTP_STALL_TIMEOUT_MS", o.stall_timeout_ms);
  o.attempt_timeout_ms = EnvMilliseconds("HZIO_HTTP_TIMEOUT_MS", o.attempt_timeout_ms);
  o.max_attempts = static_cast<int>(std::clamp<long>(EnvMilliseconds("HZIO_HTTP_ATTEMPTS", o.max_attempts), 1, 20));
  o.max_in_flight = static_cast<int>(std::clamp<long>(EnvMilliseconds("HZIO_HTTP_IN_FLIGHT", o.max_in_flight), 1, 1024));
  return o;
}

std::string HttpClient::DefaultCaFile() {
  const char* env = std::getenv("HZIO_CA_FILE");
  return env ? env : "";
}

// A multi handle (whose connection cache keeps connections open between calls) and the easy
// handles it has used.
struct HttpClient::Agent {
  CURLM* multi = nullptr;
  std::vector<CURL*> spare;

  explicit Agent(int max_in_flight) {
    multi = curl_multi_init();
    Check(multi != nullptr, ErrorCode::kInternal, "curl_multi_init failed");
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(max_in_flight));
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(max_in_flight));
  }
  ~Agent() {
    for (CURL* e : spare) curl_easy_cleanup(e);
    curl_multi_cleanup(multi);
  }
  CURL* TakeEasy() {
    if (!spare.empty()) {
      CURL* e = spare.back();
      spare.pop_back();
      return e;
    }
    CURL* e = curl_easy_init();
    Check(e != nullptr, ErrorCode::kInternal, "curl_easy_init failed");
    return e;
  }
};

HttpClient::HttpClient() : HttpClient(Options::FromEnvironment()) {}

HttpClient::HttpClient(Options options) : options_(options) {
  GlobalInit();
  options_.max_attempts = std::max(1, options_.max_attempts);
  options_.max_in_flight = std::max(1, options_.max_in_flight);
}

HttpClient::~HttpClient() = default;

std::unique_ptr<HttpClient::Agent> HttpClient::TakeAgent() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<Agent> a = std::move(idle_.back());
      idle_.pop_back();
      return a;
    }
  }
  return std::make_unique<Agent>(options_.max_in_flight);
}

void HttpClient::ReturnAgent(std::unique_ptr<Agent> agent) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (static_cast<int>(idle_.size()) < options_.max_idle_agents) idle_.push_back(std::move(agent));
}

void HttpClient::PerformMany(std::span<const HttpRequest> requests, const OnResponse& on_response,
                             const Prepare& prepare) {
  if (requests.empty()) return;
  ++batches_;
  std::unique_ptr<Agent> agent = TakeAgent();
  std::vector<std::unique_ptr<Transfer>> active;
  // Whatever happens (an error, an exception of the receiver), no easy handle stays in the multi
  // handle and the agent goes back to the pool with its connections.
  struct Cleanup {
    HttpClient* client;
    std::unique_ptr<Agent>& agent;
    std::vector<std::unique_ptr<Transfer>>& active;
    ~Cleanup() {
      for (auto& t : active) {
        curl_multi_remove_handle(agent->multi, t->easy);
        agent->spare.push_back(t->easy);
      }
      active.clear();
      client->ReturnAgent(std::move(agent));
    }
  } cleanup{this, agent, active};

  struct Waiting {
    size_t index;
    int attempt;
    Clock::time_point due;
  };
  std::deque<Waiting> fresh;
  for (size_t i = 0; i < requests.size(); ++i) fresh.push_back(Waiting{i, 1, Clock::time_point{}});
  std::vector<Waiting> retries;  // few: only failed attempts wait here
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);

  auto start = [&](const Waiting& w) {
    auto t = std::make_unique<Transfer>();
    t->index = w.index;
    t->attempt = w.attempt;
    t->request = requests[w.index];
    if (prepare) prepare(t->request);
    t->limit = t->request.max_body_bytes ? t->request.max_body_bytes : options_.max_body_bytes;
    t->easy = agent->TakeEasy();
    CURL* h = t->easy;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, t->request.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.attempt_timeout_ms);
    // A transfer that receives less than a byte a second for the stall time is cut.
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, std::max(1L, options_.stall_timeout_ms / 1000));
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "hzio/libcurl");
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->error);
    curl_easy_setopt(h, CURLOPT_PRIVATE, t.get());
    if (!options_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_file.c_str());
    const std::string& method = t->request.method;
    if (method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
      curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
      curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    } else if (method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
      const std::string* body = t->request.body.get();
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body ? body->size() : 0));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body->data() : "");
      t->header_list = curl_slist_append(t->header_list, "Expect:");  // no 100-continue round trip
      t->header_list = curl_slist_append(t->header_list, "Content-Type:");
    }
    for (const auto& [name, value] : t->request.headers)
      t->header_list = curl_slist_append(t->header_list, (name + ": " + value).c_str());
    if (t->header_list) curl_easy_setopt(h, CURLOPT_HTTPHEADER, t->header_list);
    Check(curl_multi_add_handle(agent->multi, h) == CURLM_OK, ErrorCode::kInternal, "curl_multi_add_handle failed");
    ++requests_sent_;
    active.push_back(std::move(t));
  };

  for (;;) {
    const Clock::time_point now = Clock::now();
    // Start what is due, retries first, up to the in-flight limit.
    while (static_cast<int>(active.size()) < options_.max_in_flight) {
      auto due = std::find_if(retries.begin(), retries.end(), [&](const Waiting& w) { return w.due <= now; });
      if (due != retries.end()) {
        const Waiting w = *due;
        retries.erase(due);
        start(w);
      } else if (!fresh.empty()) {
        const Waiting w = fresh.front();
        fresh.pop_front();
        start(w);
      } else {
        break;
      }
    }
    if (active.empty() && fresh.empty() && retries.empty()) return;

    int running = 0;
    Check(curl_multi_perform(agent->multi, &running) == CURLM_OK, ErrorCode::kInternal, "curl_multi_perform failed");
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(agent->multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      Transfer* raw = nullptr;
      curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&raw));
      const CURLcode rc = m->data.result;
      auto it = std::find_if(active.begin(), active.end(), [&](const auto& t) { return t.get() == raw; });
      std::unique_ptr<Transfer> t = std::move(*it);
      active.erase(it);
      curl_multi_remove_handle(agent->multi, t->easy);
      agent->spare.push_back(t->easy);
      long status = 0;
      if (rc == CURLE_OK) curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
      const std::string& url = requests[t->index].url;
      if (t->too_large)
        throw Error(ErrorCode::kTooLarge, url + ": the response is larger than " +
                                              std::to_string(t->limit) + " bytes, more than expected");
      if (IsTransientFailure(rc, status) && t->attempt < options_.max_attempts) {
        const long wait = BackoffMilliseconds(t->attempt, options_.backoff_base_ms, options_.backoff_max_ms, unit(rng));
        retries.push_back(Waiting{t->index, t->attempt + 1, Clock::now() + std::chrono::milliseconds(wait)});
        continue;
      }
      if (rc != CURLE_OK) {
        const std::string why = t->error[0] ? t->error : curl_easy_strerror(rc);
        throw Error(ErrorCode::kUnavailable, url + ": " + why + " (" + std::to_string(t->attempt) +
                                                 (t->attempt == 1 ? " attempt)" : " attempts)"));
      }
      t->response.status = status;
      on_response(t->index, std::move(t->response));
    }
    if (active.empty() && fresh.empty() && retries.empty()) return;
    // Sleep until a socket is ready, at most until libcurl's next timer or the next retry is due.
    long wait_ms = 100;
    long curl_ms = -1;
    curl_multi_timeout(agent->multi, &curl_ms);
    if (curl_ms >= 0 && !active.empty()) wait_ms = std::min(wait_ms, curl_ms);
    for (const Waiting& w : retries)
      wait_ms = std::min<long>(wait_ms, std::max<long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                              w.due - Clock::now()).count()));
    if (wait_ms > 0) curl_multi_poll(agent->multi, nullptr, 0, static_cast<int>(wait_ms), nullptr);
  }
}

HttpResponse HttpClient::Perform(const HttpRequest& request, const Prepare& prepare) {
  HttpResponse out;
  PerformMany({&request, 1}, [&](size_t, HttpResponse&& r) { out = std::move(r); }, prepare);
  return out;
}

HttpResponse HttpClient::Get(const std::string& url) {
  HttpRequest r;
  r.url = url;
  return Perform(r);
}

}  // namespace hzio::internal_remote
