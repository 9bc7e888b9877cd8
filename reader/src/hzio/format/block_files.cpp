#include "hzio/format/block_files.h"

#include <algorithm>
#include <cctype>

#include "hzio/format/printf_template.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {

struct Group {
  size_t start, end;  // [start, end) of "%0Nx" in the template
  int digits;
};

std::vector<Group> FindGroups(const std::string& tmpl) {
  std::vector<Group> groups;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '%') continue;
    Check(i + 3 < tmpl.size() + 0 && tmpl[i + 1] == '0' && std::isdigit(static_cast<unsigned char>(tmpl[i + 2])) &&
              tmpl[i + 3] == 'x' && tmpl[i + 2] != '0',
          ErrorCode::kInvalidArgument,
          "filename template '" + tmpl + "': every block group must be %0Nx with one digit N");
    groups.push_back(Group{i, i + 4, tmpl[i + 2] - '0'});
    i += 3;
  }
  return groups;
}

std::string Hex(uint64_t v, int width) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(static_cast<size_t>(width), '0');
  for (int i = width - 1; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = kDigits[v & 15];
  return s;
}

}  // namespace

std::string ExpandFilenameTemplate(const std::string& tmpl, uint64_t first_block,
                                   const std::string& time_text) {
  std::vector<Group> groups = FindGroups(tmpl);
  if (groups.empty()) return tmpl;
  uint64_t addr = first_block;
  std::string out;
  size_t rest_end = tmpl.size();
  for (size_t g = groups.size(); g-- > 0;) {
    const int n = groups[g].digits;
    const uint64_t mask = n >= 16 ? ~uint64_t{0} : (uint64_t{1} << (4 * n)) - 1;
    out = Hex(addr & mask, n) + tmpl.substr(groups[g].end, rest_end - groups[g].end) + out;
    addr = 4 * n >= 64 ? 0 : addr >> (4 * n);
    rest_end = groups[g].start;
  }
  const int nl = groups.front().digits;
  const uint64_t mask = (uint64_t{1} << (4 * nl)) - 1;
  while (addr != 0) {  // block number too large for the template: add directories
    out = Hex(addr & mask, nl) + "/" + out;
    addr >>= 4 * nl;
  }
  return tmpl.substr(0, rest_end) + time_text + out;
}

BlockFiles::BlockFiles(const IdxHeader& header, std::string idx_dir)
    : tmpl_(header.filename_template),
      time_(header.time),
      version_(header.version),
      bpf_(header.blocks_per_file),
      interleave_(header.interleave),
      idx_dir_(std::move(idx_dir)) {
  Check(bpf_ >= 1, ErrorCode::kInvalidArgument, "blocksperfile must be >= 1 after validation");
  // Reject malformed templates up front.
  if (version_ >= 5) (void)FindGroups(tmpl_);
  else CheckIntegerTemplate(tmpl_, "filename template");
}

int64_t BlockFiles::PositionInFile(uint64_t block) const {
  const uint64_t i = static_cast<uint64_t>(std::max<int64_t>(1, interleave_));
  return static_cast<int64_t>((block / i) % static_cast<uint64_t>(bpf_));
}

uint64_t BlockFiles::FirstBlockInFile(uint64_t block) const {
  const uint64_t i = static_cast<uint64_t>(std::max<int64_t>(1, interleave_));
  return block - i * static_cast<uint64_t>(PositionInFile(block));
}

std::string BlockFiles::FilePath(uint64_t block, int64_t time) const {
  const uint64_t first = FirstBlockInFile(block);
  std::string name;
  if (version_ >= 5) {
    name = ExpandFilenameTemplate(tmpl_, first, time_.Format(time));
  } else {  // §4.10: printf of the template with first(b); time text before the first '%'
    size_t pct = tmpl_.find('%');
    std::string prefix = pct == std::string::npos ? tmpl_ : tmpl_.substr(0, pct);
    std::string rest = pct == std::string::npos ? "" : tmpl_.substr(pct);
    name = prefix + time_.Format(time) + (rest.empty() ? "" : FormatIntegerTemplate(rest, static_cast<int64_t>(first)));
  }
  return ResolveTemplatePath(std::move(name), idx_dir_);
}

std::string ResolveTemplatePath(std::string name, const std::string& idx_dir) {
  const std::string kDirVar = "$(CurrentFileDirectory)";
  for (size_t at; (at = name.find(kDirVar)) != std::string::npos;) name.replace(at, kDirVar.size(), idx_dir);
  if (name.rfind("./", 0) == 0) name = idx_dir + name.substr(1);
  return name;
}

}  // namespace hzio
