#include "s3d_case.h"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>

#include "hzio/util/decomposition.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/access/synthetic.h"

namespace hzio_bench {

void FsyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("cannot open " + path + " to fsync it");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw std::runtime_error("fsync failed: " + path);
}

int64_t S3dCase::LocalBytes() const {
  int64_t b = 0;
  for (const auto& d : data) b += static_cast<int64_t>(d.size());
  return b;
}

int64_t S3dCase::GlobalBytes() const {
  int64_t b = LocalBytes(), all = 0;
  MPI_Allreduce(&b, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  return all;
}

S3dCase MakeCase(MPI_Comm comm, int64_t per_rank, const std::string& kind) {
  if (kind != "s3d" && kind != "float32") throw std::runtime_error("--fields must be s3d or float32, not " + kind);
  S3dCase c;
  c.comm = comm;
  MPI_Comm_rank(comm, &c.rank);
  MPI_Comm_size(comm, &c.ranks);
  const hzio::Point grid = hzio::DefaultGrid(c.ranks, 3);
  c.domain = hzio::Box(hzio::Point{0, 0, 0}, hzio::Point{per_rank * grid[0], per_rank * grid[1], per_rank * grid[2]});
  c.mine = hzio::GridCell(c.domain, grid, c.rank);
  c.float32 = kind == "float32";
  c.fields = hzio::mpi::ParseFieldList(c.float32 ? "density:float32"
                                                 : "pressure:float64,temperature:float64,velocity:float64[3],species:float64[11]");
  for (size_t f = 0; f < c.fields.size(); ++f) {
    c.data.emplace_back(static_cast<size_t>(c.fields[f].dtype.BytesFor(c.mine.Size().Product())));
    hzio::FillSynthetic(c.fields[f].dtype, static_cast<int>(f), 0, hzio::DenseGrid(c.mine), c.data.back().data());
  }
  return c;
}

std::vector<Baseline> Baselines(bool control) {
  std::vector<Baseline> b{{"file-per-process", WriteFilePerProcess, ReadFilePerProcess},
                          {"mpi-io", WriteMpiIo, ReadMpiIo}};
  if (control) b.push_back({kControl, WriteFilePerProcess, ReadFilePerProcess});
#ifdef HZIO_BENCH_HDF5
  b.push_back({"hdf5", WriteHdf5, ReadHdf5});
#endif
#ifdef HZIO_BENCH_PNETCDF
  b.push_back({"pnetcdf", WritePnetcdf, ReadPnetcdf});
#endif
#ifdef HZIO_BENCH_PIDX
  b.push_back({"pidx", WritePidx, ReadPidx});
#endif
  return b;
}

}  // namespace hzio_bench
