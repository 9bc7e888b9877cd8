#include "hzio/access/arco_parts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "hzio/format/arco_block_path.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

constexpr char kPrevious[] = ".hzio-prev";

// The directory at `path` opened for openat(), or an invalid fd when nothing is there.
ScopedFd OpenDirectoryIfExists(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) return ScopedFd(fd);
  if (errno == ENOENT) return ScopedFd();
  if (errno == ENOTDIR) throw Error(ErrorCode::kIo, path + ": not a directory (an ARCO part directory was expected)");
  throw OsError(path, "cannot open directory");
}

}  // namespace

std::string ArcoRoot(const std::string& idx_path) {
  return std::filesystem::path(idx_path).replace_extension().string();
}

// ArcoBlockPath's last four components are the block's; the two before them, the part's.
std::string ArcoPartDirectory(const std::string& root, int64_t time, const std::string& field_name) {
  std::string path = ArcoBlockPath(root, time, field_name, 0);
  for (int i = 0; i < 4; ++i) path.resize(path.rfind('/'));
  return path;
}

std::string ArcoBlockInPart(uint64_t block) {
  const std::string path = ArcoBlockPath("", 0, "", block);
  size_t at = path.size();
  for (int i = 0; i < 4; ++i) at = path.rfind('/', at - 1);
  return path.substr(at + 1);
}

std::string ArcoPreviousName(const std::string& part_dir) { return part_dir + kPrevious; }

int64_t ReadPartGeneration(int dir_fd, const std::string& dir_path) {
  const std::string path = dir_path + "/" + kArcoGenerationFile;
  const int fd = ::openat(dir_fd, kArcoGenerationFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return 1;
    throw OsError(path, "cannot open");
  }
  ScopedFd file(fd);
  char text[32];
  ssize_t n;
  do {
    n = ::pread(fd, text, sizeof text - 1, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) throw OsError(path, "cannot read");
  try {
    const int64_t g = ParseInt64(Trim(std::string(text, static_cast<size_t>(n))), path);
    if (g >= 1) return g;
  } catch (const Error&) {
  }
  throw Error(ErrorCode::kCorrupt, path + ": not a generation number (hzio writes one integer >= 1 there)");
}

OpenedPart OpenArcoPart(const std::string& part_dir, int64_t generation) {
  OpenedPart part{OpenDirectoryIfExists(part_dir), part_dir};
  if (part.fd.valid() && ReadPartGeneration(part.fd.get(), part_dir) <= generation) return part;
  // Missing, or a newer version being switched in: the version we read may sit at the previous
  // name until its commit removes it.
  OpenedPart previous{OpenDirectoryIfExists(ArcoPreviousName(part_dir)), ArcoPreviousName(part_dir)};
  if (previous.fd.valid() && ReadPartGeneration(previous.fd.get(), previous.path) <= generation) return previous;
  return OpenedPart{ScopedFd(), part_dir};
}

}  // namespace hzio
