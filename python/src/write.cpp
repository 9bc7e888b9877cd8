// Writing (idx-format.md §4.9): new empty datasets (format/new_header.h, the header `hzio create`
// makes), more fields and timesteps (access/dataset_extend.h), and box-by-box writes from numpy
// memory through one DatasetWriter per transaction, with the GIL released while it works.
#include <filesystem>
#include <memory>

#include "binding.h"
#include "hzio/access/dataset_extend.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/format/new_header.h"
#include "hzio/storage/file.h"
#include "hzio/util/error.h"

namespace hzio::python {

namespace {

std::string Stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

IdxHeader ReadHeader(const std::string& idx_path) {
  return IdxHeader::Parse(ReadWholeFile(idx_path), idx_path, Stem(idx_path));
}

// "raw" (or "none") -> "" as the header spells raw; zip and lz4 unchanged; anything else is
// left to the writer, which names what it cannot write.
std::string CompressionSpec(const std::string& name) { return name == "raw" || name == "none" ? "" : name; }

bool HzLayout(const std::string& layout) {
  if (layout == "hzorder" || layout == "hz") return true;
  if (layout == "rowmajor" || layout == "row_major") return false;
  throw Error(ErrorCode::kInvalidArgument, "layout must be 'hzorder' or 'rowmajor', got '" + layout + "'");
}

Field NewField(const std::string& name, const std::string& dtype, const std::string& compression,
               const std::string& layout) {
  CheckNewFieldName(name);
  Field f;
  f.name = name;
  f.dtype = DType::Parse(dtype);
  Check(f.dtype.ByteAligned(), ErrorCode::kInvalidArgument,
        "field '" + name + "': dtype " + f.dtype.ToString() + " is not whole bytes");
  f.compression = CompressionSpec(compression);
  f.hz_layout = HzLayout(layout);
  return f;
}

// One write transaction into an existing dataset: Write() boxes, then Commit() (the .idx last).
class Writer {
 public:
  Writer(const std::string& idx_path, int threads, bool sync) {
    WriterOptions options;
    options.threads = threads;
    options.sync = sync;
    options.allow_existing = true;
    IdxHeader header = ReadHeader(idx_path);
    writer_ = std::make_unique<DatasetWriter>(idx_path, std::move(header), std::move(options));
    path_ = idx_path;
  }

  DatasetWriter& Open() {
    Check(writer_ != nullptr, ErrorCode::kInvalidArgument, path_ + ": the writer is already committed or closed");
    return *writer_;
  }

  void Write(const std::string& field_name, int64_t time, const PyBox& box_in, nb::handle array) {
    DatasetWriter& w = Open();
    const int field = w.header().FieldIndex(field_name);
    const Box box = ToBox(box_in, path_ + ": write box");
    const DType& dtype = w.header().fields[static_cast<size_t>(field)].dtype;
    ArrayBuffer buffer(array, dtype, box.Empty() ? 0 : dtype.BytesFor(box.Size().Product()), false,
                       path_ + ": data for box " + box.ToRangesString());
    nb::gil_scoped_release unlocked;
    w.Write(field, time, box, buffer.data());
  }

  void Commit() {
    DatasetWriter& w = Open();
    {
      nb::gil_scoped_release unlocked;
      w.Finish();
    }
    writer_.reset();
  }

  void Close() {
    nb::gil_scoped_release unlocked;
    writer_.reset();
  }

 private:
  std::string path_;
  std::unique_ptr<DatasetWriter> writer_;
};

}  // namespace

void BindWrite(nb::module_& m) {
  nb::class_<Writer>(m, "Writer", "One write transaction into an existing dataset (hzio::DatasetWriter).")
      .def(nb::init<const std::string&, int, bool>(), nb::arg("idx_path"), nb::arg("threads") = 0,
           nb::arg("sync") = false)
      .def("write", &Writer::Write, nb::arg("field"), nb::arg("time"), nb::arg("box"), nb::arg("data"),
           "Writes `data` (C order, the field's dtype) into `box` of field `field` at timestep `time`.")
      .def("commit", &Writer::Commit, "Flushes the blocks and block tables, then the .idx (last).")
      .def("close", &Writer::Close, "Abandons the transaction if it was not committed.");

  m.def(
      "create_dataset",
      [](const std::string& idx_path, const std::vector<int64_t>& dims,
         const std::vector<std::pair<std::string, std::string>>& fields, const std::string& compression,
         const std::string& layout, int bits_per_block, std::optional<int64_t> blocks_per_file,
         std::optional<std::pair<int64_t, int64_t>> time, const std::vector<double>& physic_box) {
        std::vector<Field> list;
        for (const auto& [name, dtype] : fields) list.push_back(NewField(name, dtype, compression, layout));
        Check(!list.empty(), ErrorCode::kInvalidArgument, idx_path + ": a dataset needs at least one field");
        NewHeaderOptions options;
        options.compression = CompressionSpec(compression);
        options.hz_layout = HzLayout(layout);
        options.bits_per_block = bits_per_block;
        options.blocks_per_file = blocks_per_file;
        options.time = time;
        IdxHeader header = NewIdxHeader(Stem(idx_path), ToPoint(dims, idx_path + ": dims"), std::move(list), options);
        if (!physic_box.empty()) {
          Check(physic_box.size() == 2 * dims.size(), ErrorCode::kInvalidArgument,
                idx_path + ": physic_box needs " + std::to_string(2 * dims.size()) + " values (x1 x2 y1 y2 ...), got " +
                    std::to_string(physic_box.size()));
          header.physic_box = physic_box;
        }
        Check(!FileExists(idx_path), ErrorCode::kInvalidArgument, idx_path + ": already exists");
        // The writer's own checks (codecs it can encode, version, ARCO) before anything is made:
        // a dataset that could never be filled is refused. Nothing is written without Finish().
        { const DatasetWriter probe(idx_path, header); }
        CreateEmptyDataset(idx_path, header);
        return HeaderInfo(header);
      },
      nb::arg("idx_path"), nb::arg("dims"), nb::arg("fields"), nb::arg("compression") = "zip",
      nb::arg("layout") = "rowmajor", nb::arg("bitsperblock") = 0, nb::arg("blocksperfile") = nb::none(),
      nb::arg("time") = nb::none(), nb::arg("physic_box") = std::vector<double>{},
      "Creates an empty dataset (header only) like `hzio create`; returns its header. `physic_box`: x1 x2 y1 "
      "y2 [z1 z2], the physical extent of the logic box.");
  m.def(
      "add_field",
      [](const std::string& idx_path, const std::string& name, const std::string& dtype,
         const std::string& compression, const std::string& layout) {
        Field f = NewField(name, dtype, compression, layout);
        IdxHeader header = ReadHeader(idx_path);
        {
          nb::gil_scoped_release unlocked;  // rewrites every block file
          header = AddField(idx_path, std::move(header), f);
        }
        return HeaderInfo(header);
      },
      nb::arg("idx_path"), nb::arg("name"), nb::arg("dtype"), nb::arg("compression") = "zip",
      nb::arg("layout") = "rowmajor", "Adds a field to an existing dataset (hzio::AddField); returns its header.");
  m.def(
      "add_timestep",
      [](const std::string& idx_path, int64_t time) {
        return HeaderInfo(AddTimestep(idx_path, ReadHeader(idx_path), time));
      },
      nb::arg("idx_path"), nb::arg("time"), "Declares one more timestep (hzio::AddTimestep); returns the header.");
  m.def(
      "parse_dtype",
      [](const std::string& text) {
        const DType t = DType::Parse(text);
        nb::dict d;
        d["dtype"] = t.ToString();
        d["components"] = t.components();
        d["numpy_dtype"] = t.ByteAligned() ? nb::cast(t.Scalar().NumpyDescr()) : nb::none();
        return d;
      },
      nb::arg("text"), "Parses an IDX dtype (float32, uint8[3], 3*uint8, ...) as the library does.");
}

}  // namespace hzio::python
