/* Reads a dataset through an installed hzio's serial C API (hzio.h only, no MPI): prints its
 * grid and first sample. Built by find_package (hzio::c) and by pkg-config (hzio). */
#include <stdint.h>
#include <stdio.h>

#include "hzio.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  hzio_reader* reader = NULL;
  const hzio_desc* desc = NULL;
  int ndims = 0;
  int64_t size[HZIO_MAX_DIMS], offset[HZIO_MAX_DIMS] = {0};
  uint8_t data[16];
  void* out[1] = {data};
  if (hzio_reader_open(argv[1], 0, &reader) != HZIO_OK || hzio_reader_get_desc(reader, &desc) != HZIO_OK ||
      hzio_desc_get_dims(desc, &ndims, size) != HZIO_OK || ndims != 2 || size[0] * size[1] > 16 ||
      hzio_reader_read(reader, "v", 0, HZIO_FULL_RESOLUTION, 1, offset, size, out) != HZIO_OK) {
    fprintf(stderr, "%s\n", hzio_last_error());
    return 1;
  }
  printf("%lldx%lld %d\n", (long long)size[0], (long long)size[1], data[0]);
  hzio_reader_free(reader);
  return 0;
}
