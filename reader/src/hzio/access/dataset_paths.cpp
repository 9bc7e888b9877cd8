#include "hzio/access/dataset_paths.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "hzio/format/block_files.h"
#include "hzio/format/hzio_keys.h"
#include "hzio/hz/block_layout.h"
#include "hzio/util/error.h"

namespace hzio {

namespace fs = std::filesystem;

namespace {

constexpr char kDirVar[] = "$(CurrentFileDirectory)";

// The template cut before the file part: everything up to the last '/' before the first block
// group (the data directory as written), and the rest.
struct TemplateParts {
  std::string dir_text;   // "" when the template has no directory part
  std::string file_text;  // "%04x.bin", "%02x/%04x.bin", "visus_%04x.bin"
  std::string last;       // last component of dir_text ("visus"; "" when there is none)
  bool dedicated = false;
};

TemplateParts SplitTemplate(const std::string& tmpl) {
  TemplateParts p;
  const std::string prefix = tmpl.substr(0, tmpl.find('%'));
  const size_t slash = prefix.rfind('/');
  if (slash == std::string::npos) {
    p.file_text = tmpl;
  } else {
    p.dir_text = tmpl.substr(0, slash);
    p.file_text = tmpl.substr(slash + 1);
  }
  const size_t last_slash = p.dir_text.rfind('/');
  p.last = last_slash == std::string::npos ? p.dir_text : p.dir_text.substr(last_slash + 1);
  p.dedicated = !p.last.empty() && p.last != "." && p.last != ".." && p.last != kDirVar;
  return p;
}

std::string ResolveDirectory(const std::string& dir_text, const std::string& idx_dir) {
  if (dir_text.empty()) return ".";  // a template without "./" is relative to the working directory
  if (dir_text == ".") return idx_dir;
  return ResolveTemplatePath(dir_text, idx_dir);
}

std::string GenerationSuffix(int64_t n) { return ".g" + std::to_string(n); }

std::string BaseName(const TemplateParts& p, int64_t generation, const std::string& stem) {
  if (!p.dedicated) return stem;
  const std::string suffix = GenerationSuffix(generation);
  if (generation >= 2 && p.last.size() > suffix.size() &&
      p.last.compare(p.last.size() - suffix.size(), suffix.size(), suffix) == 0)
    return p.last.substr(0, p.last.size() - suffix.size());
  return p.last;
}

std::string RegexEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// A printf-like time template ("time_%04d/") as a pattern: literal text, one conversion
// (captured). Sets `hex` when the conversion is %x/%X.
std::string TimePattern(const std::string& tmpl, bool* hex) {
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '%') {
      out += RegexEscape(std::string(1, tmpl[i]));
      continue;
    }
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '%') {
      out += '%';
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < tmpl.size() && std::string("0123456789-").find(tmpl[j]) != std::string::npos) ++j;
    *hex = j < tmpl.size() && (tmpl[j] == 'x' || tmpl[j] == 'X');
    out += "([-0-9a-fA-F ]+)";
    i = j;
  }
  return out;
}

// Template text with each %0Nx group as N hex digits (a submatch each when `capture`).
std::string GroupsPattern(const std::string& text, bool capture) {
  std::string re;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 3 < text.size() && text[i + 3] == 'x') {
      const std::string digits = "[0-9a-f]{" + std::string(1, text[i + 2]) + "}";
      re += capture ? "(" + digits + ")" : digits;
      i += 3;
    } else {
      re += RegexEscape(std::string(1, text[i]));
    }
  }
  return re;
}

bool SameFile(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Whether `inner` is `outer` or lies below it (both canonical).
bool IsWithin(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

}  // namespace

std::string IdxDirectory(const std::string& idx_path) {
  const std::string d = fs::path(idx_path).parent_path().string();
  return d.empty() ? "." : d;
}

std::string IdxStemOf(const std::string& idx_path) { return fs::path(idx_path).stem().string(); }

DataDirectory DataDirectoryOf(const IdxHeader& header, const std::string& idx_path) {
  const TemplateParts p = SplitTemplate(header.filename_template);
  DataDirectory d;
  d.generation = Generation(header);
  d.dedicated = p.dedicated;
  d.path = ResolveDirectory(p.dir_text, IdxDirectory(idx_path));
  d.base_name = BaseName(p, d.generation, IdxStemOf(idx_path));
  return d;
}

IdxHeader WithGeneration(const IdxHeader& header, const std::string& idx_path, int64_t n) {
  const int64_t current = Generation(header);
  Check(n > current, ErrorCode::kInternal,
        "generation " + std::to_string(n) + " is not after " + std::to_string(current));
  const TemplateParts p = SplitTemplate(header.filename_template);
  const std::string base = BaseName(p, current, IdxStemOf(idx_path));
  std::string dir;
  if (p.dedicated) {
    const size_t slash = p.dir_text.rfind('/');
    dir = (slash == std::string::npos ? "" : p.dir_text.substr(0, slash + 1)) + base + GenerationSuffix(n);
  } else {
    dir = (p.dir_text == kDirVar ? std::string(kDirVar) + "/" : std::string("./")) + base + GenerationSuffix(n);
  }
  IdxHeader h = header;
  h.filename_template = dir + "/" + p.file_text;
  SetGeneration(h, n);
  return h;
}

std::vector<BlockFileRef> ReferencedFiles(const IdxHeader& header, const std::string& idx_path,
                                          const std::optional<std::vector<int64_t>>& times) {
  Check(times.has_value() || !header.time.any, ErrorCode::kUnsupported,
        idx_path + ": its timesteps are '* *' (any integer), so its block files cannot be listed");
  const BlockLayout layout(header.bitmask, header.bits_per_block);
  Check(layout.total_blocks() <= (uint64_t{1} << 24), ErrorCode::kTooLarge,
        idx_path + ": " + std::to_string(layout.total_blocks()) + " blocks are too many to list one by one");
  const BlockFiles files(header, IdxDirectory(idx_path));
  std::set<uint64_t> first_blocks;
  for (uint64_t b : layout.BlocksInRegion(header.box, LevelRange{0, layout.maxh()}))
    first_blocks.insert(files.FirstBlockInFile(b));
  std::vector<BlockFileRef> out;
  for (int64_t t : times ? *times : header.time.List())
    for (uint64_t first : first_blocks) out.push_back(BlockFileRef{first, t, files.FilePath(first, t)});
  return out;
}

BlockFileNames::BlockFileNames(const IdxHeader& header) : default_time_(header.time.Default()) {
  const TemplateParts p = SplitTemplate(header.filename_template);
  const size_t first = p.file_text.find('%');
  std::string re;
  if (first == std::string::npos) {
    re = RegexEscape(p.file_text);  // no block groups: one file, no time text (§4.4)
  } else {
    re = RegexEscape(p.file_text.substr(0, first));
    if (!header.time.tmpl.empty()) {
      re += TimePattern(header.time.tmpl, &hex_time_);
      has_time_ = true;
    }
    // Overflow directories (§4.4): as many as the block number needs, each as wide as the first
    // group; then the groups. Their hex digits, in order, spell the first block number.
    const std::string width(1, p.file_text[first + 2]);
    re += "((?:[0-9a-f]{" + width + "}/)*)";
    re += GroupsPattern(p.file_text.substr(first), /*capture=*/true);
  }
  pattern_ = std::regex(re, std::regex::ECMAScript | std::regex::optimize);
  // The last component alone.
  const size_t slash = p.file_text.rfind('/');
  const std::string last = p.file_text.substr(slash == std::string::npos ? 0 : slash + 1);
  file_name_ = std::regex(GroupsPattern(last, /*capture=*/false), std::regex::ECMAScript | std::regex::optimize);
}

bool BlockFileNames::LooksLikeBlockFile(const std::string& relative_path) const {
  return std::regex_match(fs::path(relative_path).filename().string(), file_name_);
}

bool BlockFileNames::Matches(const std::string& relative_path) const { return std::regex_match(relative_path, pattern_); }

std::optional<BlockFileNames::Id> BlockFileNames::Parse(const std::string& relative_path) const {
  std::smatch m;
  if (!std::regex_match(relative_path, m, pattern_)) return std::nullopt;
  Id id{0, default_time_};
  size_t next = 1;
  if (has_time_) {
    std::string t = m[next++].str();
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    try {
      id.time = std::stoll(t, nullptr, hex_time_ ? 16 : 10);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  std::string digits;
  for (; next < m.size(); ++next)
    for (char c : m[next].str())
      if (c != '/') digits += c;
  if (digits.size() > 16) return std::nullopt;
  id.first_block = digits.empty() ? 0 : std::stoull(digits, nullptr, 16);
  return id;
}

std::vector<BlockFileRef> ExistingBlockFiles(const IdxHeader& header, const std::string& idx_path,
                                             std::optional<int64_t> only_time) {
  const DataDirectory d = DataDirectoryOf(header, idx_path);
  std::vector<BlockFileRef> out;
  if (!d.dedicated) {
    // Files beside the .idx share their directory with anything: check the declared ones.
    std::optional<std::vector<int64_t>> times;
    if (only_time) times = std::vector<int64_t>{*only_time};
    for (BlockFileRef& f : ReferencedFiles(header, idx_path, times))
      if (fs::exists(f.path)) out.push_back(std::move(f));
    return out;
  }
  const BlockLayout layout(header.bitmask, header.bits_per_block);
  const BlockFiles files(header, IdxDirectory(idx_path));
  const BlockFileNames names(header);
  std::error_code ec;
  if (!fs::is_directory(d.path, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(d.path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || IsTemporaryName(it->path().filename().string())) continue;
    const std::optional<BlockFileNames::Id> id = names.Parse(fs::relative(it->path(), d.path).string());
    if (!id || !header.time.Contains(id->time) || (only_time && id->time != *only_time)) continue;
    if (id->first_block >= layout.total_blocks() || files.FirstBlockInFile(id->first_block) != id->first_block) continue;
    // The name the header gives that file: the one walked unless formatted differently ("3" for "03").
    std::string path = files.FilePath(id->first_block, id->time);
    if (fs::path(path).lexically_normal() != it->path().lexically_normal()) continue;
    out.push_back(BlockFileRef{id->first_block, id->time, std::move(path)});
  }
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw Error(ErrorCode::kIo, d.path + ": cannot list: " + ec.message());
  return out;
}

bool IsTemporaryName(const std::string& name) {
  static const std::regex tmp(R"(.*\.tmp\.[0-9]+)", std::regex::optimize);
  return name.find(".hzio-") != std::string::npos || std::regex_match(name, tmp);
}

void CheckNotPartOfDataset(const std::string& path, const IdxHeader& header, const std::string& idx_path) {
  std::error_code ec;
  const fs::path out = fs::weakly_canonical(fs::absolute(path, ec), ec);
  auto refuse = [&](const std::string& what) {
    throw Error(ErrorCode::kInvalidArgument, path + " is " + what + " of the dataset " + idx_path +
                                                 " being read; write the output somewhere else");
  };
  struct stat out_st {};
  const bool exists = ::stat(path.c_str(), &out_st) == 0;
  struct stat st {};
  for (const std::string& own : {idx_path, idx_path + ".lock"}) {
    if (fs::weakly_canonical(fs::absolute(own, ec), ec) == out) refuse(own == idx_path ? "the .idx" : "the lock file");
    if (exists && ::stat(own.c_str(), &st) == 0 && SameFile(st, out_st)) refuse("the .idx (another name of it)");
  }
  const DataDirectory data = DataDirectoryOf(header, idx_path);
  if (data.dedicated) {
    // The data directory, and any generation of it (an older one may still be read or removed).
    const fs::path dir = fs::weakly_canonical(fs::absolute(data.path, ec), ec);
    if (IsWithin(out, dir)) refuse("inside the data directory " + data.path);
    const fs::path parent = dir.parent_path();
    if (IsWithin(out, parent) && out != parent) {
      const std::string child = (*std::next(out.begin(), std::distance(parent.begin(), parent.end()))).string();
      static const std::regex generation(R"(\.g[0-9]+)");
      if (child == data.base_name ||
          (child.rfind(data.base_name, 0) == 0 && std::regex_match(child.substr(data.base_name.size()), generation)))
        refuse("inside a data directory generation (" + child + ")");
    }
  }
  // A block file name of the dataset (beside the .idx, where the directory is shared), or
  // another name of an existing block file.
  if (!data.dedicated) {
    const fs::path dir = fs::weakly_canonical(fs::absolute(data.path, ec), ec);
    if (IsWithin(out, dir) && BlockFileNames(header).Matches(out.lexically_relative(dir).string()))
      refuse("named like a block file");
  }
  if (exists && S_ISREG(out_st.st_mode) && out_st.st_nlink > 1) {
    for (const BlockFileRef& f : ExistingBlockFiles(header, idx_path))
      if (::stat(f.path.c_str(), &st) == 0 && SameFile(st, out_st)) refuse("a block file (another name of it)");
  }
}

}  // namespace hzio
