// Box queries (idx-format.md §3.4): resolve a query against the header (the result grid, to size
// the numpy array), then read it straight into numpy memory (Dataset::ReadInto, no intermediate
// copy) with the GIL released, so other Python threads run meanwhile and several read at once.
#include "binding.h"
#include "hzio/access/dataset.h"
#include "hzio/util/error.h"

namespace hzio::python {

namespace {

Dataset::Resolved Resolve(const Dataset& ds, const std::string& field, std::optional<int64_t> time,
                          const std::optional<PyBox>& box, std::optional<int> level, bool only_level) {
  BoxQuery q;
  q.field = field;
  q.time = time;
  if (box) q.box = ToBox(*box, ds.source() + ": box");
  q.level = level;
  q.only_level = only_level;
  return ds.Resolve(q);
}

}  // namespace

void BindRead(nb::module_& m, nb::class_<Dataset>& dataset) {
  nb::class_<Dataset::Resolved>(m, "Query", "A box query resolved against a dataset's header (Dataset::Resolved).")
      .def_ro("field", &Dataset::Resolved::field, "Field index.")
      .def_ro("time", &Dataset::Resolved::time)
      .def_prop_ro("box", [](const Dataset::Resolved& q) { return FromBox(q.box); }, "Requested box (p1, p2), x first.")
      .def_prop_ro("levels", [](const Dataset::Resolved& q) { return std::make_pair(q.levels.from, q.levels.to); })
      .def_prop_ro("origin", [](const Dataset::Resolved& q) { return FromPoint(q.grid.origin); },
                   "Logic coordinates of the first sample, x first.")
      .def_prop_ro("stride", [](const Dataset::Resolved& q) { return FromPoint(q.grid.stride); },
                   "Logic distance between samples, x first.")
      .def_prop_ro("count", [](const Dataset::Resolved& q) { return FromPoint(q.grid.count); },
                   "Samples per axis, x first.");

  dataset
      .def("resolve", &Resolve, nb::arg("field") = "", nb::arg("time") = nb::none(), nb::arg("box") = nb::none(),
           nb::arg("level") = nb::none(), nb::arg("only_level") = false,
           "Resolves defaults and validates a box query (Dataset::Resolve): field, time, box, levels, grid.")
      .def(
          "read_into",
          [](Dataset& ds, const std::string& field, std::optional<int64_t> time, const std::optional<PyBox>& box,
             std::optional<int> level, bool only_level, nb::handle out) {
            const Dataset::Resolved r = Resolve(ds, field, time, box, level, only_level);
            const DType& dtype = ds.header().fields[static_cast<size_t>(r.field)].dtype;
            ArrayBuffer buffer(out, dtype, dtype.BytesFor(r.grid.NumSamples()), true, ds.source() + ": out");
            nb::gil_scoped_release unlocked;
            ds.ReadInto(r, buffer.data());
          },
          nb::arg("field"), nb::arg("time").none(), nb::arg("box").none(), nb::arg("level").none(),
          nb::arg("only_level"), nb::arg("out"),
          "Reads a box query into `out`, which must hold exactly its result (Dataset::ReadInto), with the GIL "
          "released.");
}

}  // namespace hzio::python
