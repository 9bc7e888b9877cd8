// hzio_pidx_read_check: PIDX 0.9.3 reads a dataset `hzio-mpi write --pidx-compatible` wrote, as
// its S3D restart does (examples/grids/idx_checkpoint_restart.cpp: open, then every variable of a
// timestep through PIDX_get_next_variable / PIDX_variable_read_data_layout /
// PIDX_read_next_variable, the reads happening at PIDX_close), each rank its box of the domain,
// and every sample is compared with the synthetic formula hzio-mpi wrote (design.md §4). Built
// only when CMake is given -DPIDX_DIR=<a PIDX install built by hand> (bench/mpi/README.md).
//
//   mpiexec -n N hzio_pidx_read_check IN.idx [PX,PY,PZ]
//
// Prints one line on rank 0; exit status 0 only when every sample of every field and timestep
// equals the formula on every rank.
#include <mpi.h>

#include <PIDX.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "hzio/access/synthetic.h"
#include "hzio/format/idx_header.h"
#include "hzio/storage/file.h"
#include "hzio/util/decomposition.h"
#include "hzio/util/error.h"

namespace {

using namespace hzio;

void PidxCheck(PIDX_return_code code, const char* call, const std::string& where) {
  Check(code == PIDX_success, ErrorCode::kIo, where + ": " + call + " failed (PIDX code " + std::to_string(code) + ")");
}

std::string Stem(const std::string& idx_path) {
  const size_t slash = idx_path.find_last_of('/');
  std::string name = slash == std::string::npos ? idx_path : idx_path.substr(slash + 1);
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".idx") == 0 ? name.substr(0, name.size() - 4) : name;
}

struct Tally {
  int64_t samples = 0, wrong = 0;
};

// Reads every field of timestep `time` through PIDX into this rank's box and compares it with the
// formula; the first wrong sample is reported on stderr.
Tally CheckTimestep(const std::string& path, const IdxHeader& header, int64_t time, const Box& box, int rank) {
  PIDX_access access;
  PidxCheck(PIDX_create_access(&access), "PIDX_create_access", path);
  PidxCheck(PIDX_set_mpi_access(access, MPI_COMM_WORLD), "PIDX_set_mpi_access", path);
  PIDX_point dims, offset, size;
  PIDX_file file;
  PidxCheck(PIDX_file_open(path.c_str(), PIDX_MODE_RDONLY, access, dims, &file), "PIDX_file_open", path);
  PidxCheck(PIDX_set_current_time_step(file, static_cast<int>(time)), "PIDX_set_current_time_step", path);
  int count = 0;
  PidxCheck(PIDX_get_variable_count(file, &count), "PIDX_get_variable_count", path);
  Check(count == static_cast<int>(header.fields.size()), ErrorCode::kCorrupt,
        path + ": PIDX sees " + std::to_string(count) + " variables, the header has " +
            std::to_string(header.fields.size()));
  PIDX_set_point(offset, static_cast<uint64_t>(box.p1[0]), static_cast<uint64_t>(box.p1[1]),
                 static_cast<uint64_t>(box.p1[2]));
  const Point extent = box.Size();
  PIDX_set_point(size, static_cast<uint64_t>(extent[0]), static_cast<uint64_t>(extent[1]),
                 static_cast<uint64_t>(extent[2]));
  std::vector<std::vector<uint8_t>> data(header.fields.size());
  std::vector<PIDX_variable> variables(header.fields.size());
  for (size_t f = 0; f < header.fields.size(); ++f) {
    const DType& dtype = header.fields[f].dtype;
    PidxCheck(PIDX_get_next_variable(file, &variables[f]), "PIDX_get_next_variable", path);
    int values = 0, bits = 0;
    PidxCheck(PIDX_values_per_datatype(variables[f]->type_name, &values, &bits), "PIDX_values_per_datatype", path);
    Check(values == dtype.components() && bits == dtype.bits(), ErrorCode::kCorrupt,
          path + ": PIDX reads field '" + header.fields[f].name + "' as " + variables[f]->type_name + " (" +
              std::to_string(values) + " x " + std::to_string(bits) + " bits), the header says " + dtype.ToString());
    data[f].assign(static_cast<size_t>(dtype.BytesFor(extent.Product())), 0xA5);  // never the formula
    PidxCheck(PIDX_variable_read_data_layout(variables[f], offset, size, data[f].data(), PIDX_row_major),
              "PIDX_variable_read_data_layout", path);
    PidxCheck(PIDX_read_next_variable(file, variables[f]), "PIDX_read_next_variable", path);
  }
  PidxCheck(PIDX_close(file), "PIDX_close", path);  // the reads happen here
  PidxCheck(PIDX_close_access(access), "PIDX_close_access", path);

  Tally tally;
  for (size_t f = 0; f < header.fields.size(); ++f) {
    const DType& dtype = header.fields[f].dtype;
    std::vector<uint8_t> expected(data[f].size());
    FillSynthetic(dtype, static_cast<int>(f), time, DenseGrid(box), expected.data());
    const size_t sample = static_cast<size_t>(dtype.SampleBytes());
    for (size_t i = 0; i < expected.size(); i += sample) {
      ++tally.samples;
      if (std::memcmp(&expected[i], &data[f][i], sample) == 0) continue;
      if (tally.wrong++ == 0)
        std::fprintf(stderr, "rank %d: field '%s' time %" PRId64 ": sample %zu of box %s differs from the formula\n",
                     rank, header.fields[f].name.c_str(), time, i / sample, box.ToRangesString().c_str());
    }
  }
  return tally;
}

int Run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Check(argc == 2 || argc == 3, ErrorCode::kInvalidArgument, "usage: hzio_pidx_read_check IN.idx [PX,PY,PZ]");
  const std::string path = argv[1];
  const IdxHeader header = IdxHeader::Parse(ReadWholeFile(path), path, Stem(path));
  Check(header.dims() == 3, ErrorCode::kUnsupported, path + ": PIDX reads 3-D datasets only");
  const Point grid = argc == 3 ? ParseGrid(argv[2], 3) : DefaultGrid(ranks, 3);
  Check(grid.Product() == ranks, ErrorCode::kInvalidArgument, "grid " + grid.ToString() + " is not " +
                                                                  std::to_string(ranks) + " ranks");
  const Box box = RankPieces(header.box, grid, 1, rank).at(0);
  const double t0 = MPI_Wtime();
  Tally total;
  const std::vector<int64_t> times = header.time.List();
  for (int64_t t : times) {
    const Tally one = CheckTimestep(path, header, t, box, rank);
    total.samples += one.samples;
    total.wrong += one.wrong;
  }
  const double seconds = MPI_Wtime() - t0;
  int64_t sums[2] = {total.samples, total.wrong};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("PIDX 0.9.3 read %s at %d ranks (grid %s): %zu fields x %zu timesteps, %" PRId64
                " samples, %" PRId64 " differ from the formula (%.3f s): %s\n",
                path.c_str(), ranks, grid.ToString().c_str(), header.fields.size(), times.size(), sums[0], sums[1],
                seconds, sums[1] == 0 && sums[0] > 0 ? "OK" : "FAILED");
  return sums[1] == 0 && sums[0] > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    status = Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hzio_pidx_read_check: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}
