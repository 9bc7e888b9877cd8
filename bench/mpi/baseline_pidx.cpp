// Baseline: PIDX 0.9.3 (built by hand, -DPIDX_DIR; README.md), the seeds' own parallel IDX writer,
// through its public API as its S3D checkpoint/restart example uses it: one PIDX variable per
// field, PIDX's default blocks and aggregation, row-major boxes. PIDX knows no 11-component dtype,
// so `species` is 11 scalar variables (de-interleaved before the write and re-interleaved after
// the read, inside the timed call: PIDX's way to hold it). PIDX has no fsync: for durable writes
// rank 0 fsyncs every file PIDX wrote once all ranks closed.
#include <PIDX.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "s3d_case.h"

namespace hzio_bench {

namespace {

void Ok(PIDX_return_code rc, const char* what) {
  if (rc != PIDX_success) throw std::runtime_error(std::string("PIDX ") + what + " failed (code " + std::to_string(rc) + ")");
}

// What PIDX stores for field f: the field itself when PIDX knows its dtype, else one scalar per component.
int PidxComponents(const hzio::Field& f) { return f.dtype.components() <= 4 ? f.dtype.components() : 1; }
int PidxVariables(const hzio::Field& f) { return f.dtype.components() <= 4 ? 1 : f.dtype.components(); }

struct Session {
  PIDX_access access = nullptr;
  PIDX_file file = nullptr;
  PIDX_point global, offset, size;
};

void SetBoxes(const S3dCase& c, Session& s) {
  const hzio::Point n = c.mine.Size();
  PIDX_set_point(s.global, static_cast<uint64_t>(c.domain.p2[0]), static_cast<uint64_t>(c.domain.p2[1]),
                 static_cast<uint64_t>(c.domain.p2[2]));
  PIDX_set_point(s.offset, static_cast<uint64_t>(c.mine.p1[0]), static_cast<uint64_t>(c.mine.p1[1]),
                 static_cast<uint64_t>(c.mine.p1[2]));
  PIDX_set_point(s.size, static_cast<uint64_t>(n[0]), static_cast<uint64_t>(n[1]), static_cast<uint64_t>(n[2]));
  Ok(PIDX_create_access(&s.access), "create_access");
  Ok(PIDX_set_mpi_access(s.access, c.comm), "set_mpi_access");
}

// Component k of every sample of `field` (n samples of `comps` doubles) into `out`, or back.
void Deinterleave(const uint8_t* field, int comps, int k, int64_t n, std::vector<uint8_t>& out) {
  out.resize(static_cast<size_t>(n) * 8);
  for (int64_t i = 0; i < n; ++i) std::memcpy(&out[static_cast<size_t>(i) * 8], field + (i * comps + k) * 8, 8);
}
void Interleave(const std::vector<uint8_t>& in, int comps, int k, int64_t n, uint8_t* field) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(field + (i * comps + k) * 8, &in[static_cast<size_t>(i) * 8], 8);
}

}  // namespace

void WritePidx(const S3dCase& c, const std::string& dir) {
  Session s;
  SetBoxes(c, s);
  const std::string path = dir + "/s3d.idx";
  Ok(PIDX_file_create(path.c_str(), PIDX_MODE_CREATE, s.access, s.global, &s.file), "file_create");
  Ok(PIDX_set_current_time_step(s.file, 0), "set_current_time_step");
  int count = 0;
  for (const hzio::Field& f : c.fields) count += PidxVariables(f);
  Ok(PIDX_set_variable_count(s.file, count), "set_variable_count");
  const int64_t n = c.mine.Size().Product();
  std::vector<std::vector<uint8_t>> split;  // PIDX keeps the pointers until PIDX_close
  split.reserve(static_cast<size_t>(count));
  for (size_t f = 0; f < c.fields.size(); ++f) {
    const hzio::Field& field = c.fields[f];
    const int comps = PidxComponents(field);
    const std::string type = std::to_string(comps) + "*float64";
    for (int k = 0; k < PidxVariables(field); ++k) {
      const uint8_t* data = c.data[f].data();
      std::string name = field.name;
      if (PidxVariables(field) > 1) {
        split.emplace_back();
        Deinterleave(c.data[f].data(), field.dtype.components(), k, n, split.back());
        data = split.back().data();
        name += "_" + std::to_string(k);
      }
      PIDX_variable v;
      Ok(PIDX_variable_create(const_cast<char*>(name.c_str()), 64 * comps, const_cast<char*>(type.c_str()), &v),
         "variable_create");
      Ok(PIDX_variable_write_data_layout(v, s.offset, s.size, const_cast<uint8_t*>(data), PIDX_row_major),
         "variable_write_data_layout");
      Ok(PIDX_append_and_write_variable(s.file, v), "append_and_write_variable");
    }
  }
  Ok(PIDX_close(s.file), "close");  // the write happens here
  Ok(PIDX_close_access(s.access), "close_access");
  if (c.durable) {
    MPI_Barrier(c.comm);
    if (c.rank == 0)
      for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
        if (e.is_regular_file()) FsyncFile(e.path().string());
    MPI_Barrier(c.comm);
  }
}

void ReadPidx(const S3dCase& c, const std::string& dir, std::vector<std::vector<uint8_t>>& out) {
  Session s;
  SetBoxes(c, s);
  const std::string path = dir + "/s3d.idx";
  Ok(PIDX_file_open(path.c_str(), PIDX_MODE_RDONLY, s.access, s.global, &s.file), "file_open");
  Ok(PIDX_set_current_time_step(s.file, 0), "set_current_time_step");
  const int64_t n = c.mine.Size().Product();
  std::vector<std::vector<uint8_t>> split;
  std::vector<std::pair<size_t, int>> split_of;  // (field, component) of each split buffer
  for (size_t f = 0; f < c.fields.size(); ++f) {
    for (int k = 0; k < PidxVariables(c.fields[f]); ++k) {
      uint8_t* target = out[f].data();
      if (PidxVariables(c.fields[f]) > 1) {
        split.emplace_back(static_cast<size_t>(n) * 8);
        split_of.emplace_back(f, k);
        target = split.back().data();
      }
      PIDX_variable v;
      Ok(PIDX_get_next_variable(s.file, &v), "get_next_variable");
      Ok(PIDX_variable_read_data_layout(v, s.offset, s.size, target, PIDX_row_major), "variable_read_data_layout");
      Ok(PIDX_read_next_variable(s.file, v), "read_next_variable");
    }
  }
  Ok(PIDX_close(s.file), "close");  // the read happens here
  Ok(PIDX_close_access(s.access), "close_access");
  for (size_t i = 0; i < split.size(); ++i) {
    const auto [f, k] = split_of[i];
    Interleave(split[i], c.fields[f].dtype.components(), k, n, out[f].data());
  }
}

}  // namespace hzio_bench
