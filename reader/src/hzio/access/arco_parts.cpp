#include "hzio/access/arco_parts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "hzio/format/arco_paths.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

constexpr char kStaged[] = ".hzio-staged";
constexpr char kPrevious[] = ".hzio-prev";
constexpr char kTrash[] = ".hzio-trash";

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The directory at `path` opened for openat(), or an invalid fd when nothing is there.
ScopedFd OpenDirectoryIfExists(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) return ScopedFd(fd);
  if (errno == ENOENT) return ScopedFd();
  if (errno == ENOTDIR) throw Error(ErrorCode::kIo, path + ": not a directory (an ARCO part directory was expected)");
  throw OsError(path, "cannot open directory");
}

}  // namespace

std::string ArcoPartDirectory(const IdxHeader& header, const std::string& idx_path, int64_t time, int field) {
  return ArcoRoot(idx_path) + "/" + ArcoPartName(time, header.fields[static_cast<size_t>(field)].name);
}

std::string ArcoStagedName(const std::string& part_dir) { return part_dir + kStaged; }
std::string ArcoPreviousName(const std::string& part_dir) { return part_dir + kPrevious; }
std::string ArcoTrashName(const std::string& part_dir) { return part_dir + kTrash; }

bool IsArcoSwitchName(const std::string& name) {
  return EndsWith(name, kStaged) || EndsWith(name, kPrevious) || EndsWith(name, kTrash);
}

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

int64_t PartGenerationAt(const std::string& dir_path) {
  ScopedFd dir = OpenDirectoryIfExists(dir_path);
  return dir.valid() ? ReadPartGeneration(dir.get(), dir_path) : 0;
}

void WritePartGeneration(const std::string& dir_path, int64_t generation) {
  const std::string path = dir_path + "/" + kArcoGenerationFile;
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) throw OsError(path, "cannot create");
  const std::string text = std::to_string(generation) + "\n";
  WriteExactlyAt(fd.get(), reinterpret_cast<const uint8_t*>(text.data()), text.size(), 0, path);
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
