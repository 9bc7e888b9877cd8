/// NumPy `.npy` files (format versions 1.0, 2.0 and 3.0), the array exchange format of the `hzio`
/// command line (design.md §3): C-order arrays of little-endian integer and float scalars, read
/// by random access (so inputs larger than memory stream slab by slab) and written as a stream.
/// Shapes map onto hzio's x-first dims by reversing the axes; a vector dtype with N components
/// keeps them on a trailing numpy axis of length N (idx-format.md §1.4: components contiguous).
/// This file knows only descr strings ("<f4"); mapping them to DType is done by callers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/util/box.h"

namespace hzio {

/// The parsed dictionary of a .npy header plus where the data starts.
struct NpyHeader {
  std::string descr;            // normalised: "|u1", "|i1", "<u2", ..., "<f8"
  bool fortran_order = false;
  std::vector<int64_t> shape;   // slowest axis first; empty = a 0-d scalar
  int64_t data_offset = 0;      // bytes before the first sample

  /// Bytes of one scalar element (from descr).
  int64_t ItemBytes() const;
  int64_t NumElements() const;
  int64_t DataBytes() const { return NumElements() * ItemBytes(); }
};

/// The descr of a supported scalar type, normalised ("<u1" -> "|u1", "=f4" -> "<f4"); throws
/// kUnsupported naming `source` for big-endian, bool, complex, structured or unknown types.
std::string NormalizeNpyDescr(const std::string& descr, const std::string& source);
/// hzio's name of a supported descr: "|u1" -> "uint8", "<f8" -> "float64".
std::string NpyDescrToTypeName(const std::string& descr);

/// Parses the bytes at the start of a file (magic, version, header length, dictionary). `size` may
/// exceed the header; throws kCorrupt naming `source` when the header is malformed or truncated,
/// kUnsupported for Fortran order and unsupported dtypes.
NpyHeader ParseNpyHeader(const uint8_t* bytes, size_t size, const std::string& source);
/// The header bytes for `descr` and `shape`, C order: version 1.0 when the dictionary fits, else
/// 2.0; padded with spaces to a multiple of 64 bytes, ending in '\n'.
std::string EncodeNpyHeader(const std::string& descr, const std::vector<int64_t>& shape);

/// hzio dims (x first) of a numpy shape (slowest first). With `components` > 1 the last axis must
/// have exactly that length and is dropped. Throws kInvalidArgument naming `source` otherwise.
Point NpyShapeToDims(const std::vector<int64_t>& shape, int components, const std::string& source);
/// The numpy shape of an array of `dims` (x first) with `components` per sample.
std::vector<int64_t> DimsToNpyShape(const Point& dims, int components);

/// A .npy file opened for random-access reads of its data (pread; never loads the whole file).
class NpyReader {
 public:
  explicit NpyReader(const std::string& path);
  ~NpyReader();
  NpyReader(const NpyReader&) = delete;
  NpyReader& operator=(const NpyReader&) = delete;

  const NpyHeader& header() const { return header_; }
  const std::string& path() const { return path_; }
  /// Reads `size` bytes starting `offset` bytes into the data. Thread-safe.
  void ReadData(int64_t offset, int64_t size, uint8_t* out) const;
  /// Reads `count` slabs (index ranges of the slowest axis) starting at `first`.
  void ReadSlabs(int64_t first, int64_t count, uint8_t* out) const;
  /// Bytes of one slab: all elements of one index of the slowest axis.
  int64_t SlabBytes() const;

 private:
  void ReadDataAt(size_t size, uint8_t* out, int64_t file_offset) const;

  std::string path_;
  int fd_ = -1;
  NpyHeader header_;
};

/// Writes a .npy file as a stream: header first, then Write() calls that together supply exactly
/// DataBytes(); Finish() checks the count and closes. Without Finish() the file is removed.
class NpyWriter {
 public:
  NpyWriter(std::string path, const std::string& descr, const std::vector<int64_t>& shape);
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;

  void Write(const uint8_t* data, int64_t size);
  void Finish();

 private:
  std::string path_;
  int fd_ = -1;
  int64_t expected_ = 0;
  int64_t written_ = 0;
};

/// Writes a whole array in one call.
void WriteNpyFile(const std::string& path, const std::string& descr,
                  const std::vector<int64_t>& shape, const uint8_t* data);

}  // namespace hzio
