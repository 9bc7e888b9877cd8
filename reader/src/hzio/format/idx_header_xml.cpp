// XML form of the .idx header (idx-format.md §1.9): read as OpenVisus's LoadDatasetEx does, and
// written as mod_visus serves it for readdataset&format=xml.
#include <cctype>
#include <map>

#include "hzio/format/idx_header.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;
};

std::string XmlUnescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') { out += s[i]; continue; }
    size_t semi = s.find(';', i);
    Check(semi != std::string::npos, ErrorCode::kInvalidArgument, "unterminated XML entity");
    std::string e = s.substr(i + 1, semi - i - 1);
    if (e == "amp") out += '&';
    else if (e == "lt") out += '<';
    else if (e == "gt") out += '>';
    else if (e == "quot") out += '"';
    else if (e == "apos") out += '\'';
    else throw Error(ErrorCode::kInvalidArgument, "unknown XML entity &" + e + ";");
    i = semi;
  }
  return out;
}

// Every start or empty-element tag of the document, in order (nesting is not needed: the idxfile
// children are distinct names).
std::vector<XmlElement> ScanElements(const std::string& xml) {
  std::vector<XmlElement> out;
  size_t i = 0;
  while ((i = xml.find('<', i)) != std::string::npos) {
    size_t end = xml.find('>', i);
    Check(end != std::string::npos, ErrorCode::kInvalidArgument, "unterminated XML tag");
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '/' || tag[0] == '?' || tag[0] == '!') continue;
    if (tag.back() == '/') tag.pop_back();
    XmlElement el;
    size_t p = 0;
    while (p < tag.size() && !std::isspace(static_cast<unsigned char>(tag[p]))) el.name += tag[p++];
    while (p < tag.size()) {
      while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
      if (p >= tag.size()) break;
      size_t eq = tag.find('=', p);
      Check(eq != std::string::npos, ErrorCode::kInvalidArgument, "XML attribute without value in <" + el.name + ">");
      std::string key = Trim(tag.substr(p, eq - p));
      size_t q = eq + 1;
      while (q < tag.size() && std::isspace(static_cast<unsigned char>(tag[q]))) ++q;
      Check(q < tag.size() && (tag[q] == '"' || tag[q] == '\''), ErrorCode::kInvalidArgument,
            "XML attribute " + key + " is not quoted");
      size_t close = tag.find(tag[q], q + 1);
      Check(close != std::string::npos, ErrorCode::kInvalidArgument, "unterminated XML attribute " + key);
      el.attrs[key] = XmlUnescape(tag.substr(q + 1, close - q - 1));
      p = close + 1;
    }
    out.push_back(std::move(el));
  }
  return out;
}

std::vector<double> Doubles(const std::string& text, const std::string& what) {
  std::vector<double> v;
  for (const std::string& t : SplitWhitespace(text)) v.push_back(ParseDouble(t, what));
  return v;
}

}  // namespace

IdxHeader ParseIdxXml(const std::string& text, const std::string& source) {
  (void)source;
  IdxHeader h;
  bool saw_idxfile = false;
  std::vector<int64_t> box_values;
  std::vector<TimeRange> ranges;
  for (const XmlElement& el : ScanElements(text)) {
    auto value = [&]() -> std::string {
      auto it = el.attrs.find("value");
      return it == el.attrs.end() ? "" : it->second;
    };
    if (el.name == "idxfile") saw_idxfile = true;
    else if (el.name == "version") h.version = static_cast<int>(ParseInt64(value(), "<version>"));
    else if (el.name == "bitmask") h.bitmask = Bitmask::Parse(value());
    else if (el.name == "box") {
      for (const std::string& t : SplitWhitespace(value())) box_values.push_back(ParseInt64(t, "<box>"));
    } else if (el.name == "bitsperblock") h.bits_per_block = static_cast<int>(ParseInt64(value(), "<bitsperblock>"));
    else if (el.name == "blocksperfile") h.blocks_per_file = ParseInt64(value(), "<blocksperfile>");
    else if (el.name == "block_interleaving") h.interleave = ParseInt64(value(), "<block_interleaving>");
    else if (el.name == "filename_template") h.filename_template = value();
    else if (el.name == "missing_blocks") h.missing_blocks = ToLower(value()) == "true" || value() == "1";
    else if (el.name == "arco") h.arco = ParseInt64(value().empty() ? "0" : value(), "<arco>");
    else if (el.name == "time_template") h.time.tmpl = value();
    else if (el.name == "axis") h.axis = value();
    else if (el.name == "physic_box") h.physic_box = Doubles(value(), "<physic_box>");
    else if (el.name == "logic_to_physic") h.logic_to_physic = Doubles(value(), "<logic_to_physic>");
    else if (el.name == "metadata") {
      h.metadata.emplace_back(el.attrs.count("key") ? el.attrs.at("key") : "", value());
    } else if (el.name == "timestep") {
      if (el.attrs.count("when")) {
        int64_t t = ParseInt64(el.attrs.at("when"), "<timestep when>");
        ranges.push_back(TimeRange{t, t, 1});
      } else {
        TimeRange r;
        r.from = ParseInt64(el.attrs.count("from") ? el.attrs.at("from") : "0", "<timestep from>");
        r.to = ParseInt64(el.attrs.count("to") ? el.attrs.at("to") : std::to_string(r.from), "<timestep to>");
        r.step = ParseInt64(el.attrs.count("step") ? el.attrs.at("step") : "1", "<timestep step>");
        Check(r.step > 0 && r.to >= r.from, ErrorCode::kInvalidArgument, "bad <timestep> range");
        ranges.push_back(r);
      }
    } else if (el.name == "field") {
      std::string spec = (el.attrs.count("name") ? el.attrs.at("name") : "") + " " +
                         (el.attrs.count("dtype") ? el.attrs.at("dtype") : "");
      Field f = Field::Parse(spec, h.version == 0 ? 6 : h.version);
      auto attr = [&](const char* k) { return el.attrs.count(k) ? el.attrs.at(k) : std::string(); };
      f.compression = attr("default_compression");
      std::string layout = attr("default_layout");
      f.hz_layout = layout == "0" || layout.find("hz") != std::string::npos;
      if (!attr("default_value").empty()) f.default_value = static_cast<int64_t>(ParseDouble(attr("default_value"), "default_value"));
      f.filter = attr("filter");
      f.description = attr("description");
      if (!attr("min").empty()) f.min = Doubles(attr("min"), "field min");
      if (!attr("max").empty()) f.max = Doubles(attr("max"), "field max");
      h.fields.push_back(std::move(f));
    }
  }
  Check(saw_idxfile, ErrorCode::kInvalidArgument, "XML document has no <idxfile> element");
  Check(!h.bitmask.text().empty(), ErrorCode::kInvalidArgument, "XML header has no <bitmask>");
  const int dims = h.bitmask.dims();
  Check(box_values.size() >= 2 * static_cast<size_t>(dims), ErrorCode::kInvalidArgument,
        "XML <box> needs " + std::to_string(2 * dims) + " values");
  h.box = Box(Point(dims), Point(dims));
  for (int d = 0; d < dims; ++d) {  // XML boxes have exclusive upper bounds
    h.box.p1[d] = box_values[2 * static_cast<size_t>(d)];
    h.box.p2[d] = box_values[2 * static_cast<size_t>(d) + 1];
  }
  h.time.ranges = ranges;
  h.has_time = !h.time.tmpl.empty() || ranges.size() > 1 || (ranges.size() == 1 && ranges[0].from != 0);
  return h;
}

std::string IdxHeader::ToXml(const std::string& name) const {
  auto v = [](const std::string& tag, const std::string& value) {
    return "\t\t<" + tag + " value=\"" + XmlEscape(value) + "\" />\n";
  };
  std::string box_text;
  for (int d = 0; d < dims(); ++d)
    box_text += (d ? " " : "") + std::to_string(box.p1[d]) + " " + std::to_string(box.p2[d]);
  std::string s = "<dataset name=\"" + XmlEscape(name) +
                  "\" url=\"$(protocol)://$(hostname):$(port)/mod_visus?action=readdataset&amp;dataset=" +
                  XmlEscape(name) + "\" permissions=\"public\" typename=\"IdxDataset\">\n\t<idxfile>\n";
  s += v("version", std::to_string(version));
  s += v("bitmask", bitmask.text());
  s += v("box", box_text);
  if (!physic_box.empty()) {
    std::string pb;
    for (size_t i = 0; i < physic_box.size(); ++i) pb += (i ? " " : "") + FormatShortest(physic_box[i]);
    s += v("physic_box", pb);
  }
  s += v("bitsperblock", std::to_string(bits_per_block));
  s += v("blocksperfile", std::to_string(blocks_per_file));
  s += v("block_interleaving", std::to_string(interleave));
  s += v("filename_template", filename_template);
  s += v("missing_blocks", missing_blocks ? "True" : "False");
  s += v("arco", std::to_string(arco));
  s += v("time_template", time.tmpl);
  s += v("axis", axis);
  for (const Field& f : fields) {
    s += "\t\t<field name=\"" + XmlEscape(f.name) + "\" description=\"" + XmlEscape(f.description) +
         "\" index=\"\" default_compression=\"" + XmlEscape(f.compression) + "\" default_layout=\"" +
         (f.hz_layout ? "hzorder" : "") + "\" default_value=\"" + std::to_string(f.default_value) +
         "\" filter=\"" + XmlEscape(f.filter) + "\" dtype=\"" + f.dtype.ToString() + "\" />\n";
  }
  if (time.ranges.empty()) s += "\t\t<timestep when=\"" + std::to_string(time.Default()) + "\" />\n";
  for (const TimeRange& r : time.ranges) {
    if (r.from == r.to) s += "\t\t<timestep when=\"" + std::to_string(r.from) + "\" />\n";
    else s += "\t\t<timestep from=\"" + std::to_string(r.from) + "\" to=\"" + std::to_string(r.to) +
              "\" step=\"" + std::to_string(r.step) + "\" />\n";
  }
  for (const auto& [k, val] : metadata)
    s += "\t\t<metadata key=\"" + XmlEscape(k) + "\" value=\"" + XmlEscape(val) + "\" />\n";
  s += "\t</idxfile>\n</dataset>\n";
  return s;
}

}  // namespace hzio
