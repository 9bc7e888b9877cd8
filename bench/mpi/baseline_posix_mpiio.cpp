// Baselines: file-per-process POSIX (one file per rank, one vectored write) and MPI-IO collective
// to one shared file (one global array per field, subarray file views, write_all/read_all).
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <vector>

#include "s3d_case.h"

namespace hzio_bench {

namespace {

std::string RankFile(const std::string& dir, int rank) { return dir + "/fpp_" + std::to_string(rank) + ".bin"; }

// Subarray of this rank's box in a global (z, y, x, c) array of the case's elements.
MPI_Datatype FileType(const S3dCase& c, int comps) {
  const int sizes[4] = {static_cast<int>(c.domain.p2[2]), static_cast<int>(c.domain.p2[1]),
                        static_cast<int>(c.domain.p2[0]), comps};
  const hzio::Point s = c.mine.Size();
  const int sub[4] = {static_cast<int>(s[2]), static_cast<int>(s[1]), static_cast<int>(s[0]), comps};
  const int start[4] = {static_cast<int>(c.mine.p1[2]), static_cast<int>(c.mine.p1[1]), static_cast<int>(c.mine.p1[0]), 0};
  MPI_Datatype t;
  MPI_Type_create_subarray(4, sizes, sub, start, MPI_ORDER_C, c.Element(), &t);
  MPI_Type_commit(&t);
  return t;
}

// One vectored call per file, continued where it stopped: Linux moves at most 2 GiB - 4 KiB per
// read/write call, so a rank's 2 GiB (256^3 x 16 float64) takes two. (hzio's own twin with errors and
// crash points is storage/block_file_write.cpp's WriteVectorAt; a baseline stays plain POSIX.)
template <class Call>
bool TransferAll(int fd, std::vector<iovec> iov, Call call) {
  size_t first = 0;
  while (first < iov.size()) {
    const ssize_t n = call(fd, iov.data() + first, static_cast<int>(iov.size() - first));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    size_t done = static_cast<size_t>(n);
    while (first < iov.size() && done >= iov[first].iov_len) done -= iov[first++].iov_len;
    if (first < iov.size()) {
      iov[first].iov_base = static_cast<uint8_t*>(iov[first].iov_base) + done;
      iov[first].iov_len -= done;
    }
  }
  return true;
}

}  // namespace

void WriteOwnFile(const std::string& path, const std::vector<std::vector<uint8_t>>& parts, bool durable) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  std::vector<iovec> iov;
  for (const auto& d : parts) iov.push_back(iovec{const_cast<uint8_t*>(d.data()), d.size()});
  const bool ok = TransferAll(fd, std::move(iov), ::writev);
  const bool synced = !ok || !durable || ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw std::runtime_error("short write " + path);
  if (!synced) throw std::runtime_error("fsync failed: " + path);
}

void ReadOwnFile(const std::string& path, std::vector<std::vector<uint8_t>>& parts) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  std::vector<iovec> iov;
  for (auto& d : parts) iov.push_back(iovec{d.data(), d.size()});
  const bool ok = TransferAll(fd, std::move(iov), ::readv);
  ::close(fd);
  if (!ok) throw std::runtime_error("short read " + path);
}

void WriteFilePerProcess(const S3dCase& c, const std::string& dir) { WriteOwnFile(RankFile(dir, c.rank), c.data, c.durable); }

void ReadFilePerProcess(const S3dCase& c, const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  ReadOwnFile(RankFile(dir, c.rank), out);
}

void WriteMpiIo(const S3dCase& c, const std::string& dir) {
  MPI_File fh;
  const std::string path = dir + "/mpiio.bin";
  if (MPI_File_open(c.comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    throw std::runtime_error("MPI_File_open " + path);
  MPI_Offset disp = 0;
  for (size_t f = 0; f < c.fields.size(); ++f) {
    const int comps = c.fields[f].dtype.components();
    MPI_Datatype t = FileType(c, comps);
    MPI_File_set_view(fh, disp, c.Element(), t, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, c.data[f].data(), static_cast<int>(c.data[f].size() / c.ElementBytes()), c.Element(),
                       MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    disp += c.domain.Size().Product() * comps * c.ElementBytes();
  }
  if (c.durable) MPI_File_sync(fh);  // collective
  MPI_File_close(&fh);
}

void ReadMpiIo(const S3dCase& c, const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  MPI_File fh;
  const std::string path = dir + "/mpiio.bin";
  if (MPI_File_open(c.comm, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    throw std::runtime_error("MPI_File_open " + path);
  MPI_Offset disp = 0;
  for (size_t f = 0; f < c.fields.size(); ++f) {
    const int comps = c.fields[f].dtype.components();
    MPI_Datatype t = FileType(c, comps);
    MPI_File_set_view(fh, disp, c.Element(), t, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, out[f].data(), static_cast<int>(out[f].size() / c.ElementBytes()), c.Element(),
                      MPI_STATUS_IGNORE);
    MPI_Type_free(&t);
    disp += c.domain.Size().Product() * comps * c.ElementBytes();
  }
  MPI_File_close(&fh);
}

}  // namespace hzio_bench
