#include "handlers/static_files.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "handlers/caching.h"
#include "handlers/json_api.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kMaxStaticFileBytes = int64_t{256} << 20;

Reply PlaceholderPage(const ServerContext& context, const Request& request) {
  std::string html =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>hzio</title></head><body>\n"
      "<h1>hzio server</h1>\n<p>The web viewer is not installed; the datasets below are served over "
      "<code>/mod_visus</code> and <code>/api/v1/</code>.</p>\n<ul>\n";
  for (const DatasetEntry* s : context.Visible(request))
    html += "<li><a href=\"/api/v1/datasets/" + XmlEscape(s->name) + "\">" + XmlEscape(s->name) + "</a></li>\n";
  html += "</ul>\n</body></html>\n";
  Reply r;
  r.body = html;
  r.Set("Content-Type", "text/html; charset=utf-8");
  r.Set("Cache-Control", "no-cache");
  return r;
}

bool Inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *q != *r) return false;
  return true;
}

}  // namespace

std::string ContentTypeForPath(const std::string& path) {
  static const std::map<std::string, std::string> kTypes = {
      {".html", "text/html; charset=utf-8"}, {".htm", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"}, {".json", "application/json"},
      {".map", "application/json"}, {".svg", "image/svg+xml"}, {".png", "image/png"},
      {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"}, {".gif", "image/gif"}, {".ico", "image/x-icon"},
      {".wasm", "application/wasm"}, {".txt", "text/plain; charset=utf-8"}, {".md", "text/plain; charset=utf-8"},
      {".glsl", "text/plain; charset=utf-8"}, {".woff2", "font/woff2"}};
  auto it = kTypes.find(ToLower(fs::path(path).extension().string()));
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

std::string DefaultWebRoot() {
  std::error_code ec;
  for (const char* candidate : {HZIO_SOURCE_WEB_DIR, HZIO_INSTALLED_WEB_DIR})
    if (fs::is_directory(candidate, ec)) return candidate;
  return "";
}

Reply HandleStaticFile(ServerContext& context, const Request& request, const QueryString& query) {
  const std::string& path = query.path();
  // Refuse traversal before touching the file system.
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos)
    return JsonError(400, "invalid_argument", "path has a NUL byte or a backslash");
  for (const std::string& seg : Split(path, '/'))
    if (seg == "..") return JsonError(400, "invalid_argument", "path '" + path + "' has a '..' segment");
  if (context.web_root.empty()) {
    if (path == "/" || path == "/index.html") return PlaceholderPage(context, request);
    return JsonError(404, "not_found", "no file " + path);
  }
  std::error_code ec;
  const fs::path root = fs::canonical(context.web_root, ec);
  if (ec) return path == "/" ? PlaceholderPage(context, request) : JsonError(404, "not_found", "no file " + path);
  fs::path target = root / fs::path(path.substr(1));
  if (fs::is_directory(target, ec)) target /= "index.html";
  const fs::path real = fs::weakly_canonical(target, ec);
  if (ec || !Inside(root, real)) return JsonError(404, "not_found", "no file " + path);
  if (!fs::is_regular_file(real, ec)) {
    if (path == "/" || path == "/index.html") return PlaceholderPage(context, request);
    return JsonError(404, "not_found", "no file " + path);
  }
  const auto size = fs::file_size(real, ec);
  if (ec || static_cast<int64_t>(size) > kMaxStaticFileBytes)
    return JsonError(ec ? 404 : 413, ec ? "not_found" : "too_large", "cannot serve " + path);
  const auto mtime = fs::last_write_time(real, ec).time_since_epoch().count();
  const std::string etag =
      MakeEtag(Fnv1a(real.string()), "static", {{"size", std::to_string(size)}, {"mtime", std::to_string(mtime)}});
  if (EtagMatches(request, etag)) {
    Reply r;
    r.status = 304;
    r.Set("ETag", etag);
    r.Set("Cache-Control", "no-cache");
    return r;
  }
  std::ifstream in(real, std::ios::binary);
  if (!in) return JsonError(404, "not_found", "cannot read " + path);
  Reply r;
  r.body.resize(static_cast<size_t>(size));
  in.read(r.body.data(), static_cast<std::streamsize>(size));
  r.body.resize(static_cast<size_t>(in.gcount()));
  r.Set("Content-Type", ContentTypeForPath(real.string()));
  r.Set("ETag", etag);
  r.Set("Cache-Control", "no-cache");
  return r;
}

}  // namespace hzio::server
