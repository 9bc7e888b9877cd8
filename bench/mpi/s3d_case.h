// The S3D-IO-like case shared by every method of the benchmark: a global 3-D domain of
// `per_rank`^3 boxes on a rank grid, fields pressure, temperature, velocity[3], species[11]
// (float64), each rank holding its box of every field (row-major, components contiguous). Or
// (kind "float32") one float32 field, density, as a visualization dump would hold.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/format/field.h"
#include "hzio/util/box.h"

namespace hzio_bench {

struct S3dCase {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, ranks = 1;
  hzio::Box domain;                       // global
  hzio::Box mine;                         // this rank's box
  std::vector<hzio::Field> fields;
  std::vector<std::vector<uint8_t>> data; // per field, row-major over `mine`
  bool durable = false;                   // writes end with their files fsynced (--sync)
  bool float32 = false;                   // the samples are float32 (else float64)

  /// The MPI datatype and size of one sample component (every field has the same).
  MPI_Datatype Element() const { return float32 ? MPI_FLOAT : MPI_DOUBLE; }
  int ElementBytes() const { return float32 ? 4 : 8; }

  int64_t LocalBytes() const;
  int64_t GlobalBytes() const;
};

/// Builds the case: `per_rank` samples per axis per rank, the default rank grid; `kind` is "s3d"
/// (16 float64 values per sample) or "float32" (one float32 field). Every buffer is written
/// (pre-touched) here.
S3dCase MakeCase(MPI_Comm comm, int64_t per_rank, const std::string& kind = "s3d");

/// A baseline: write the case into `dir`, read it back into `out` (same shapes as case.data).
struct Baseline {
  std::string name;
  void (*write)(const S3dCase&, const std::string& dir);
  void (*read)(const S3dCase&, const std::string& dir, std::vector<std::vector<uint8_t>>& out);
};

/// The baselines built in. With `control`, file-per-process once more as "file-per-process again"
/// (kControl): the same method under a second name, so that a run shows how far two measurements
/// of one method differ here, the noise that every ratio of the run carries.
inline const char kControl[] = "file-per-process again";
std::vector<Baseline> Baselines(bool control = false);

/// For durable writes: fsyncs `path` (a rank's own file, or a shared one from rank 0 once the
/// collective close has returned everywhere).
void FsyncFile(const std::string& path);

/// A rank's own file: `parts` back to back, one vectored write (fsynced when `durable`), and read
/// back into `parts` with one vectored read. Throws naming the path.
void WriteOwnFile(const std::string& path, const std::vector<std::vector<uint8_t>>& parts, bool durable);
void ReadOwnFile(const std::string& path, std::vector<std::vector<uint8_t>>& parts);

// Individual baselines (each in its own file).
void WriteFilePerProcess(const S3dCase&, const std::string& dir);
void ReadFilePerProcess(const S3dCase&, const std::string& dir, std::vector<std::vector<uint8_t>>& out);
void WriteMpiIo(const S3dCase&, const std::string& dir);
void ReadMpiIo(const S3dCase&, const std::string& dir, std::vector<std::vector<uint8_t>>& out);
void WriteHdf5(const S3dCase&, const std::string& dir);
void ReadHdf5(const S3dCase&, const std::string& dir, std::vector<std::vector<uint8_t>>& out);
void WritePnetcdf(const S3dCase&, const std::string& dir);
void ReadPnetcdf(const S3dCase&, const std::string& dir, std::vector<std::vector<uint8_t>>& out);
void WritePidx(const S3dCase&, const std::string& dir);
void ReadPidx(const S3dCase&, const std::string& dir, std::vector<std::vector<uint8_t>>& out);

}  // namespace hzio_bench
