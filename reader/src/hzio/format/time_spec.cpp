#include "hzio/format/time_spec.h"

#include <cctype>

#include "hzio/format/printf_template.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

TimeSpec TimeSpec::Parse(const std::string& value) {
  TimeSpec spec;
  std::vector<std::string> tokens = SplitWhitespace(value);
  if (tokens.empty()) return spec;
  if (tokens[0] == "*") {
    spec.any = true;
    if (tokens.size() >= 3) spec.tmpl = tokens[2];
  } else if (std::isdigit(static_cast<unsigned char>(tokens[0][0])) || tokens[0][0] == '-') {
    Check(tokens.size() >= 2, ErrorCode::kInvalidArgument, "(time) '" + value + "': expected 'from to template'");
    TimeRange r{ParseInt64(tokens[0], "(time) from"), ParseInt64(tokens[1], "(time) to"), 1};
    Check(r.to >= r.from, ErrorCode::kInvalidArgument, "(time) '" + value + "': to < from");
    spec.ranges.push_back(r);
    if (tokens.size() >= 3) spec.tmpl = tokens[2];
  } else {
    spec.tmpl = tokens[0];
    for (size_t i = 1; i < tokens.size(); ++i) {
      std::string t = tokens[i];
      Check(t.size() >= 2 && t.front() == '(' && t.back() == ')', ErrorCode::kInvalidArgument,
            "(time) '" + value + "': expected (from,to,step) groups");
      std::vector<std::string> parts = Split(t.substr(1, t.size() - 2), ',');
      TimeRange r;
      r.from = ParseInt64(parts[0], "(time) from");
      r.to = parts.size() > 1 && !Trim(parts[1]).empty() ? ParseInt64(parts[1], "(time) to") : r.from;
      r.step = parts.size() > 2 && !Trim(parts[2]).empty() ? ParseInt64(parts[2], "(time) step") : 1;
      Check(r.step > 0 && r.to >= r.from, ErrorCode::kInvalidArgument, "(time) '" + value + "': bad range " + t);
      spec.ranges.push_back(r);
    }
  }
  CheckIntegerTemplate(spec.tmpl, "time template");
  return spec;
}

TimeSpec TimeSpec::Range(int64_t from, int64_t to, std::string tmpl) {
  TimeSpec spec;
  spec.tmpl = std::move(tmpl);
  spec.ranges.push_back(TimeRange{from, to, 1});
  CheckIntegerTemplate(spec.tmpl, "time template");
  return spec;
}

bool TimeSpec::Contains(int64_t t) const {
  if (any) return true;
  if (ranges.empty()) return t == 0;
  for (const TimeRange& r : ranges)
    if (t >= r.from && t <= r.to && (t - r.from) % r.step == 0) return true;
  return false;
}

int64_t TimeSpec::Default() const { return ranges.empty() ? 0 : ranges[0].from; }

std::vector<int64_t> TimeSpec::List(size_t limit) const {
  std::vector<int64_t> out;
  if (any || ranges.empty()) return {Default()};
  for (const TimeRange& r : ranges)
    for (int64_t t = r.from; t <= r.to && out.size() < limit; t += r.step) out.push_back(t);
  return out;
}

std::string TimeSpec::ToHeaderValue() const {
  if (any) return "* * " + tmpl;
  if (ranges.size() == 1 && ranges[0].step == 1)
    return std::to_string(ranges[0].from) + " " + std::to_string(ranges[0].to) + " " + tmpl;
  std::string s = tmpl;
  for (const TimeRange& r : ranges)
    s += " (" + std::to_string(r.from) + "," + std::to_string(r.to) + "," + std::to_string(r.step) + ")";
  return s;
}

std::string TimeSpec::Format(int64_t t) const {
  return FormatIntegerTemplate(tmpl, t);
}

}  // namespace hzio
