/* hzio_mpi.h: the collective writer and reader of hzio's C API (hzio::mpi underneath).
 *
 * The handles they make are the hzio_writer and hzio_reader of hzio.h, used through the same
 * functions; the calls documented there as collective must then be made by every rank of the
 * communicator, in the same order, and return the same status everywhere (an error on one rank
 * fails the call on all, so no rank is left waiting).
 *
 * The communicator is duplicated (the library's messages never mix with the caller's); making
 * and freeing these handles are therefore collective too, and every handle must be freed before
 * MPI_Finalize. The _f variants take a Fortran handle (MPI_Fint, converted with MPI_Comm_f2c).
 */
#ifndef HZIO_MPI_H
#define HZIO_MPI_H

#include <mpi.h>

#include "hzio.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A collective writer of a new dataset described by `desc` (the same on every rank) at `path`.
 * Each rank registers its own boxes with hzio_writer_add (any number per field and timestep, any
 * decomposition); hzio_writer_write restructures, HZ-encodes and aggregates them into a few
 * writers per file. Flags: HZIO_OVERWRITE (replace a dataset already there; without it an
 * existing dataset fails the write with HZIO_ERR_INVALID_ARGUMENT), HZIO_SYNC, HZIO_PIDX_COMPATIBLE
 * (block files named as PIDX 0.9.3 derives them and its dtype spelling, so PIDX reads the dataset
 * too; fields PIDX cannot read, such as compressed ones or 11 components, are
 * HZIO_ERR_UNSUPPORTED, and with HZIO_OVERWRITE the old dataset is removed before the write
 * instead of staying readable until the commit). Blocks are written in hz order (a row-major
 * layout in `desc` is HZIO_ERR_UNSUPPORTED). */
HZIO_API hzio_status hzio_writer_create_mpi(MPI_Comm comm, const char* path, const hzio_desc* desc, int flags,
                                            hzio_writer** writer);
HZIO_API hzio_status hzio_writer_create_mpi_f(MPI_Fint comm, const char* path, const hzio_desc* desc, int flags,
                                              hzio_writer** writer);

/* A collective reader of the dataset at `path` (rank 0 reads the header, all ranks get it).
 * Reads are two-phase by default (the blocks a read needs are spread evenly over aggregator
 * ranks at every level, which pass each rank its samples); HZIO_ONE_PHASE makes every rank read
 * its own boxes. Any rank count may read what any rank count wrote. */
HZIO_API hzio_status hzio_reader_open_mpi(MPI_Comm comm, const char* path, int flags, hzio_reader** reader);
HZIO_API hzio_status hzio_reader_open_mpi_f(MPI_Fint comm, const char* path, int flags, hzio_reader** reader);

/* The same with hints, given in an MPI_Info as MPI-IO takes its own (MPI_INFO_NULL: none; the
 * info may be freed once the call returns). Each value is a string:
 *   "memory_budget"  bytes of aggregation buffer per rank, with an optional k, m or g suffix
 *                    ("512m"); a larger write or read goes in rounds. Default 256m. The smallest
 *                    over the ranks counts.
 *   "aggregators"    how many ranks write or read the block files; "0" (the default): one per rank.
 *   "threads"        threads of this rank that HZ-encode its boxes (writer) or place the samples it
 *                    reads (reader), 0..256; "0" (the default): the cores the rank has to itself
 *                    (1 where each rank is bound to a core).
 * An unknown key or a malformed value is HZIO_ERR_INVALID_ARGUMENT naming it, on every rank. */
HZIO_API hzio_status hzio_writer_create_mpi_info(MPI_Comm comm, const char* path, const hzio_desc* desc, int flags,
                                                 MPI_Info info, hzio_writer** writer);
HZIO_API hzio_status hzio_writer_create_mpi_info_f(MPI_Fint comm, const char* path, const hzio_desc* desc, int flags,
                                                   MPI_Fint info, hzio_writer** writer);
HZIO_API hzio_status hzio_reader_open_mpi_info(MPI_Comm comm, const char* path, int flags, MPI_Info info,
                                               hzio_reader** reader);
HZIO_API hzio_status hzio_reader_open_mpi_info_f(MPI_Fint comm, const char* path, int flags, MPI_Fint info,
                                                 hzio_reader** reader);

#ifdef __cplusplus
}
#endif

#endif /* HZIO_MPI_H */
