/* hzio.h: the C API of hzio (C99, usable from C++; the Fortran module `hzio` binds to it).
 *
 * hzio stores arrays in the IDX hierarchical-Z multiresolution format (byte-compatible with
 * OpenVisus and PIDX). This header covers what needs no MPI: dataset descriptions, a serial writer
 * and a serial reader (a local .idx path or an http(s) mod_visus URL). hzio_mpi.h adds the
 * collective writer and reader over MPI communicators; both kinds of handle are used through the
 * same functions below.
 *
 * Conventions
 *  - Every function returns an hzio_status: HZIO_OK (0) or one error code. After a failure,
 *    hzio_last_error() gives a message naming the function, the file and what was wrong.
 *    Output arguments are written only on success.
 *  - Handles are opaque. Whatever a create or open function makes, its free function releases;
 *    freeing NULL does nothing.
 *    A handle may be used by one thread at a time; errors are per thread.
 *  - Sizes, offsets and counts are int64_t. Boxes are given as `offset` (first sample, 0-based
 *    global sample coordinates) and `count` (samples per axis), x first (x varies fastest).
 *  - Arrays are row-major over their box with x fastest (a C array a[z][y][x], a Fortran array
 *    a(x,y,z)); the components of a vector dtype are contiguous (a[z][y][x][c], a(c,x,y,z)).
 *  - A level H means levels 0..H of the hierarchy; HZIO_FULL_RESOLUTION is the dataset's maxh.
 *  - Strings returned by the library belong to the handle they came from and stay valid until
 *    that handle is freed (or, for a description, modified).
 */
#ifndef HZIO_H
#define HZIO_H

#include <stdint.h>

#if defined(_WIN32)
#define HZIO_API
#elif defined(__GNUC__)
#define HZIO_API __attribute__((visibility("default")))
#else
#define HZIO_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ------------------------------------------------------------------------------- */

/* One code per hzio::ErrorCode (reader/src/hzio/util/error.h), same order, plus HZIO_OK. */
typedef int hzio_status;
enum {
  HZIO_OK = 0,
  HZIO_ERR_INVALID_ARGUMENT = 1, /* a malformed parameter, box, level, dtype or header value */
  HZIO_ERR_NOT_FOUND = 2,        /* unknown dataset, field or timestep; a missing file */
  HZIO_ERR_OUT_OF_RANGE = 3,     /* a box outside the dataset, a level above maxh */
  HZIO_ERR_CORRUPT = 4,          /* stored bytes that do not decode as the format says */
  HZIO_ERR_UNSUPPORTED = 5,      /* a valid feature hzio (or this kind of handle) does not do */
  HZIO_ERR_IO = 6,               /* the operating system refused a read or write */
  HZIO_ERR_TOO_LARGE = 7,        /* beyond a configured or sane limit, or out of memory */
  HZIO_ERR_UNAVAILABLE = 8,      /* a remote peer could not be reached or answered 5xx */
  HZIO_ERR_CHANGED = 9,          /* the dataset was committed anew while it was read: reopen it */
  HZIO_ERR_LOCKED = 10,          /* another writer holds the dataset's lock */
  HZIO_ERR_INTERNAL = 11         /* a bug in hzio */
};

/* The message of the last failed call on this thread ("" if none failed yet). Valid until the
 * next failing call on this thread. Never NULL. */
HZIO_API const char* hzio_last_error(void);

/* A short stable name for a status: "ok", "invalid_argument", "not_found", ... ("unknown" for a
 * value that is not a status). Never NULL. */
HZIO_API const char* hzio_status_name(hzio_status status);

/* Records `message` as this thread's last error and returns `status`: for bindings and wrappers
 * that check their own arguments (the Fortran module's contiguity check) and report alike. */
HZIO_API hzio_status hzio_fail(hzio_status status, const char* message);

/* The library version, e.g. "0.1.0". */
HZIO_API const char* hzio_version(void);

/* ---- constants ---------------------------------------------------------------------------- */

#define HZIO_MAX_DIMS 5
#define HZIO_FULL_RESOLUTION (-1) /* as a level: the dataset's maxh */

/* Block layouts (hzio_desc_set_layout). */
enum { HZIO_LAYOUT_HZ = 0, HZIO_LAYOUT_ROW_MAJOR = 1 };

/* Flags of writers and readers (bitwise or). */
enum {
  HZIO_OVERWRITE = 1, /* collective writers: replace a dataset already at the path */
  HZIO_SYNC = 2,      /* writers: fsync every block file before the .idx is written (checkpoints) */
  HZIO_UPDATE = 4,    /* serial writer: write into an existing dataset with the same geometry */
  HZIO_ONE_PHASE = 8, /* collective readers: every rank reads its own boxes (default two-phase) */
  HZIO_PIDX_COMPATIBLE = 16 /* collective writers: output PIDX 0.9.3 reads too (hzio_mpi.h) */
};

/* What a write or read moved (hzio_writer_get_stats, hzio_reader_get_stats). For collective
 * handles the values cover all ranks and are the same on every rank. */
typedef struct hzio_io_stats {
  double seconds;      /* wall time of the call (the slowest rank's) */
  int64_t data_bytes;  /* sample bytes of the boxes written or read */
  int64_t file_bytes;  /* bytes written to or read from block files; -1 where not measured */
  int64_t aggregators; /* ranks that wrote or read files (1 for serial handles) */
} hzio_io_stats;

/* ---- dataset descriptions ----------------------------------------------------------------- */

/* What a dataset holds: its size, fields, timesteps and storage options. Made by
 * hzio_desc_create to create a dataset, or borrowed from a reader or writer (those cannot be
 * changed or freed). */
typedef struct hzio_desc hzio_desc;

/* A description of a dataset of `ndims` (1..HZIO_MAX_DIMS) axes, size[d] samples on axis d (x
 * first), no fields yet, one timestep (0), hz-order blocks, raw (uncompressed) storage. */
HZIO_API hzio_status hzio_desc_create(int ndims, const int64_t* size, hzio_desc** desc);
HZIO_API hzio_status hzio_desc_free(hzio_desc* desc);

/* Adds a field. `dtype` is any IDX sample type: "float64", "float32", "int32", "uint8", a vector
 * "float64[3]" (or "3*float64"). Names must be unique and hold no spaces, brackets or '+'. */
HZIO_API hzio_status hzio_desc_add_field(hzio_desc* desc, const char* name, const char* dtype);
/* Declares the timesteps first..last (inclusive); each gets its own directory of block files. */
HZIO_API hzio_status hzio_desc_set_timesteps(hzio_desc* desc, int64_t first, int64_t last);
/* log2 of the samples per block (0 = hzio's default, min(maxh, 16)). */
HZIO_API hzio_status hzio_desc_set_bits_per_block(hzio_desc* desc, int bits);
/* Blocks per block file (0 = hzio's guess: files of at most 128 MiB of samples, and a collective
   writer also cuts them so that each rank writes files of its own; -1 = every block in one file). */
HZIO_API hzio_status hzio_desc_set_blocks_per_file(hzio_desc* desc, int64_t blocks);
/* Storage codec of `field`, or of every field (also those added later) when `field` is NULL:
 * "raw", "zip" (deflate level 1; "zip-Z_DEFAULT_COMPRESSION" and "zip-Z_BEST_COMPRESSION" exist
 * too) or "lz4". */
HZIO_API hzio_status hzio_desc_set_compression(hzio_desc* desc, const char* field, const char* compression);
/* Block layout (HZIO_LAYOUT_HZ or HZIO_LAYOUT_ROW_MAJOR) of `field`, or of every field when NULL.
 * The collective writer writes hz-order blocks only. */
HZIO_API hzio_status hzio_desc_set_layout(hzio_desc* desc, const char* field, int layout);

/* Queries (any description). `size` receives ndims values (room for HZIO_MAX_DIMS is enough). */
HZIO_API hzio_status hzio_desc_get_dims(const hzio_desc* desc, int* ndims, int64_t* size);
/* maxh: the finest level (the number of bits of the bitmask). */
HZIO_API hzio_status hzio_desc_get_maxh(const hzio_desc* desc, int* maxh);
HZIO_API hzio_status hzio_desc_get_bits_per_block(const hzio_desc* desc, int* bits);
HZIO_API hzio_status hzio_desc_get_blocks_per_file(const hzio_desc* desc, int64_t* blocks);
HZIO_API hzio_status hzio_desc_get_num_fields(const hzio_desc* desc, int* count);
/* The index (0-based, in declaration order) of the field named `name`; HZIO_ERR_NOT_FOUND if none. */
HZIO_API hzio_status hzio_desc_get_field_index(const hzio_desc* desc, const char* name, int* index);
/* Field `index`: its name, canonical dtype ("float64[3]"), components per sample and bytes per
 * sample (all components). Any output pointer may be NULL. */
HZIO_API hzio_status hzio_desc_get_field(const hzio_desc* desc, int index, const char** name, const char** dtype,
                                         int* components, int64_t* sample_bytes);
/* Field `index`'s storage codec ("raw", "zip", "lz4", ...). */
HZIO_API hzio_status hzio_desc_get_field_compression(const hzio_desc* desc, int index, const char** compression);
/* The declared timesteps in ascending order: `*count` receives how many there are, `times` the
 * first min(count, capacity) of them (`times` may be NULL when capacity is 0). */
HZIO_API hzio_status hzio_desc_get_timesteps(const hzio_desc* desc, int64_t capacity, int64_t* times, int64_t* count);

/* ---- writers ------------------------------------------------------------------------------ */

/* Writes one dataset: register boxes with hzio_writer_add (no copy is made: each array must stay
 * valid and unchanged until hzio_writer_write returns), then write them all at once. The .idx is
 * written last, so a failed write never leaves a dataset that looks complete. A writer writes
 * once; the next checkpoint takes a new writer. */
typedef struct hzio_writer hzio_writer;

/* A serial writer (no MPI) of a new dataset described by `desc` at `path` (a .idx file; its
 * directory is created). Flags: HZIO_SYNC, HZIO_UPDATE (the dataset may exist; its geometry and
 * fields must then equal `desc`'s). Fails with HZIO_ERR_INVALID_ARGUMENT if a dataset is at
 * `path` and HZIO_UPDATE is not given. Collective writers: hzio_mpi.h. */
HZIO_API hzio_status hzio_writer_create(const char* path, const hzio_desc* desc, int flags, hzio_writer** writer);
/* Collective writers: collective (the communicator is released). Serial writers that never
 * wrote leave no dataset behind. */
HZIO_API hzio_status hzio_writer_free(hzio_writer* writer);

/* Registers the box offset[0..ndims) + count[0..ndims) of `field` at timestep `time`, `data`
 * holding its samples in the field's dtype. The box must lie inside the dataset. Local. */
HZIO_API hzio_status hzio_writer_add(hzio_writer* writer, const char* field, int64_t time, const int64_t* offset,
                                     const int64_t* count, const void* data);
/* The same for an array that knows its shape (Fortran, numpy): `shape[0..rank)` are its extents,
 * fastest first, `element_bytes` the size of one element. Elements are components, with a
 * leading axis of the field's components (a(3,nx,ny,nz) for "float64[3]"; optional for scalars,
 * a(1,nx,ny,nz)), or whole samples. The box's count is the rest of the shape. A shape or element
 * size that does not fit the field's dtype is HZIO_ERR_INVALID_ARGUMENT. */
HZIO_API hzio_status hzio_writer_add_array(hzio_writer* writer, const char* field, int64_t time,
                                           const int64_t* offset, int rank, const int64_t* shape,
                                           int element_bytes, const void* data);
/* Writes every registered box, then the .idx. Collective for collective writers: every rank
 * calls it, and every rank gets the same status. */
HZIO_API hzio_status hzio_writer_write(hzio_writer* writer);

/* The description of the dataset being written (borrowed: valid while the writer lives). */
HZIO_API hzio_status hzio_writer_get_desc(const hzio_writer* writer, const hzio_desc** desc);
/* Statistics of hzio_writer_write (zeros before it). */
HZIO_API hzio_status hzio_writer_get_stats(const hzio_writer* writer, hzio_io_stats* stats);

/* ---- readers ------------------------------------------------------------------------------ */

/* Reads boxes of a dataset at any level into caller memory. */
typedef struct hzio_reader hzio_reader;

/* A serial reader of `path_or_url`: a .idx path or http(s)://HOST:PORT/mod_visus?dataset=NAME.
 * No flags are defined for serial readers yet (pass 0). A missing dataset is HZIO_ERR_NOT_FOUND.
 * Collective readers: hzio_mpi.h. */
HZIO_API hzio_status hzio_reader_open(const char* path_or_url, int flags, hzio_reader** reader);
/* Collective readers: collective (the communicator is released). */
HZIO_API hzio_status hzio_reader_free(hzio_reader* reader);

/* The dataset's description (borrowed: valid while the reader lives). */
HZIO_API hzio_status hzio_reader_get_desc(const hzio_reader* reader, const hzio_desc** desc);

/* The samples a read of box (offset, count) at `level` returns: the part of the box inside the
 * dataset, at the positions origin[d] + k*stride[d], 0 <= k < grid_count[d] (the level's
 * lattice, idx-format.md §3.4). A box that holds no sample of that level gets grid_count 0 (and
 * the read leaves its buffer alone). A box outside the dataset is HZIO_ERR_OUT_OF_RANGE. Any
 * output pointer may be NULL. Local. */
HZIO_API hzio_status hzio_reader_query_grid(const hzio_reader* reader, const int64_t* offset, const int64_t* count,
                                            int level, int64_t* origin, int64_t* stride, int64_t* grid_count);

/* Reads `nboxes` boxes of `field` at timestep `time` and levels 0..level: box i is
 * offsets[i*ndims..] + counts[i*ndims..], and out[i] receives its samples (exactly the
 * hzio_reader_query_grid samples, row-major, in the field's dtype). Collective for collective
 * readers (a rank may ask for no box); every rank gets the same status. */
HZIO_API hzio_status hzio_reader_read(hzio_reader* reader, const char* field, int64_t time, int level,
                                      int64_t nboxes, const int64_t* offsets, const int64_t* counts, void* const* out);
/* Several fields of the same boxes in one read (one plan, one pass over the files, as a restart
 * reads all its variables): out[k*nboxes + i] receives fields[k] of box i. */
HZIO_API hzio_status hzio_reader_read_fields(hzio_reader* reader, int nfields, const char* const* fields,
                                             int64_t time, int level, int64_t nboxes, const int64_t* offsets,
                                             const int64_t* counts, void* const* out);
/* One box into an array of `elements` elements of `element_bytes` each (Fortran, numpy): the
 * element size must divide the field's sample into its components and the array must hold the
 * result exactly (HZIO_ERR_INVALID_ARGUMENT otherwise). A box without samples at `level` reads
 * nothing and needs elements == 0. Collective like hzio_reader_read. */
HZIO_API hzio_status hzio_reader_read_array(hzio_reader* reader, const char* field, int64_t time, int level,
                                            const int64_t* offset, const int64_t* count, int64_t elements,
                                            int element_bytes, void* data);
/* Statistics of the last read. */
HZIO_API hzio_status hzio_reader_get_stats(const hzio_reader* reader, hzio_io_stats* stats);

#ifdef __cplusplus
}
#endif

#endif /* HZIO_H */
