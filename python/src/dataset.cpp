// Opening a dataset and its metadata (idx-format.md §1): everything the Python Dataset shows.
#include "binding.h"
#include "hzio/access/dataset.h"
#include "hzio/util/error.h"

namespace hzio::python {

namespace {

nb::dict FieldInfo(const Field& f) {
  nb::dict d;
  d["name"] = f.name;
  d["dtype"] = f.dtype.ToString();
  d["components"] = f.dtype.components();
  d["byte_aligned"] = f.dtype.ByteAligned();
  // The numpy type of one component; sub-byte types (int1, ...) have none and cannot be read.
  d["numpy_dtype"] = f.dtype.ByteAligned() ? nb::cast(f.dtype.Scalar().NumpyDescr()) : nb::none();
  d["compression"] = f.compression.empty() ? std::string("raw") : f.compression;
  d["layout"] = std::string(f.hz_layout ? "hzorder" : "rowmajor");
  d["default_value"] = f.default_value;
  d["description"] = f.description;
  d["min"] = f.min;
  d["max"] = f.max;
  return d;
}

}  // namespace

nb::dict HeaderInfo(const IdxHeader& h) {
  nb::dict d;
  d["version"] = h.version;
  d["box"] = FromBox(h.box);
  d["bitmask"] = h.bitmask.text();
  d["maxh"] = h.maxh();
  d["bitsperblock"] = h.bits_per_block;
  d["blocksperfile"] = h.blocks_per_file;
  d["arco"] = h.arco;
  nb::list fields;
  for (const Field& f : h.fields) fields.append(FieldInfo(f));
  d["fields"] = fields;
  d["has_time"] = h.has_time;
  d["time_any"] = h.time.any;
  d["default_time"] = h.time.Default();
  d["timesteps"] = h.time.List();
  d["physic_box"] = h.PhysicBoxOrLogic();
  d["logic_to_physic"] = h.logic_to_physic;
  d["axis"] = h.axis;
  d["text"] = h.ToText();
  return d;
}

nb::class_<Dataset> BindDataset(nb::module_& m) {
  auto dataset = nb::class_<Dataset>(m, "Dataset", "An open dataset (hzio::Dataset): local .idx or remote URL.");
  dataset
      .def_prop_ro("source", &Dataset::source, "The path or URL it was opened from.")
      .def("header", [](const Dataset& ds) { return HeaderInfo(ds.header()); },
           "The validated header as a dict (dims, fields, timesteps, ...).")
      .def(
          "block_grid",
          [](const Dataset& ds, uint64_t block) {
            Check(block < ds.layout().total_blocks(), ErrorCode::kOutOfRange,
                  ds.source() + ": block " + std::to_string(block) + " is beyond the last block " +
                      std::to_string(ds.layout().total_blocks() - 1));
            const Grid g = ds.layout().BlockGrid(block);
            return std::make_tuple(FromPoint(g.origin), FromPoint(g.stride), FromPoint(g.count));
          },
          nb::arg("block"), "The sample lattice of a block (idx-format.md §4.1): (origin, stride, count), x first.");

  m.def(
      "open",
      [](const std::string& path_or_url, int threads, std::optional<int64_t> max_query_bytes,
         std::optional<std::string> cache_dir) {
        OpenOptions options;
        options.threads = threads;
        if (max_query_bytes) options.max_query_bytes = *max_query_bytes;
        options.cache_dir = cache_dir;
        nb::gil_scoped_release unlocked;  // a remote open waits on the network
        return OpenDataset(path_or_url, options);
      },
      nb::arg("path_or_url"), nb::arg("threads") = 0, nb::arg("max_query_bytes") = nb::none(),
      nb::arg("cache_dir") = nb::none(),
      "Opens a .idx path or a URL: a server, a web server, S3 (hzio::OpenDataset).");
  return dataset;
}

}  // namespace hzio::python
