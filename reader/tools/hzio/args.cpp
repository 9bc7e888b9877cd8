#include "args.h"

#include <cstdio>

#include "hzio/util/strings.h"

namespace hzio::cli {

Args::Args(std::string command, std::string usage) : command_(std::move(command)), usage_(std::move(usage)) {}

Args& Args::Option(const std::string& name, const std::string& short_name, bool repeatable) {
  specs_[name] = Spec{true, repeatable};
  if (!short_name.empty()) short_names_[short_name] = name;
  return *this;
}

Args& Args::Flag(const std::string& name) {
  specs_[name] = Spec{false, false};
  return *this;
}

bool Args::Parse(int argc, char** argv, size_t min_positional, size_t max_positional,
                 const std::string& positional_names) {
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9')) {
      positionals_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage_.c_str(), stdout);
      return false;
    }
    std::optional<std::string> inline_value;
    const std::string typed = arg.substr(0, arg.find('='));  // errors name what the user wrote
    if (StartsWith(arg, "--")) {
      const size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
    } else if (auto it = short_names_.find(arg); it != short_names_.end()) {
      arg = it->second;
    }
    auto spec = specs_.find(arg);
    if (spec == specs_.end()) throw Usage("unknown option '" + arg + "'");
    std::string value;
    if (spec->second.takes_value) {
      if (inline_value) {
        value = *inline_value;
      } else {
        // A following option is never taken as a value ("--field --time 3" lacks the field).
        if (i + 1 >= argc || StartsWith(argv[i + 1], "--")) throw Usage("option '" + typed + "' needs a value");
        value = argv[++i];
      }
      if (value.empty()) throw Usage("option '" + typed + "' needs a non-empty value");
    } else if (inline_value) {
      throw Usage("option '" + typed + "' takes no value");
    }
    auto& slot = values_[arg];
    if (!slot.empty() && !spec->second.repeatable) throw Usage("option '" + arg + "' given more than once");
    slot.push_back(value);
  }
  if (positionals_.size() < min_positional || positionals_.size() > max_positional) {
    if (positionals_.size() > max_positional)
      throw Usage("unexpected argument '" + positionals_[max_positional] + "' (expected " + positional_names + ")");
    throw Usage("missing " + positional_names);
  }
  return true;
}

bool Args::Has(const std::string& name) const { return values_.count(name) != 0; }

std::optional<std::string> Args::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<int64_t> Args::GetInt(const std::string& name, int64_t min, int64_t max) const {
  std::optional<std::string> text = Get(name);
  if (!text) return std::nullopt;
  int64_t v = 0;
  try {
    v = ParseInt64(*text, name);
  } catch (const std::exception&) {
    throw Usage("option '" + name + "' expects an integer, got '" + *text + "'");
  }
  if (v < min || v > max)
    throw Usage("option '" + name + "' must be in " + std::to_string(min) + ".." + std::to_string(max) + ", got " +
                *text);
  return v;
}

}  // namespace hzio::cli
