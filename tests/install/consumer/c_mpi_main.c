/* Writes a small dataset through an installed hzio's C API (collective writer) and reads it back
 * with the serial reader; prints the grid and one sample. Built by find_package (hzio::c) and by
 * pkg-config (hzio-mpi). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "hzio_mpi.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    if ((call) != HZIO_OK) {                                                     \
      fprintf(stderr, "%s failed: %s\n", #call, hzio_last_error());              \
      MPI_Abort(MPI_COMM_WORLD, 2);                                              \
    }                                                                            \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 2) return 2;
  const int64_t size[3] = {8, 8, 8}, offset[3] = {0, 0, 0};
  uint8_t data[512], back[512];
  for (int i = 0; i < 512; ++i) data[i] = (uint8_t)(i % 251);
  hzio_desc* desc = NULL;
  hzio_writer* writer = NULL;
  CHECK(hzio_desc_create(3, size, &desc));
  CHECK(hzio_desc_add_field(desc, "v", "uint8"));
  CHECK(hzio_writer_create_mpi(MPI_COMM_WORLD, argv[1], desc, HZIO_OVERWRITE, &writer));
  CHECK(hzio_writer_add(writer, "v", 0, offset, size, data));
  CHECK(hzio_writer_write(writer));
  CHECK(hzio_writer_free(writer));
  CHECK(hzio_desc_free(desc));
  hzio_reader* reader = NULL;
  void* out[1] = {back};
  int64_t n[3];
  CHECK(hzio_reader_open(argv[1], 0, &reader));
  CHECK(hzio_reader_query_grid(reader, offset, size, HZIO_FULL_RESOLUTION, NULL, NULL, n));
  CHECK(hzio_reader_read(reader, "v", 0, HZIO_FULL_RESOLUTION, 1, offset, size, out));
  CHECK(hzio_reader_free(reader));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("%lldx%lldx%lld %d\n", (long long)n[0], (long long)n[1], (long long)n[2], back[300]);
  MPI_Finalize();
  return 0;
}
