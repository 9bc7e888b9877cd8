// Baseline: PnetCDF (CDF-5), one variable per field shaped (z, y, x[, c]), collective put/get_vara.
#include <pnetcdf.h>

#include <stdexcept>
#include <string>

#include "s3d_case.h"

namespace hzio_bench {

namespace {

void Ok(int rc, const char* what) {
  if (rc != NC_NOERR) throw std::runtime_error(std::string(what) + ": " + ncmpi_strerror(rc));
}

void Extent(const S3dCase& c, int comps, MPI_Offset (&start)[4], MPI_Offset (&count)[4]) {
  const hzio::Point s = c.mine.Size();
  start[0] = c.mine.p1[2], start[1] = c.mine.p1[1], start[2] = c.mine.p1[0], start[3] = 0;
  count[0] = s[2], count[1] = s[1], count[2] = s[0], count[3] = comps;
}

}  // namespace

void WritePnetcdf(const S3dCase& c, const std::string& dir) {
  int nc = 0;
  Ok(ncmpi_create(c.comm, (dir + "/s3d.nc").c_str(), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc), "ncmpi_create");
  int dz, dy, dx;
  Ok(ncmpi_def_dim(nc, "z", c.domain.p2[2], &dz), "def_dim");
  Ok(ncmpi_def_dim(nc, "y", c.domain.p2[1], &dy), "def_dim");
  Ok(ncmpi_def_dim(nc, "x", c.domain.p2[0], &dx), "def_dim");
  std::vector<int> vars;
  for (const hzio::Field& f : c.fields) {
    int dims[4] = {dz, dy, dx, 0}, nd = 3;
    if (f.dtype.components() > 1) {
      Ok(ncmpi_def_dim(nc, ("c_" + f.name).c_str(), f.dtype.components(), &dims[3]), "def_dim");
      nd = 4;
    }
    int v;
    Ok(ncmpi_def_var(nc, f.name.c_str(), c.float32 ? NC_FLOAT : NC_DOUBLE, nd, dims, &v), "def_var");
    vars.push_back(v);
  }
  Ok(ncmpi_enddef(nc), "enddef");
  for (size_t f = 0; f < c.fields.size(); ++f) {
    MPI_Offset start[4], count[4];
    Extent(c, c.fields[f].dtype.components(), start, count);
    Ok(c.float32 ? ncmpi_put_vara_float_all(nc, vars[f], start, count, reinterpret_cast<const float*>(c.data[f].data()))
                 : ncmpi_put_vara_double_all(nc, vars[f], start, count, reinterpret_cast<const double*>(c.data[f].data())),
       "put_vara");
  }
  if (c.durable) Ok(ncmpi_sync(nc), "sync");  // collective; MPI_File_sync underneath
  Ok(ncmpi_close(nc), "close");
}

void ReadPnetcdf(const S3dCase& c, const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  int nc = 0;
  Ok(ncmpi_open(c.comm, (dir + "/s3d.nc").c_str(), NC_NOWRITE, MPI_INFO_NULL, &nc), "ncmpi_open");
  for (size_t f = 0; f < c.fields.size(); ++f) {
    int v;
    Ok(ncmpi_inq_varid(nc, c.fields[f].name.c_str(), &v), "inq_varid");
    MPI_Offset start[4], count[4];
    Extent(c, c.fields[f].dtype.components(), start, count);
    Ok(c.float32 ? ncmpi_get_vara_float_all(nc, v, start, count, reinterpret_cast<float*>(out[f].data()))
                 : ncmpi_get_vara_double_all(nc, v, start, count, reinterpret_cast<double*>(out[f].data())),
       "get_vara");
  }
  Ok(ncmpi_close(nc), "close");
}

}  // namespace hzio_bench
