#include "args.h"

#include "hzio/mpi/node_share.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio_mpi_tool {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& valued, const std::set<std::string>& flags) {
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      positional_.push_back(a);
      continue;
    }
    const std::string name = a.substr(2);
    if (flags.count(name)) {
      values_[name] = "1";
    } else if (valued.count(name)) {
      hzio::Check(i + 1 < argc, hzio::ErrorCode::kInvalidArgument, "option " + a + " needs a value");
      values_[name] = argv[++i];
    } else {
      throw hzio::Error(hzio::ErrorCode::kInvalidArgument, "unknown option " + a);
    }
  }
}

std::string Args::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long long Args::GetInt(const std::string& name, long long fallback) const {
  return Has(name) ? hzio::ParseInt64(Get(name), "--" + name) : fallback;
}

int ThreadsOption(const Args& args) { return hzio::mpi::CheckThreadsOption(args.GetInt("threads", 0), "--threads"); }

}  // namespace hzio_mpi_tool
