// Baseline: parallel HDF5 (MPI-IO driver), one dataset per field shaped (z, y, x[, c]), each rank
// writing/reading its hyperslab with collective transfers.
#include <hdf5.h>

#include <stdexcept>
#include <string>

#include "s3d_case.h"

namespace hzio_bench {

namespace {

struct Slab {
  int rank;
  hsize_t global[4], count[4], start[4];
};

Slab MakeSlab(const S3dCase& c, int comps) {
  const hzio::Point s = c.mine.Size();
  Slab sl{comps > 1 ? 4 : 3,
          {static_cast<hsize_t>(c.domain.p2[2]), static_cast<hsize_t>(c.domain.p2[1]), static_cast<hsize_t>(c.domain.p2[0]),
           static_cast<hsize_t>(comps)},
          {static_cast<hsize_t>(s[2]), static_cast<hsize_t>(s[1]), static_cast<hsize_t>(s[0]), static_cast<hsize_t>(comps)},
          {static_cast<hsize_t>(c.mine.p1[2]), static_cast<hsize_t>(c.mine.p1[1]), static_cast<hsize_t>(c.mine.p1[0]), 0}};
  return sl;
}

hid_t Element(const S3dCase& c) { return c.float32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE; }

template <class Transfer>
void EachField(const S3dCase& c, hid_t file, bool create, Transfer&& transfer) {
  const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  for (size_t f = 0; f < c.fields.size(); ++f) {
    const Slab sl = MakeSlab(c, c.fields[f].dtype.components());
    const hid_t filespace = H5Screate_simple(sl.rank, sl.global, nullptr);
    const hid_t ds = create ? H5Dcreate2(file, c.fields[f].name.c_str(), Element(c), filespace, H5P_DEFAULT,
                                         H5P_DEFAULT, H5P_DEFAULT)
                            : H5Dopen2(file, c.fields[f].name.c_str(), H5P_DEFAULT);
    if (ds < 0) throw std::runtime_error("HDF5 dataset " + c.fields[f].name);
    H5Sselect_hyperslab(filespace, H5S_SELECT_SET, sl.start, nullptr, sl.count, nullptr);
    const hid_t memspace = H5Screate_simple(sl.rank, sl.count, nullptr);
    if (transfer(ds, memspace, filespace, dxpl, f) < 0) throw std::runtime_error("HDF5 transfer " + c.fields[f].name);
    H5Sclose(memspace);
    H5Sclose(filespace);
    H5Dclose(ds);
  }
  H5Pclose(dxpl);
}

hid_t Fapl(const S3dCase& c) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, c.comm, MPI_INFO_NULL);
  return fapl;
}

}  // namespace

void WriteHdf5(const S3dCase& c, const std::string& dir) {
  const hid_t fapl = Fapl(c);
  const hid_t file = H5Fcreate((dir + "/s3d.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0) throw std::runtime_error("H5Fcreate");
  EachField(c, file, true, [&](hid_t ds, hid_t mem, hid_t fs, hid_t dxpl, size_t f) {
    return H5Dwrite(ds, Element(c), mem, fs, dxpl, c.data[f].data());
  });
  H5Fclose(file);
  H5Pclose(fapl);
  if (c.durable) {  // the collective close has returned on every rank: one fsync of the shared file
    MPI_Barrier(c.comm);
    if (c.rank == 0) FsyncFile(dir + "/s3d.h5");
  }
}

void ReadHdf5(const S3dCase& c, const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  const hid_t fapl = Fapl(c);
  const hid_t file = H5Fopen((dir + "/s3d.h5").c_str(), H5F_ACC_RDONLY, fapl);
  if (file < 0) throw std::runtime_error("H5Fopen");
  EachField(c, file, false, [&](hid_t ds, hid_t mem, hid_t fs, hid_t dxpl, size_t f) {
    return H5Dread(ds, Element(c), mem, fs, dxpl, out[f].data());
  });
  H5Fclose(file);
  H5Pclose(fapl);
}

}  // namespace hzio_bench
