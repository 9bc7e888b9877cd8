// Minimal `--name value` / `--flag` parser for hzio-mpi (design.md §3).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace hzio_mpi_tool {

class Args {
 public:
  /// `flags` take no value; every other `--name` takes one. Throws hzio::Error naming unknown options.
  Args(int argc, char** argv, int first, const std::set<std::string>& valued, const std::set<std::string>& flags);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name, const std::string& fallback = "") const;
  long long GetInt(const std::string& name, long long fallback) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
};

/// --threads N (0, the default: the CPUs a rank has), checked against 0..hzio::mpi::kMaxThreadsPerRank
/// here, where the value is still 64-bit.
int ThreadsOption(const Args& args);

}  // namespace hzio_mpi_tool
