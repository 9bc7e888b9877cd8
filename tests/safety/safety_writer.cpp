// The library write API (DatasetWriter, AddField, AddTimestep) as a process the crash-consistency
// harness can kill (tests/safety/test_crash_consistency.py). Data arrive box by box (slabs along
// the slowest axis), so blocks are merged across Write calls.
//
//   hzio_safety_writer write IDX FIELD TIME SEED [--create X,Y,Z --fields a:uint16,b:uint8 --times T0:T1]
//   hzio_safety_writer add-field IDX NAME:DTYPE
//   hzio_safety_writer add-time IDX T
//   hzio_safety_writer digest IDX     (what readers see: a hash of every field at every timestep,
//                                      full resolution, and of a coarse level; one line each)
//
// Sample (x, y, z) of a write with seed S is (x + 7y + 13z + 101 S) in the field's dtype (integer,
// modulo 2^bits). Exit status 0 on success, 1 with one line on stderr on an hzio::Error.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_extend.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/storage/file.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace {

using namespace hzio;

IdxHeader NewHeader(const std::string& dims_text, const std::string& fields_text, const std::string& times) {
  IdxHeader h;
  const std::vector<std::string> d = Split(dims_text, ',');
  Point dims(static_cast<int>(d.size()));
  for (size_t i = 0; i < d.size(); ++i) dims[static_cast<int>(i)] = ParseInt64(d[i], "dims");
  h.box = Box(Point(dims.dims), dims);
  for (const std::string& f : Split(fields_text, ',')) {
    const size_t colon = f.find(':');
    h.fields.push_back(Field::Parse(f.substr(0, colon) + " " + f.substr(colon + 1) + " default_compression(zip)", 6));
  }
  const size_t colon = times.find(':');
  h.time = TimeSpec::Range(ParseInt64(times.substr(0, colon), "times"), ParseInt64(times.substr(colon + 1), "times"),
                           "time_%04d/");
  h.has_time = true;
  h.bits_per_block = 10;
  h.blocks_per_file = 8;
  return h;
}

int Write(const std::string& idx, const std::string& field_name, int64_t time, int64_t seed,
          const std::optional<IdxHeader>& create) {
  WriterOptions options;
  options.allow_existing = true;
  options.threads = 2;
  IdxHeader header = create ? *create : IdxHeader::Parse(ReadWholeFile(idx), idx, "x");
  DatasetWriter writer(idx, header, options);
  const IdxHeader& h = writer.header();
  const int field = h.FieldIndex(field_name);
  const DType dtype = h.fields[static_cast<size_t>(field)].dtype;
  const Point size = h.box.Size();
  const int slow = size.dims - 1;
  const int64_t sample_bytes = dtype.SampleBytes();
  for (int64_t z0 = 0; z0 < size[slow]; z0 += 3) {  // slabs of 3 along the slowest axis
    Box box = h.box;
    box.p1[slow] = h.box.p1[slow] + z0;
    box.p2[slow] = std::min(h.box.p2[slow], box.p1[slow] + 3);
    const Point n = box.Size();
    std::vector<uint8_t> data(static_cast<size_t>(n.Product() * sample_bytes));
    for (int64_t i = 0; i < n.Product(); ++i) {
      int64_t rest = i, v = 101 * seed;
      const int64_t weights[3] = {1, 7, 13};
      for (int d = 0; d < n.dims; ++d) {
        v += weights[d] * (box.p1[d] + rest % n[d]);
        rest /= n[d];
      }
      for (int64_t b = 0; b < sample_bytes; ++b)
        data[static_cast<size_t>(i * sample_bytes + b)] = static_cast<uint8_t>((v >> (8 * b)) & 0xff);
    }
    writer.Write(field, time, box, data.data());
  }
  writer.Finish();
  return 0;
}

// FNV-1a over the samples of a box query.
uint64_t Digest(Dataset& dataset, const BoxQuery& query) {
  const BoxResult r = dataset.Read(query);
  uint64_t h = 14695981039346656037ull;
  for (int64_t i = 0; i < r.data.ByteSize(); ++i) h = (h ^ r.data.data()[i]) * 1099511628211ull;
  return h;
}

int PrintDigest(const std::string& idx) {
  std::shared_ptr<Dataset> dataset = OpenDataset(idx);
  const IdxHeader& h = dataset->header();
  for (const Field& f : h.fields) {
    for (int64_t t : h.time.List()) {
      BoxQuery q;
      q.field = f.name;
      q.time = t;
      std::printf("%s %lld %016llx\n", f.name.c_str(), static_cast<long long>(t),
                  static_cast<unsigned long long>(Digest(*dataset, q)));
    }
  }
  BoxQuery coarse;
  coarse.level = std::max(0, h.maxh() - 3);
  std::printf("coarse %016llx\n", static_cast<unsigned long long>(Digest(*dataset, coarse)));
  return 0;
}

int Run(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "digest") == 0) return PrintDigest(argv[2]);
  if (argc < 4) throw Error(ErrorCode::kInvalidArgument, "usage: see the comment of safety_writer.cpp");
  const std::string command = argv[1], idx = argv[2];
  if (command == "add-field") {
    const std::string spec = argv[3];
    const size_t colon = spec.find(':');
    AddField(idx, Field::Parse(spec.substr(0, colon) + " " + spec.substr(colon + 1) + " default_compression(zip)", 6));
    return 0;
  }
  if (command == "add-time") {
    AddTimestep(idx, ParseInt64(argv[3], "T"));
    return 0;
  }
  if (command == "write" && argc >= 6) {
    std::optional<IdxHeader> create;
    if (argc == 12 && std::strcmp(argv[6], "--create") == 0) create = NewHeader(argv[7], argv[9], argv[11]);
    return Write(idx, argv[3], ParseInt64(argv[4], "TIME"), ParseInt64(argv[5], "SEED"), create);
  }
  throw Error(ErrorCode::kInvalidArgument, "unknown command '" + command + "'");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const hzio::Error& e) {
    std::fprintf(stderr, "hzio_safety_writer: %s\n", e.what());
    return 1;
  }
}
