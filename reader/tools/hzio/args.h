/// A small option parser for the `hzio` subcommands (design.md §3): `--name value`,
/// `--name=value`, flags, repeatable options, positionals and `--help`. Every mistake becomes a
/// UsageError naming the option, which main() turns into exit status 2.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hzio::cli {

/// A command-line mistake (unknown option, missing or malformed value): exit status 2.
class UsageError : public std::runtime_error {
 public:
  UsageError(const std::string& command, const std::string& message)
      : std::runtime_error(message), command_(command) {}
  const std::string& command() const { return command_; }

 private:
  std::string command_;
};

class Args {
 public:
  /// `usage` is the full --help text of the command.
  Args(std::string command, std::string usage);

  /// Declares `--name` taking a value; `short_name` is an optional one-letter alias ("-o").
  Args& Option(const std::string& name, const std::string& short_name = "", bool repeatable = false);
  /// Declares `--name` without a value.
  Args& Flag(const std::string& name);

  /// Parses argv[1..] (argv[0] is the command name). Returns false after printing the help to
  /// stdout when --help/-h was given. Positionals must number in [min_positional, max_positional].
  bool Parse(int argc, char** argv, size_t min_positional, size_t max_positional,
             const std::string& positional_names);

  bool Has(const std::string& name) const;
  std::optional<std::string> Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
  std::optional<int64_t> GetInt(const std::string& name, int64_t min, int64_t max) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  /// A UsageError for this command.
  UsageError Usage(const std::string& message) const { return UsageError(command_, message); }
  const std::string& command() const { return command_; }

 private:
  struct Spec {
    bool takes_value = true;
    bool repeatable = false;
  };
  std::string command_, usage_;
  std::map<std::string, Spec> specs_;
  std::map<std::string, std::string> short_names_;  // "-o" -> "--output"
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
};

}  // namespace hzio::cli
