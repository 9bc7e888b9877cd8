#include "config/server_options.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "auth/password_hash.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace fs = std::filesystem;

namespace {

std::string DefaultName(const fs::path& idx) {
  std::string stem = idx.stem().string();
  if (stem == "visus" && idx.has_parent_path()) {
    std::string parent = fs::absolute(idx).parent_path().filename().string();
    if (!parent.empty()) return parent;
  }
  return stem;
}

bool IsIdx(const fs::path& p) { return p.extension() == ".idx"; }

int64_t ParseMegabytes(const std::string& text, const std::string& what) {
  int64_t mb = ParseInt64(text, what);
  Check(mb >= 0 && mb < (int64_t{1} << 40), ErrorCode::kInvalidArgument, what + " '" + text + "' is out of range");
  return mb << 20;
}

int ParseIntIn(const std::string& text, const std::string& what, int64_t lo, int64_t hi) {
  int64_t v = ParseInt64(text, what);
  Check(v >= lo && v <= hi, ErrorCode::kInvalidArgument,
        what + " '" + text + "' must be in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(v);
}

RateLimit ParseRateLimit(const nlohmann::json& j, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return Error(ErrorCode::kInvalidArgument, where + ": \"rate_limit\" " + why);
  };
  if (!j.is_object()) throw bad("must be {\"requests_per_second\": R, \"burst\": B}");
  RateLimit r;
  for (const auto& [k, v] : j.items()) {
    if (k != "requests_per_second" && k != "burst") throw bad("has an unknown key \"" + k + "\"");
    if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1e9) throw bad(k + " must be a number >= 0");
    (k == "burst" ? r.burst : r.requests_per_second) = v.get<double>();
  }
  if (r.requests_per_second > 0 && r.burst < 1) r.burst = std::max(1.0, r.requests_per_second);
  return r;
}

bool IsLoopback(const std::string& host) {
  return StartsWith(host, "127.") || host == "::1" || host == "localhost";
}

}  // namespace

std::vector<DatasetEntry> DatasetsFromArgument(const std::string& arg, const std::string& group) {
  std::string name, path = arg;
  size_t eq = arg.find('=');
  if (eq != std::string::npos && eq > 0 && arg.substr(0, eq).find('/') == std::string::npos) {
    name = arg.substr(0, eq);
    path = arg.substr(eq + 1);
  }
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  Check(!ec && fs::exists(st), ErrorCode::kNotFound, path + ": no such file or directory");
  std::vector<DatasetEntry> out;
  if (fs::is_directory(st)) {
    Check(name.empty(), ErrorCode::kInvalidArgument,
          arg + ": NAME=PATH needs a .idx file, not a folder (folders name each dataset they hold)");
    std::vector<fs::path> found;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && IsIdx(it->path())) found.push_back(it->path());
    }
    Check(!ec, ErrorCode::kIo, path + ": cannot scan folder: " + ec.message());
    std::sort(found.begin(), found.end());
    for (const fs::path& p : found) out.push_back({DefaultName(p), fs::absolute(p).string(), group});
    Check(!out.empty(), ErrorCode::kNotFound, path + ": folder holds no .idx file");
  } else {
    Check(IsIdx(path), ErrorCode::kInvalidArgument, path + ": not a .idx file");
    out.push_back({name.empty() ? DefaultName(path) : name, fs::absolute(path).string(), group});
  }
  return out;
}

void CheckDatasetNames(const std::vector<DatasetEntry>& datasets) {
  std::map<std::string, std::string> seen;
  for (const DatasetEntry& d : datasets) {
    Check(!d.name.empty(), ErrorCode::kInvalidArgument, d.path + ": dataset name is empty");
    for (char c : d.name)
      Check(static_cast<unsigned char>(c) >= 0x20 && c != 0x7f, ErrorCode::kInvalidArgument,
            d.path + ": dataset name has a control character");
    auto [it, inserted] = seen.emplace(d.name, d.path);
    Check(inserted, ErrorCode::kInvalidArgument,
          "dataset name '" + d.name + "' is used twice (" + it->second + " and " + d.path +
              "); give one of them a name with NAME=PATH");
  }
}

void LoadConfigFile(const std::string& path, ServerOptions* options) {
  std::ifstream in(path);
  Check(static_cast<bool>(in), ErrorCode::kNotFound, path + ": cannot open config file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::kInvalidArgument, path + ": not valid JSON: " + e.what());
  }
  Check(j.is_object(), ErrorCode::kInvalidArgument, path + ": the config must be a JSON object");
  fs::path base = fs::absolute(path).parent_path();
  auto bad = [&](const std::string& key, const std::string& why) {
    return Error(ErrorCode::kInvalidArgument, path + ": \"" + key + "\" " + why);
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "datasets") {
      if (!value.is_array()) throw bad(key, "must be an array");
      for (const auto& d : value) {
        if (!d.is_object() || !d.contains("path") || !d["path"].is_string())
          throw bad(key, "entries need a string \"path\"");
        fs::path p = d["path"].get<std::string>();
        if (p.is_relative()) p = base / p;
        std::string group = d.contains("group") && d["group"].is_string() ? d["group"].get<std::string>() : "";
        std::string arg = p.string();
        // Access applies to every dataset of the entry (a folder entry is a group's access list).
        bool is_public = false;
        std::vector<std::string> readers;
        if (d.contains("public")) {
          if (!d["public"].is_boolean()) throw bad(key, "entries' \"public\" must be true or false");
          is_public = d["public"].get<bool>();
        }
        if (d.contains("readers")) {
          if (!d["readers"].is_array()) throw bad(key, "entries' \"readers\" must be an array of user names");
          for (const auto& r : d["readers"]) {
            if (!r.is_string() || r.get<std::string>().empty())
              throw bad(key, "entries' \"readers\" must be non-empty strings");
            readers.push_back(r.get<std::string>());
          }
        }
        std::vector<DatasetEntry> found = DatasetsFromArgument(arg, group);
        if (d.contains("name")) {
          if (!d["name"].is_string()) throw bad(key, "entry names must be strings");
          Check(found.size() == 1, ErrorCode::kInvalidArgument,
                path + ": dataset '" + d["name"].get<std::string>() + "' must name one .idx file");
          found[0].name = d["name"].get<std::string>();
        }
        for (auto& e : found) {
          e.is_public = is_public;
          e.readers = readers;
          options->datasets.push_back(e);
        }
      }
    } else if (key == "cache_mb" || key == "max_query_mb") {
      if (!value.is_number_integer() || value.get<int64_t>() < 0) throw bad(key, "must be a non-negative integer");
      (key == "cache_mb" ? options->cache_bytes : options->max_query_bytes) = value.get<int64_t>() << 20;
    } else if (key == "host") {
      if (!value.is_string()) throw bad(key, "must be a string");
      options->host = value.get<std::string>();
    } else if (key == "port") {
      if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() > 65535)
        throw bad(key, "must be 0..65535");
      options->port = value.get<int>();
    } else if (key == "web_root") {
      if (!value.is_string()) throw bad(key, "must be a string");
      fs::path w = value.get<std::string>();
      options->web_root = (w.is_relative() ? base / w : w).string();
    } else if (key == "threads" || key == "max_connections") {
      if (!value.is_number_integer() || value.get<int>() < 0) throw bad(key, "must be a non-negative integer");
      (key == "threads" ? options->worker_threads : options->max_connections) = value.get<int>();
    } else if (key == "users") {
      if (!value.is_array()) throw bad(key, "must be an array of {\"name\", \"secrets\"}");
      for (const auto& u : value) {
        if (!u.is_object() || !u.contains("name") || !u["name"].is_string() || !u.contains("secrets") ||
            !u["secrets"].is_array())
          throw bad(key, "entries need a string \"name\" and an array \"secrets\"");
        UserEntry user;
        user.name = u["name"].get<std::string>();
        if (user.name.empty() || user.name == "*" || user.name.find(':') != std::string::npos)
          throw bad(key, "user names must be non-empty, not \"*\", and without ':'");
        for (const auto& [k, v] : u.items())
          if (k != "name" && k != "secrets" && k != "rate_limit")
            throw bad(key, "user '" + user.name + "' has an unknown key \"" + k + "\" (name, secrets, rate_limit)");
        for (const auto& h : u["secrets"]) {
          if (!h.is_string()) throw bad(key, "user '" + user.name + "': secrets must be strings");
          try {
            CheckSecretHash(h.get<std::string>());
          } catch (const Error& e) {
            // Never echo the value: it may be a password pasted in clear by mistake.
            throw bad(key, "user '" + user.name + "': " + e.what());
          }
          user.secrets.push_back(h.get<std::string>());
        }
        if (user.secrets.empty()) throw bad(key, "user '" + user.name + "' has no secret");
        if (u.contains("rate_limit")) user.rate_limit = ParseRateLimit(u["rate_limit"], path + ": user '" + user.name + "'");
        for (const UserEntry& other : options->users)
          if (other.name == user.name) throw bad(key, "user '" + user.name + "' is listed twice");
        options->users.push_back(std::move(user));
      }
    } else if (key == "rate_limit") {
      options->rate_limit = ParseRateLimit(value, path);
    } else if (key == "cors_origins" || key == "trusted_proxies") {
      if (!value.is_array()) throw bad(key, "must be an array of strings");
      std::vector<std::string> list;
      for (const auto& o : value) {
        if (!o.is_string()) throw bad(key, "must be an array of strings");
        list.push_back(o.get<std::string>());
      }
      if (key == "cors_origins") options->cors_origins = list;
      else options->trusted_proxies = list;
    } else if (key == "tls_cert" || key == "tls_key") {
      if (!value.is_string()) throw bad(key, "must be a string (a PEM file)");
      fs::path f = value.get<std::string>();
      (key == "tls_cert" ? options->tls_cert : options->tls_key) = (f.is_relative() ? base / f : f).string();
    } else if (key == "http_port") {
      if (!value.is_number_integer() || value.get<int>() < -1 || value.get<int>() > 65535)
        throw bad(key, "must be -1..65535");
      options->http_port = value.get<int>();
    } else if (key == "reply_budget_mb" || key == "max_read_mb") {
      if (!value.is_number_integer() || value.get<int64_t>() < 1) throw bad(key, "must be a positive integer");
      (key == "reply_budget_mb" ? options->reply_budget_bytes : options->max_read_bytes) = value.get<int64_t>() << 20;
    } else if (key == "shutdown_grace_seconds") {
      if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() > 3600) throw bad(key, "must be 0..3600");
      options->shutdown_grace_seconds = value.get<int>();
    } else if (key == "access_log") {
      if (value.is_boolean()) {
        options->access_log = value.get<bool>();
      } else if (value.is_string()) {
        fs::path f = value.get<std::string>();
        options->access_log = true;
        options->access_log_file = (f.is_relative() ? base / f : f).string();
      } else {
        throw bad(key, "must be true/false or a file name");
      }
    } else {
      throw bad(key, "is not a known key (datasets, cache_mb, max_query_mb, host, port, web_root, threads, "
                     "max_connections, users, rate_limit, cors_origins, trusted_proxies, tls_cert, tls_key, "
                     "http_port, reply_budget_mb, max_read_mb, shutdown_grace_seconds, access_log)");
    }
  }
}

std::string ServeUsage() {
  return "usage: hzio serve [DATASET|NAME=DATASET|DIR ...] [--config FILE] [--host 127.0.0.1] [--port 8080]\n"
         "                  [--web-root DIR] [--cache-mb 256] [--max-query-mb 1024] [--threads N]\n"
         "                  [--io-threads 1] [--max-connections 512] [--timeout SECONDS] [--access-log]\n"
         "                  [--max-query-bytes N] [--max-blocks N] [--zip-level 1]\n"
         "                  [--tls-cert PEM --tls-key PEM] [--http-port N] [--reply-budget-mb 512]\n"
         "                  [--access-log-file FILE] [--shutdown-grace SECONDS]\n"
         "Serves .idx datasets over HTTP: OpenVisus mod_visus at /mod_visus, JSON at /api/v1/, web viewer at /.\n"
         "--port 0 picks a free port; the chosen address is printed on stdout.\n";
}

ServerOptions ParseServeArgs(int argc, char** argv, bool* help) {
  ServerOptions o;
  *help = false;
  for (int i = 0; i < argc; ++i) o.args.push_back(argv[i]);
  std::vector<std::string> positional;
  std::vector<std::string> configs;
  // Options given on the command line win over the config file, so collect them first.
  std::vector<std::pair<std::string, std::string>> flags;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--access-log") {
      o.access_log = true;
      continue;
    }
    if (a == "-h" || a == "--help") {
      *help = true;
      return o;
    }
    if (StartsWith(a, "--")) {
      std::string key = a, value;
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        key = a.substr(0, eq);
        value = a.substr(eq + 1);
      } else {
        Check(i + 1 < argc, ErrorCode::kInvalidArgument, "option " + a + " needs a value");
        value = argv[++i];
      }
      if (key == "--config") configs.push_back(value);
      else flags.emplace_back(key, value);
    } else {
      positional.push_back(a);
    }
  }
  for (const std::string& c : configs) LoadConfigFile(c, &o);
  for (const std::string& p : positional)
    for (auto& e : DatasetsFromArgument(p)) o.datasets.push_back(e);
  for (const auto& [key, value] : flags) {
    if (key == "--host") o.host = value;
    else if (key == "--port") o.port = ParseIntIn(value, "--port", 0, 65535);
    else if (key == "--web-root") o.web_root = value;
    else if (key == "--cache-mb") o.cache_bytes = ParseMegabytes(value, "--cache-mb");
    else if (key == "--max-query-mb") o.max_query_bytes = ParseMegabytes(value, "--max-query-mb");
    else if (key == "--max-query-bytes") o.max_query_bytes = ParseInt64(value, "--max-query-bytes");
    else if (key == "--zip-level") o.wire_zip_level = ParseIntIn(value, "--zip-level", 0, 9);
    else if (key == "--max-blocks") o.max_blocks_per_query = ParseIntIn(value, "--max-blocks", 1, 1 << 30);
    else if (key == "--threads") o.worker_threads = ParseIntIn(value, "--threads", 0, 1024);
    else if (key == "--io-threads") o.io_threads = ParseIntIn(value, "--io-threads", 1, 64);
    else if (key == "--max-connections") o.max_connections = ParseIntIn(value, "--max-connections", 1, 1000000);
    else if (key == "--tls-cert") o.tls_cert = value;
    else if (key == "--tls-key") o.tls_key = value;
    else if (key == "--http-port") o.http_port = ParseIntIn(value, "--http-port", -1, 65535);
    else if (key == "--reply-budget-mb") o.reply_budget_bytes = std::max<int64_t>(1 << 20, ParseMegabytes(value, "--reply-budget-mb"));
    else if (key == "--max-read-mb") o.max_read_bytes = std::max<int64_t>(1 << 20, ParseMegabytes(value, "--max-read-mb"));
    else if (key == "--min-send-kbps") o.min_send_bytes_per_second = int64_t{ParseIntIn(value, "--min-send-kbps", 1, 1 << 30)} << 10;
    else if (key == "--shutdown-grace") o.shutdown_grace_seconds = ParseIntIn(value, "--shutdown-grace", 0, 3600);
    else if (key == "--access-log-file") {
      o.access_log = true;
      o.access_log_file = value;
    }
    else if (key == "--timeout") {
      o.read_timeout_seconds = ParseIntIn(value, "--timeout", 1, 86400);
      o.write_timeout_seconds = o.idle_timeout_seconds = o.read_timeout_seconds * 2;
    } else {
      throw Error(ErrorCode::kInvalidArgument, "unknown option " + key + " (see hzio serve --help)");
    }
  }
  CheckServeOptions(o);
  return o;
}

void CheckServeOptions(const ServerOptions& o) {
  CheckDatasetNames(o.datasets);
  Check(o.tls_cert.empty() == o.tls_key.empty(), ErrorCode::kInvalidArgument,
        "--tls-cert and --tls-key (config tls_cert, tls_key) must be given together");
  Check(o.http_port < 0 || !o.tls_cert.empty(), ErrorCode::kInvalidArgument,
        "--http-port adds a plain-HTTP listener beside HTTPS; without --tls-cert use --port");
  for (const DatasetEntry& d : o.datasets) {
    Check(o.users.empty() ? d.readers.empty() : true, ErrorCode::kInvalidArgument,
          "dataset '" + d.name + "' has readers but the config has no \"users\"");
    for (const std::string& r : d.readers) {
      bool known = r == "*";
      for (const UserEntry& u : o.users) known |= u.name == r;
      Check(known, ErrorCode::kInvalidArgument, "dataset '" + d.name + "' names reader '" + r + "', who is not in \"users\"");
    }
  }
}

std::vector<std::string> ExposureWarnings(const ServerOptions& o) {
  std::vector<std::string> out;
  if (IsLoopback(o.host)) return out;
  if (o.tls_cert.empty())
    out.push_back("warning: serving " + o.host + " without TLS: data and credentials cross the network in clear "
                  "(give --tls-cert/--tls-key, or terminate TLS at a proxy and bind 127.0.0.1)");
  if (o.users.empty())
    out.push_back("warning: serving " + o.host + " without access lists: anyone who reaches the port reads every "
                  "dataset (configure \"users\" and per-dataset \"readers\"/\"public\")");
  else if (o.http_port >= 0)
    out.push_back("warning: --http-port serves plain HTTP on " + o.host + ": credentials sent there cross the network in clear");
  return out;
}

int64_t MaxReadBytes(const ServerOptions& o) {
  return o.max_read_bytes > 0 ? o.max_read_bytes : 4 * o.max_query_bytes;
}

}  // namespace hzio::server
