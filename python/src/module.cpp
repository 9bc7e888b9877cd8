// The `_hzio` extension module: see binding.h.
#include "binding.h"

NB_MODULE(_hzio, m) {
  m.doc() = "hzio's C++ core (hzio::core) for the `hzio` package; use `hzio`, not this module.";
  hzio::python::BindErrors(m);
  hzio::python::BindMemory(m);
  auto dataset = hzio::python::BindDataset(m);
  hzio::python::BindRead(m, dataset);
  hzio::python::BindWrite(m);
}
