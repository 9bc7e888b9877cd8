/* An S3D-like checkpoint and restart through hzio's C API (hzio_mpi.h).
 *
 * Every rank owns one box of a 3-D grid split PX x PY x PZ (--grid; remainders go to the first
 * boxes, so sizes that do not divide give uneven boxes). The checkpoint holds S3D's variables as
 * float64 (pressure, temperature, a velocity vector and 11 species) for two timesteps, each
 * sample the value of the formula of hzio's design.md §4, so a restart can check every sample
 * bit for bit: the restart reads the boxes of its own decomposition (run it with another rank
 * count than the write), all variables of a timestep in one collective read, at full resolution
 * and at a coarse level.
 *
 *   mpiexec -n 4 s3d_checkpoint ckpt/s3d.idx --dims 64,64,64 --phase write
 *   mpiexec -n 3 s3d_checkpoint ckpt/s3d.idx --phase restart
 *
 * Exit status: 0 when every sample read equals the formula, 1 on any mismatch, 2 on an error. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hzio_mpi.h"

enum { kFields = 4, kTimesteps = 2 };
static const char* const kNames[kFields] = {"pressure", "temperature", "velocity", "species"};
static const char* const kDTypes[kFields] = {"float64", "float64", "float64[3]", "float64[11]"};
static const int kComponents[kFields] = {1, 1, 3, 11};

/* design.md §4 for float64: s = x + 1000 y + 10^6 z, v = s + 0.125 c + 0.0625 f + 1e9 t. */
static double Formula(int f, int c, int64_t t, int64_t x, int64_t y, int64_t z) {
  const int64_t s = x + 1000 * y + 1000000 * z;
  return (double)s + 0.125 * c + 0.0625 * f + 1e9 * (double)t;
}

static int g_rank = 0;

/* Any hzio error ends the run: collective calls fail alike on every rank, local ones on this one. */
static void Check(hzio_status status, const char* what) {
  if (status == HZIO_OK) return;
  fprintf(stderr, "rank %d: %s failed (%s): %s\n", g_rank, what, hzio_status_name(status), hzio_last_error());
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void Usage(const char* message) {
  if (g_rank == 0)
    fprintf(stderr,
            "%s\nusage: s3d_checkpoint DATASET.idx [--dims X,Y,Z] [--grid PX,PY,PZ] [--phase write|restart|both]\n"
            "                      [--level H] [--one-phase] [--sync]\n",
            message);
  MPI_Finalize();
  exit(2);
}

static void ParseTriple(const char* text, int64_t out[3]) {
  long long a = 0, b = 0, c = 0;
  char end = 0;
  if (sscanf(text, "%lld,%lld,%lld%c", &a, &b, &c, &end) != 3 || a < 1 || b < 1 || c < 1)
    Usage("expected three positive integers X,Y,Z");
  out[0] = a, out[1] = b, out[2] = c;
}

/* Cell `index` (x fastest) of `dims` split into grid[d] parts per axis, remainders first. */
static void GridCell(const int64_t dims[3], const int64_t grid[3], int64_t index, int64_t offset[3], int64_t count[3]) {
  for (int d = 0; d < 3; ++d) {
    const int64_t i = index % grid[d], base = dims[d] / grid[d], extra = dims[d] % grid[d];
    index /= grid[d];
    count[d] = base + (i < extra ? 1 : 0);
    offset[d] = i * base + (i < extra ? i : extra);
  }
}

/* Samples of field f at timestep t on the lattice origin + k*stride (k < count), x fastest,
 * components contiguous: fills `data` (check == 0) or counts the samples that differ (check == 1). */
static int64_t Lattice(int f, int64_t t, const int64_t origin[3], const int64_t stride[3], const int64_t count[3],
                       double* data, int check) {
  int64_t i = 0, bad = 0;
  for (int64_t k = 0; k < count[2]; ++k)
    for (int64_t j = 0; j < count[1]; ++j)
      for (int64_t n = 0; n < count[0]; ++n)
        for (int c = 0; c < kComponents[f]; ++c, ++i) {
          const int64_t x = origin[0] + n * stride[0], y = origin[1] + j * stride[1], z = origin[2] + k * stride[2];
          const double want = Formula(f, c, t, x, y, z);
          if (!check) {
            data[i] = want;
          } else if (memcmp(&data[i], &want, sizeof want) != 0) {  /* bit-exact */
            if (bad++ == 0)
              fprintf(stderr, "rank %d: mismatch: %s t=%lld (%lld,%lld,%lld)[%d] is %.17g, not %.17g\n", g_rank,
                      kNames[f], (long long)t, (long long)x, (long long)y, (long long)z, c, data[i], want);
          }
        }
  return bad;
}

static void WriteCheckpoint(const char* path, const int64_t dims[3], const int64_t offset[3], const int64_t count[3],
                            int flags) {
  hzio_desc* desc = NULL;
  Check(hzio_desc_create(3, dims, &desc), "hzio_desc_create");
  for (int f = 0; f < kFields; ++f) Check(hzio_desc_add_field(desc, kNames[f], kDTypes[f]), "hzio_desc_add_field");
  Check(hzio_desc_set_timesteps(desc, 0, kTimesteps - 1), "hzio_desc_set_timesteps");

  hzio_writer* writer = NULL;
  Check(hzio_writer_create_mpi(MPI_COMM_WORLD, path, desc, HZIO_OVERWRITE | flags, &writer), "hzio_writer_create_mpi");
  Check(hzio_desc_free(desc), "hzio_desc_free");
  /* The writer keeps pointers, not copies: every array lives until the write returns. */
  double* arrays[kTimesteps][kFields];
  const int64_t unit[3] = {1, 1, 1}, samples = count[0] * count[1] * count[2];
  for (int t = 0; t < kTimesteps; ++t)
    for (int f = 0; f < kFields; ++f) {
      arrays[t][f] = malloc((size_t)(samples * kComponents[f]) * sizeof(double));
      if (arrays[t][f] == NULL) Check(HZIO_ERR_TOO_LARGE, "malloc");
      Lattice(f, t, offset, unit, count, arrays[t][f], 0);
      Check(hzio_writer_add(writer, kNames[f], t, offset, count, arrays[t][f]), "hzio_writer_add");
    }
  Check(hzio_writer_write(writer), "hzio_writer_write");
  hzio_io_stats stats;
  Check(hzio_writer_get_stats(writer, &stats), "hzio_writer_get_stats");
  Check(hzio_writer_free(writer), "hzio_writer_free");
  for (int t = 0; t < kTimesteps; ++t)
    for (int f = 0; f < kFields; ++f) free(arrays[t][f]);
  if (g_rank == 0)
    printf("checkpoint: %lld bytes in %.3f s (%.3f GiB/s), %lld aggregators\n", (long long)stats.data_bytes,
           stats.seconds, (double)stats.data_bytes / stats.seconds / (1 << 30), (long long)stats.aggregators);
}

/* Reads this rank's box of every variable of both timesteps at `level` and checks every sample.
 * Returns the number of samples that differ; adds the samples checked to *checked. */
static int64_t RestartAtLevel(hzio_reader* reader, int level, const int64_t offset[3], const int64_t count[3],
                              int64_t* checked) {
  int64_t origin[3], stride[3], n[3], bad = 0;
  Check(hzio_reader_query_grid(reader, offset, count, level, origin, stride, n), "hzio_reader_query_grid");
  const int64_t samples = n[0] * n[1] * n[2];  /* 0 when the box holds no sample of this level */
  for (int64_t t = 0; t < kTimesteps; ++t) {
    void* out[kFields];
    for (int f = 0; f < kFields; ++f) {
      out[f] = samples > 0 ? malloc((size_t)(samples * kComponents[f]) * sizeof(double)) : NULL;
      if (samples > 0 && out[f] == NULL) Check(HZIO_ERR_TOO_LARGE, "malloc");
    }
    /* One collective read of all variables (a rank without samples at this level still joins). */
    Check(hzio_reader_read_fields(reader, kFields, kNames, t, level, 1, offset, count, out), "hzio_reader_read_fields");
    for (int f = 0; f < kFields; ++f) {
      if (samples > 0) bad += Lattice(f, t, origin, stride, n, out[f], 1);
      *checked += samples * kComponents[f];
      free(out[f]);
    }
  }
  return bad;
}

static int Restart(const char* path, const int64_t grid[3], int level, int flags, int ranks) {
  hzio_reader* reader = NULL;
  Check(hzio_reader_open_mpi(MPI_COMM_WORLD, path, flags, &reader), "hzio_reader_open_mpi");
  /* What the checkpoint holds: its size, its variables and their types, its timesteps. */
  const hzio_desc* desc = NULL;
  int ndims = 0, maxh = 0;
  int64_t dims[HZIO_MAX_DIMS], times[kTimesteps], ntimes = 0;
  Check(hzio_reader_get_desc(reader, &desc), "hzio_reader_get_desc");
  Check(hzio_desc_get_dims(desc, &ndims, dims), "hzio_desc_get_dims");
  Check(hzio_desc_get_maxh(desc, &maxh), "hzio_desc_get_maxh");
  Check(hzio_desc_get_timesteps(desc, kTimesteps, times, &ntimes), "hzio_desc_get_timesteps");
  int64_t bad = 0;
  if (ndims != 3 || ntimes != kTimesteps || times[0] != 0 || times[1] != 1) {
    fprintf(stderr, "rank %d: the checkpoint has %d axes and %lld timesteps, not 3 and 0..1\n", g_rank, ndims,
            (long long)ntimes);
    bad = 1;
  }
  for (int f = 0; f < kFields; ++f) {
    int index = -1;
    const char* dtype = NULL;
    Check(hzio_desc_get_field_index(desc, kNames[f], &index), "hzio_desc_get_field_index");
    Check(hzio_desc_get_field(desc, index, NULL, &dtype, NULL, NULL), "hzio_desc_get_field");
    if (strcmp(dtype, kDTypes[f]) != 0) {
      fprintf(stderr, "rank %d: %s is %s, not %s\n", g_rank, kNames[f], dtype, kDTypes[f]);
      bad = 1;
    }
  }
  if (level < 0) level = maxh > 3 ? maxh - 3 : 0;  /* 1/8 of the samples */
  int64_t offset[3], count[3], checked = 0;
  GridCell(dims, grid, g_rank, offset, count);
  /* The header is the same on every rank, so all ranks take part in these collective reads or none. */
  if (bad == 0) {
    bad += RestartAtLevel(reader, HZIO_FULL_RESOLUTION, offset, count, &checked);
    bad += RestartAtLevel(reader, level, offset, count, &checked);
  }
  hzio_io_stats stats;
  Check(hzio_reader_get_stats(reader, &stats), "hzio_reader_get_stats");
  Check(hzio_reader_free(reader), "hzio_reader_free");

  int64_t totals[2] = {bad, checked}, sums[2];
  MPI_Allreduce(totals, sums, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    printf("restart: %d ranks (grid %lldx%lldx%lld), levels %d and %d: %lld values checked, %lld differ from the formula\n",
           ranks, (long long)grid[0], (long long)grid[1], (long long)grid[2], maxh, level, (long long)sums[1],
           (long long)sums[0]);
  return sums[0] == 0 && sums[1] > 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const char* path = NULL;
  const char* phase = "both";
  int64_t dims[3] = {64, 64, 64}, grid[3] = {0, 0, 0};
  int level = -1, read_flags = 0, write_flags = 0;
  for (int i = 1; i < argc; ++i) {
    const char* next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--dims") == 0 && next) ParseTriple(argv[++i], dims);
    else if (strcmp(argv[i], "--grid") == 0 && next) ParseTriple(argv[++i], grid);
    else if (strcmp(argv[i], "--phase") == 0 && next) phase = argv[++i];
    else if (strcmp(argv[i], "--level") == 0 && next) level = atoi(argv[++i]);
    else if (strcmp(argv[i], "--one-phase") == 0) read_flags |= HZIO_ONE_PHASE;
    else if (strcmp(argv[i], "--sync") == 0) write_flags |= HZIO_SYNC;
    else if (argv[i][0] != '-' && path == NULL) path = argv[i];
    else Usage("unknown or incomplete argument");
  }
  if (path == NULL) Usage("no DATASET.idx");
  if (strcmp(phase, "write") != 0 && strcmp(phase, "restart") != 0 && strcmp(phase, "both") != 0)
    Usage("--phase must be write, restart or both");
  if (grid[0] == 0) {  /* like S3D: the largest factors on the slowest axes */
    int factors[3] = {0, 0, 0};
    MPI_Dims_create(ranks, 3, factors);
    grid[0] = factors[2], grid[1] = factors[1], grid[2] = factors[0];
  }
  if (grid[0] * grid[1] * grid[2] != ranks) Usage("--grid must have one box per rank");

  int result = 0;
  if (strcmp(phase, "restart") != 0) {
    int64_t offset[3], count[3];
    GridCell(dims, grid, g_rank, offset, count);
    WriteCheckpoint(path, dims, offset, count, write_flags);
  }
  if (strcmp(phase, "write") != 0) result = Restart(path, grid, level, read_flags, ranks);
  MPI_Finalize();
  return result;
}
