#include "npy_output.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "hzio/mpi/collective.h"
#include "hzio/storage/durable_file.h"
#include "hzio/util/npy.h"

namespace hzio_mpi_tool {

using namespace hzio;
using namespace hzio::mpi;

namespace {

void FileCheck(int rc, const std::string& path, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(ErrorCode::kIo, path + ": " + what + ": " + std::string(text, static_cast<size_t>(length)));
}

}  // namespace

void WriteNpyCollectively(MPI_Comm comm, const std::string& path, const Grid& whole, const DType& dtype,
                          const BoxData* piece) {
  const int rank = CommRank(comm), dims = whole.dims();
  const std::string header = EncodeNpyHeader(dtype.NumpyDescr(), DimsToNpyShape(whole.count, dtype.components()));
  const int64_t sample_bytes = dtype.SampleBytes();
  std::string temporary = rank == 0 ? path + ".tmp." + std::to_string(::getpid()) : std::string();
  temporary = BroadcastText(comm, temporary, nullptr);

  // This rank's piece as a subarray of the whole grid (slowest axis first, samples as elements).
  MPI_Datatype sample = MPI_DATATYPE_NULL, cells = MPI_DATATYPE_NULL;
  std::exception_ptr error;
  try {
    if (piece && piece->grid.NumSamples() > 0) {
      std::vector<int> sizes, subsizes, starts;
      for (int d = dims - 1; d >= 0; --d) {
        const int64_t at = (piece->grid.origin[d] - whole.origin[d]) / whole.stride[d];
        Check(piece->grid.stride[d] == whole.stride[d] && at >= 0 && at + piece->grid.count[d] <= whole.count[d],
              ErrorCode::kInternal, path + ": a rank's piece is not a cell of the whole result grid");
        sizes.push_back(CheckedInt(whole.count[d], "npy axis"));
        subsizes.push_back(CheckedInt(piece->grid.count[d], "npy piece axis"));
        starts.push_back(CheckedInt(at, "npy piece start"));
      }
      MpiCheck(MPI_Type_contiguous(CheckedInt(sample_bytes, "sample bytes"), MPI_BYTE, &sample), "MPI_Type_contiguous");
      MpiCheck(MPI_Type_create_subarray(dims, sizes.data(), subsizes.data(), starts.data(), MPI_ORDER_C, sample, &cells),
               "MPI_Type_create_subarray");
      MpiCheck(MPI_Type_commit(&cells), "MPI_Type_commit");
    }
  } catch (...) {
    error = std::current_exception();
  }
  Agree(comm, error);

  MPI_File file = MPI_FILE_NULL;
  const int64_t total = static_cast<int64_t>(header.size()) + whole.NumSamples() * sample_bytes;
  error = nullptr;
  try {
    FileCheck(MPI_File_open(comm, temporary.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file),
              temporary, "cannot create");
  } catch (...) {
    error = std::current_exception();
  }
  Agree(comm, error);  // MPI_File_open is collective: it failed everywhere or nowhere
  try {
    FileCheck(MPI_File_set_size(file, total), temporary, "cannot size");
    if (rank == 0)
      FileCheck(MPI_File_write_at(file, 0, header.data(), CheckedInt(static_cast<int64_t>(header.size()), "npy header"),
                                  MPI_BYTE, MPI_STATUS_IGNORE),
                temporary, "cannot write the header");
    const bool mine = cells != MPI_DATATYPE_NULL;
    FileCheck(MPI_File_set_view(file, static_cast<MPI_Offset>(header.size()), MPI_BYTE, mine ? cells : MPI_BYTE,
                                "native", MPI_INFO_NULL),
              temporary, "cannot set the view");
    // Pieces over 2 GiB are written in several calls: the view places them.
    const int64_t bytes = mine ? piece->grid.NumSamples() * sample_bytes : 0;
    int64_t done = 0;
    const int64_t rounds_local = (bytes + kMaxTransferBytes - 1) / kMaxTransferBytes;
    int64_t rounds = rounds_local;
    MpiCheck(MPI_Allreduce(&rounds_local, &rounds, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce(rounds)");
    for (int64_t r = 0; r < rounds; ++r) {
      const int64_t n = std::min(kMaxTransferBytes, bytes - done);
      FileCheck(MPI_File_write_all(file, mine && n > 0 ? piece->bytes.data() + done : nullptr,
                                   CheckedInt(std::max<int64_t>(n, 0), "write"), MPI_BYTE, MPI_STATUS_IGNORE),
                temporary, "cannot write");
      done += std::max<int64_t>(n, 0);
    }
  } catch (...) {
    error = std::current_exception();
  }
  MPI_File_close(&file);
  if (cells != MPI_DATATYPE_NULL) MPI_Type_free(&cells);
  if (sample != MPI_DATATYPE_NULL) MPI_Type_free(&sample);
  try {
    Agree(comm, error);  // every rank's part is written, or the file is dropped
  } catch (...) {
    if (rank == 0) std::remove(temporary.c_str());
    throw;
  }
  std::exception_ptr published;
  if (rank == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) {
    published = std::make_exception_ptr(OsError(path, "cannot rename " + temporary + " to"));
    std::remove(temporary.c_str());
  }
  Agree(comm, published);
}

}  // namespace hzio_mpi_tool
