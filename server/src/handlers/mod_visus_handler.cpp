#include "handlers/mod_visus_handler.h"

#include <map>

#include <nlohmann/json.hpp>

#include "handlers/array_body.h"
#include "handlers/caching.h"
#include "handlers/json_api.h"
#include "hzio/util/error.h"
#include "hzio/util/percent_encoding.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

std::string DatasetUrl(const std::string& name) {
  return "$(protocol)://$(hostname):$(port)/mod_visus?action=readdataset&dataset=" +
         PercentEncode(name, "-_.~");  // unreserved characters stay readable
}

// Datasets without a group first, then each group in order of first appearance (§7.3).
std::vector<std::pair<std::string, std::vector<const DatasetEntry*>>> Grouped(
    const std::vector<const DatasetEntry*>& visible) {
  std::vector<std::pair<std::string, std::vector<const DatasetEntry*>>> groups{{"", {}}};
  for (const DatasetEntry* s : visible) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == s->group; });
    if (it == groups.end()) {
      groups.push_back({s->group, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(s);
  }
  return groups;
}

Reply Ping() {
  Reply r;
  r.Set("block-query-support-aggregation", "1");
  return r;
}

Reply Info(const ServerContext& context, const Request& request) {
  Reply r;
  r.Set("visus-config-filename", "");
  r.Set("visus-dynamic-enabled", "0");
  r.Set("visus-dynamic-filename", "");
  r.Set("visus-dynamic-msec", "0");
  r.Set("visus-home", "");
  r.Set("visus-cache", "");
  r.Set("visus-binary-dir", "");
  r.Set("visus-cwd", "");
  r.Set("visus-datasets", std::to_string(context.Visible(request).size()));
  r.Set("block-query-support-aggregation", "1");
  return r;
}

}  // namespace

std::string ReplaceUrlPlaceholders(std::string text, const QueryString& query) {
  const std::pair<const char*, const char*> keys[] = {
      {"$(protocol)", "protocol"}, {"$(hostname)", "hostname"}, {"$(port)", "port"}};
  for (const auto& [placeholder, key] : keys) {
    std::optional<std::string> value = query.Get(key);
    if (!value) continue;
    const std::string p = placeholder;
    for (size_t at = text.find(p); at != std::string::npos; at = text.find(p, at + value->size()))
      text.replace(at, p.size(), *value);
  }
  return text;
}

Reply ModVisusList(ServerContext& context, const Request& request, const QueryString& query) {
  std::string format = query.GetOr("format", "xml");
  if (format.empty()) format = "xml";
  auto groups = Grouped(context.Visible(request));
  Reply r;
  if (format == "xml") {
    std::string xml = "<datasets>\n";
    auto line = [&](const DatasetEntry* s, const std::string& indent) {
      xml += indent + "<dataset name=\"" + XmlEscape(s->name) + "\" url=\"" + XmlEscape(DatasetUrl(s->name)) +
             "\" location_match=\"\" />\n";
    };
    for (const auto& [group, members] : groups) {
      if (group.empty()) {
        for (const DatasetEntry* s : members) line(s, "\t");
      } else {
        xml += "\t<group name=\"" + XmlEscape(group) + "\">\n";
        for (const DatasetEntry* s : members) line(s, "\t\t");
        xml += "\t</group>\n";
      }
    }
    xml += "</datasets>\n";
    r.body = ReplaceUrlPlaceholders(xml, query);
    r.Set("Content-Type", "text/xml");
  } else if (format == "json") {
    using nlohmann::json;
    auto node = [&](const DatasetEntry* s) {
      return json{{"name", "dataset"},
                  {"attributes",
                   {{"name", s->name},
                    {"url", ReplaceUrlPlaceholders(DatasetUrl(s->name), query)},
                    {"location_match", ""}}},
                  {"childs", json::array()}};
    };
    json root{{"name", "datasets"}, {"attributes", json::object()}, {"childs", json::array()}};
    for (const auto& [group, members] : groups) {
      if (group.empty()) {
        for (const DatasetEntry* s : members) root["childs"].push_back(node(s));
      } else {
        json g{{"name", "group"}, {"attributes", {{"name", group}}}, {"childs", json::array()}};
        for (const DatasetEntry* s : members) g["childs"].push_back(node(s));
        root["childs"].push_back(g);
      }
    }
    r.body = root.dump(1, '\t') + "\n";
    r.Set("Content-Type", "application/json");
  } else {
    return HZIO_VISUS_ERROR(404, "wrong format(" + format + ")");
  }
  r.Set("Cache-Control", "no-cache");
  return r;
}

Reply ModVisusReadDataset(ServerContext& context, const Request& request, const QueryString& query) {
  const std::string name = query.GetOr("dataset", "");
  std::shared_ptr<const ServedDataset> ds = context.FindReadable(request, name);
  if (!ds) return HZIO_VISUS_ERROR(404, "Cannot find dataset(" + name + ")");
  const bool xml = query.GetOr("format", "") == "xml";
  std::map<std::string, std::string> key{{"format", xml ? "xml" : "text"}};
  for (const char* p : {"protocol", "hostname", "port"})
    if (query.Has(p)) key[p] = *query.Get(p);
  const std::string etag = MakeEtag(ds->generation, "readdataset", key);
  if (EtagMatches(request, etag)) return NotModified(etag, context.options.max_age_seconds);
  Reply r;
  if (xml) {
    r.body = ReplaceUrlPlaceholders(ds->dataset->header().ToXml(ds->name), query);
    r.Set("Content-Type", "text/xml");
  } else {
    r.body = ds->dataset->header().ToText();
    r.Set("Content-Type", "application/octet-stream");
    r.Set("Content-Transfer-Encoding", "binary");
  }
  r.Set("visus-typename", "IdxDataset");
  r.Set("visus-git-revision", "");
  MarkCacheable(r, etag, context.options.max_age_seconds);
  return r;
}

Reply HandleModVisus(ServerContext& context, const Request& request, const QueryString& query) {
  std::string action = query.GetOr("action", "");
  if (!query.Has("action")) action = query.Has("dataset") ? "readdataset" : "list";
  Reply r;
  try {
    if (action == "readdataset" || action == "read_dataset") r = ModVisusReadDataset(context, request, query);
    else if (action == "list") r = ModVisusList(context, request, query);
    else if (action == "blockquery" || action == "rangequery") r = ModVisusBlockQuery(context, request, query);
    else if (action == "boxquery" || action == "query") r = ModVisusBoxQuery(context, request, query);
    else if (action == "ping") r = Ping();
    else if (action == "info") r = Info(context, request);
    else if (action == "pointquery") r = ModVisusPointQuery(context, request, query);
    else r = HZIO_VISUS_ERROR(404, "unknown action(" + action + ")");
  } catch (const Error& e) {
    RethrowIfChanged(e);
    r = HZIO_VISUS_ERROR(e.code() == ErrorCode::kTooLarge ? 413 : e.code() == ErrorCode::kUnavailable ? 503 : 500,
                         e.what());
  } catch (const std::bad_alloc&) {
    r = HZIO_VISUS_ERROR(503, "out of memory");
  }
  AddVisusCommonHeaders(r);
  return r;
}

}  // namespace hzio::server
