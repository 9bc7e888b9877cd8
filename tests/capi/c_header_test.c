/* hzio.h and hzio_mpi.h compiled as C99 (-std=c99 -pedantic, warnings as errors): the headers are
 * valid C, and a C program round-trips a dataset through the serial handles and sees statuses and
 * messages. Exits non-zero on any failed check. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hzio.h"
#ifndef HZIO_C_HEADER_TEST_SERIAL
#include "hzio_mpi.h"
#endif

static int g_failures = 0;

static void Expect(int condition, const char* what) {
  if (condition) return;
  ++g_failures;
  fprintf(stderr, "FAILED: %s (last error: %s)\n", what, hzio_last_error());
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_header_test SCRATCH_DIR\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/c_header_test_out/dataset.idx", argv[1]);

  const int64_t size[2] = {6, 5}, offset[2] = {0, 0};
  hzio_desc* desc = NULL;
  Expect(hzio_desc_create(2, size, &desc) == HZIO_OK, "hzio_desc_create");
  Expect(hzio_desc_add_field(desc, "t", "int16") == HZIO_OK, "hzio_desc_add_field");
  Expect(hzio_desc_add_field(desc, "t", "int16") == HZIO_ERR_INVALID_ARGUMENT, "a second field 't' is refused");
  Expect(strstr(hzio_last_error(), "hzio_desc_add_field: a field named 't' exists already") != NULL, "its message");
  Expect(strcmp(hzio_status_name(HZIO_ERR_INVALID_ARGUMENT), "invalid_argument") == 0, "status name");

  int16_t data[30], back[30];
  for (int i = 0; i < 30; ++i) data[i] = (int16_t)(i * 1000 - 7);
  hzio_writer* writer = NULL;
  /* HZIO_UPDATE: a run after a run writes into the dataset the first one left. */
  Expect(hzio_writer_create(path, desc, HZIO_SYNC | HZIO_UPDATE, &writer) == HZIO_OK, "hzio_writer_create");
  Expect(hzio_writer_add(writer, "t", 0, offset, size, data) == HZIO_OK, "hzio_writer_add");
  Expect(hzio_writer_add(writer, "u", 0, offset, size, data) == HZIO_ERR_NOT_FOUND, "an unknown field is refused");
  Expect(hzio_writer_write(writer) == HZIO_OK, "hzio_writer_write");
  Expect(hzio_writer_free(writer) == HZIO_OK, "hzio_writer_free");
  Expect(hzio_desc_free(desc) == HZIO_OK, "hzio_desc_free");

  hzio_reader* reader = NULL;
  void* out[1] = {back};
  Expect(hzio_reader_open(path, 0, &reader) == HZIO_OK, "hzio_reader_open");
  Expect(hzio_reader_read(reader, "t", 0, HZIO_FULL_RESOLUTION, 1, offset, size, out) == HZIO_OK, "hzio_reader_read");
  Expect(memcmp(data, back, sizeof data) == 0, "the samples read back are the samples written");
  Expect(hzio_reader_read(reader, "t", 0, 99, 1, offset, size, out) == HZIO_ERR_OUT_OF_RANGE, "level 99 is refused");
  Expect(hzio_reader_free(reader) == HZIO_OK, "hzio_reader_free");

#ifndef HZIO_C_HEADER_TEST_SERIAL
  /* The collective entry points exist with C linkage (not called: no MPI_Init here). */
  hzio_status (*open_mpi)(MPI_Comm, const char*, int, hzio_reader**) = hzio_reader_open_mpi;
  Expect(open_mpi != NULL, "hzio_reader_open_mpi links");
  hzio_status (*create_mpi_info)(MPI_Comm, const char*, const hzio_desc*, int, MPI_Info, hzio_writer**) =
      hzio_writer_create_mpi_info;
  Expect(create_mpi_info != NULL, "hzio_writer_create_mpi_info links");
#endif
  if (g_failures == 0) printf("c_header_test: ok\n");
  return g_failures == 0 ? 0 : 1;
}
