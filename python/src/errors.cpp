// hzio::Error -> the Python exception class of its code (hzio._errors maps ErrorCodeName to a
// subclass of hzio.Error), carrying the library's message unchanged (TEAM.md contract 4).
#include <Python.h>

#include <exception>
#include <string>

#include "binding.h"
#include "hzio/util/error.h"

namespace hzio::python {

namespace {

// Every code, in declaration order: the Python side checks that each has a class.
constexpr ErrorCode kAllCodes[] = {
    ErrorCode::kInvalidArgument, ErrorCode::kNotFound, ErrorCode::kOutOfRange, ErrorCode::kCorrupt,
    ErrorCode::kUnsupported,     ErrorCode::kIo,       ErrorCode::kTooLarge,   ErrorCode::kUnavailable,
    ErrorCode::kChanged,         ErrorCode::kLocked,   ErrorCode::kInternal,
};

void RaiseHzioError(const Error& e) {
  const std::string name(ErrorCodeName(e.code()));
  try {
    nb::object cls = nb::module_::import_("hzio._errors").attr("error_class")(name);
    nb::object instance = cls(nb::str(e.what()));
    PyErr_SetObject(cls.ptr(), instance.ptr());
  } catch (nb::python_error& failed) {
    // hzio._errors itself is broken: still say what the library said.
    failed.discard_as_unraisable("hzio: mapping an error to its Python class");
    PyErr_SetString(PyExc_RuntimeError, (name + ": " + e.what()).c_str());
  }
}

}  // namespace

void BindErrors(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Error& e) {
      RaiseHzioError(e);
    }
  });
  m.def(
      "error_code_names",
      [] {
        std::vector<std::string> names;
        for (ErrorCode code : kAllCodes) names.emplace_back(ErrorCodeName(code));
        return names;
      },
      "The short name of every hzio::ErrorCode (e.g. 'not_found'), in declaration order.");
  m.def(
      "_raise_error",
      [](const std::string& name, const std::string& message) {
        for (ErrorCode code : kAllCodes)
          if (ErrorCodeName(code) == name) throw Error(code, message);
        throw Error(ErrorCode::kInvalidArgument, "no error code named '" + name + "'");
      },
      nb::arg("code"), nb::arg("message"),
      "Raises the library's error `code` with `message` through the C++ translation (for tests).");
}

}  // namespace hzio::python
