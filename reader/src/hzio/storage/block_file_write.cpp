#include "hzio/storage/block_file_write.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <utility>

#include "hzio/storage/durable_file.h"
#include "hzio/storage/file.h"
#include "hzio/storage/staged_file_write.h"

namespace hzio {

bool WriteWholeFile(const std::string& path, const std::vector<ByteSpan>& pieces, bool sync, DirectIo direct) {
  std::vector<StagedSpan> staged;
  staged.reserve(pieces.size());
  for (const ByteSpan& p : pieces) staged.push_back(StagedSpan{p, -1});
  StagedFileWrite write(path, std::move(staged), sync, direct);
  return write.Finish();
}

void WriteIntoFile(const std::string& path, const std::vector<PlacedSpan>& pieces, int64_t final_size, bool sync,
                   WriteSourceMap* sources) {
  MakeParentDirectories(path);
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) throw OsError(path, "cannot open for writing");
  // Pieces that follow each other in the file go out in one vectored write.
  for (size_t i = 0; i < pieces.size();) {
    std::vector<iovec> iov;
    int64_t end = pieces[i].offset;
    size_t j = i;
    for (; j < pieces.size() && pieces[j].offset == end; ++j) {
      if (pieces[j].bytes.size > 0)
        iov.push_back(iovec{const_cast<uint8_t*>(pieces[j].bytes.data), static_cast<size_t>(pieces[j].bytes.size)});
      end += pieces[j].bytes.size;
    }
    WriteVectorAt(fd.get(), iov, static_cast<uint64_t>(pieces[i].offset), path, sources);
    i = j;
  }
  if (final_size >= 0 && ::ftruncate(fd.get(), static_cast<off_t>(final_size)) != 0)
    throw OsError(path, "cannot set the size of");
  if (sync && ::fsync(fd.get()) != 0) throw OsError(path, "cannot fsync");
  if (::close(fd.Release()) != 0) throw OsError(path, "cannot close");
}

}  // namespace hzio
