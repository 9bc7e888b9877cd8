// hzio_mpi.h: collective writers and readers over hzio::mpi's ParallelWriter and ParallelReader.
// Each handle owns a duplicate of the caller's communicator, so the library's collectives and
// messages never match the caller's.
#include "hzio/c/hzio_mpi.h"

#include <memory>
#include <string>
#include <vector>

#include "hzio/c/api_status.h"
#include "hzio/c/handles.h"
#include "hzio/c/mpi_hints.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_writer.h"

using hzio::internal_c::Guard;
using hzio::internal_c::RequireNonNull;
using hzio::internal_c::Text;

namespace hzio::internal_c {

namespace {

// A duplicate of a caller's communicator, freed with the handle (if MPI is still running: a
// handle freed after MPI_Finalize cannot give its communicator back).
class OwnedComm {
 public:
  explicit OwnedComm(MPI_Comm comm) {
    Check(comm != MPI_COMM_NULL, ErrorCode::kInvalidArgument, "the communicator is MPI_COMM_NULL");
    mpi::MpiCheck(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  }
  ~OwnedComm() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

hzio_io_stats StatsOf(const mpi::IoStats& s) {
  return hzio_io_stats{s.seconds, s.data_bytes, s.file_bytes, s.aggregators};
}

// Both collective backends are made on a communicator they do not own yet, and adopt it once
// every rank agreed they were made: a failure frees the duplicate on every rank alike.
class CollectiveWriter final : public WriterBackend {
 public:
  CollectiveWriter(MPI_Comm comm, const std::string& path, const IdxHeader& header, int flags, const MpiHints& hints)
      : writer_(comm, path, header, Options(flags, hints)) {}
  void Adopt(std::unique_ptr<OwnedComm> comm) { comm_ = std::move(comm); }

  void Add(int field, int64_t time, const Box& box, const uint8_t* data) override { writer_.Add(field, time, box, data); }
  hzio_io_stats Write() override { return StatsOf(writer_.Write()); }

 private:
  static mpi::WriteOptions Options(int flags, const MpiHints& hints) {
    mpi::WriteOptions o;
    Apply(hints, o);
    o.overwrite = (flags & HZIO_OVERWRITE) != 0;
    o.sync = (flags & HZIO_SYNC) != 0;
    o.pidx_compatible = (flags & HZIO_PIDX_COMPATIBLE) != 0;
    return o;
  }

  std::unique_ptr<OwnedComm> comm_;  // declared first: outlives writer_
  mpi::ParallelWriter writer_;
};

class CollectiveReader final : public ReaderBackend {
 public:
  CollectiveReader(MPI_Comm comm, const std::string& path, int flags, const MpiHints& hints)
      : reader_(comm, path, Options(flags, hints)) {}
  void Adopt(std::unique_ptr<OwnedComm> comm) { comm_ = std::move(comm); }

  const IdxHeader& header() const override { return reader_.header(); }
  const BlockLayout& layout() const override { return reader_.layout(); }
  void Agreed(const std::function<void()>& checks) override { mpi::Collectively(comm_->get(), checks); }
  hzio_io_stats ReadInto(const std::vector<int>& fields, int64_t time, int level, const std::vector<Box>& boxes,
                         const std::vector<std::vector<uint8_t*>>& out) override {
    reader_.ReadInto(fields, time, level, boxes, out);
    return StatsOf(reader_.stats());
  }

 private:
  static mpi::ReadOptions Options(int flags, const MpiHints& hints) {
    mpi::ReadOptions o;
    Apply(hints, o);
    o.mode = (flags & HZIO_ONE_PHASE) != 0 ? mpi::ReadMode::kOnePhase : mpi::ReadMode::kTwoPhase;
    return o;
  }

  std::unique_ptr<OwnedComm> comm_;  // declared first: outlives reader_
  mpi::ParallelReader reader_;
};

hzio_status CreateWriter(const char* function, MPI_Comm comm, const char* path, const hzio_desc* desc, int flags,
                         MPI_Info info, hzio_writer** writer) {
  return Guard(function, [&] {
    auto owned = std::make_unique<OwnedComm>(comm);
    // Everything that can fail on one rank only is agreed on, so every rank returns alike.
    std::unique_ptr<CollectiveWriter> backend;
    IdxHeader header;
    mpi::Collectively(owned->get(), [&] {
      RequireNonNull(writer, "writer");
      RequireNonNull(desc, "desc");
      const std::string where = Text(path, "path");
      CheckFlags(flags, HZIO_OVERWRITE | HZIO_SYNC | HZIO_PIDX_COMPATIBLE, "a collective writer (HZIO_UPDATE is for the serial writer)");
      const MpiHints hints = ReadHints(info);
      header = HeaderForWriting(*desc, where);
      if (desc->header.blocks_per_file == 0) mpi::SplitFilesAcrossRanks(header, mpi::CommSize(owned->get()), where);
      for (const Field& f : header.fields)
        Check(f.hz_layout, ErrorCode::kUnsupported,
              "field '" + f.name + "' asks for row-major blocks; the collective writer writes hz-order blocks "
              "(the serial writer, hzio_writer_create, writes both)");
      backend = std::make_unique<CollectiveWriter>(owned->get(), where, header, flags, hints);
    });
    backend->Adopt(std::move(owned));
    *writer = new hzio_writer(std::move(header), std::move(backend));
  });
}

hzio_status OpenReader(const char* function, MPI_Comm comm, const char* path, int flags, MPI_Info info,
                       hzio_reader** reader) {
  return Guard(function, [&] {
    auto owned = std::make_unique<OwnedComm>(comm);
    std::string where;
    MpiHints hints;
    mpi::Collectively(owned->get(), [&] {
      RequireNonNull(reader, "reader");
      where = Text(path, "path");
      CheckFlags(flags, HZIO_ONE_PHASE, "a collective reader");
      hints = ReadHints(info);
    });
    // ParallelReader agrees on its own outcome (a missing or malformed .idx fails everywhere).
    auto backend = std::make_unique<CollectiveReader>(owned->get(), where, flags, hints);
    backend->Adopt(std::move(owned));
    *reader = new hzio_reader(std::move(backend));
  });
}

}  // namespace

}  // namespace hzio::internal_c

extern "C" {

hzio_status hzio_writer_create_mpi(MPI_Comm comm, const char* path, const hzio_desc* desc, int flags,
                                   hzio_writer** writer) {
  return hzio::internal_c::CreateWriter(__func__, comm, path, desc, flags, MPI_INFO_NULL, writer);
}

hzio_status hzio_writer_create_mpi_f(MPI_Fint comm, const char* path, const hzio_desc* desc, int flags,
                                     hzio_writer** writer) {
  return hzio::internal_c::CreateWriter(__func__, MPI_Comm_f2c(comm), path, desc, flags, MPI_INFO_NULL, writer);
}

hzio_status hzio_writer_create_mpi_info(MPI_Comm comm, const char* path, const hzio_desc* desc, int flags,
                                        MPI_Info info, hzio_writer** writer) {
  return hzio::internal_c::CreateWriter(__func__, comm, path, desc, flags, info, writer);
}

hzio_status hzio_writer_create_mpi_info_f(MPI_Fint comm, const char* path, const hzio_desc* desc, int flags,
                                          MPI_Fint info, hzio_writer** writer) {
  return hzio::internal_c::CreateWriter(__func__, MPI_Comm_f2c(comm), path, desc, flags, MPI_Info_f2c(info), writer);
}

hzio_status hzio_reader_open_mpi(MPI_Comm comm, const char* path, int flags, hzio_reader** reader) {
  return hzio::internal_c::OpenReader(__func__, comm, path, flags, MPI_INFO_NULL, reader);
}

hzio_status hzio_reader_open_mpi_f(MPI_Fint comm, const char* path, int flags, hzio_reader** reader) {
  return hzio::internal_c::OpenReader(__func__, MPI_Comm_f2c(comm), path, flags, MPI_INFO_NULL, reader);
}

hzio_status hzio_reader_open_mpi_info(MPI_Comm comm, const char* path, int flags, MPI_Info info,
                                      hzio_reader** reader) {
  return hzio::internal_c::OpenReader(__func__, comm, path, flags, info, reader);
}

hzio_status hzio_reader_open_mpi_info_f(MPI_Fint comm, const char* path, int flags, MPI_Fint info,
                                        hzio_reader** reader) {
  return hzio::internal_c::OpenReader(__func__, MPI_Comm_f2c(comm), path, flags, MPI_Info_f2c(info), reader);
}

}  // extern "C"
