// Fuzzes block decoding two ways. End to end: the fuzzer's bytes become the block file of two
// small datasets (block table + payloads, any codec code), which are then read at every level:
// `f` (int16, float32[2]) and `g` (png uint8[3], jpg uint8, zfp float32/float64/int32 in the three
// zfp modes, idx-format.md §5). Directly: the bytes are decoded as one png, jpg and zfp payload
// of several shapes, so that mutations of real payloads (fuzz/corpus/block_decode/) reach deep
// into libpng, libjpeg and zfp. Only hzio::Error may come out; anything else is a finding.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/codec/codec.h"
#include "hzio/util/error.h"

namespace {

struct FuzzDataset {
  const char* name;
  const char* header;
};

// g: 8x8, bpb 4, 4 blocks of 4x4 (block 0: stride 2), one file of 4 slots per field.
const FuzzDataset kDatasets[] = {
    {"f", "(version)\n6\n(box)\n0 9 0 6\n(fields)\nv int16 default_value(3) \n+ w float32[2] \n(bits)\nV0101010\n"
          "(bitsperblock)\n4\n(blocksperfile)\n8\n(filename_template)\n./f/%04x.bin\n"},
    {"g", "(version)\n6\n(box)\n0 7 0 7\n(fields)\np uint8[3] default_compression(png) \n"
          "+ j uint8 default_compression(jpg) \n+ z float32 default_compression(zfp-accuracy=0.01) \n"
          "+ r float64 default_compression(zfp) \n+ i int32 default_compression(zfp-precision=32-precision=32) \n"
          "(bits)\nV010101\n(bitsperblock)\n4\n(blocksperfile)\n4\n(filename_template)\n./g/%04x.bin\n"},
};

const std::string& DatasetDir() {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path() / ("hzio_fuzz_" + std::to_string(::getpid()));
    for (const FuzzDataset& ds : kDatasets) {
      std::filesystem::create_directories(d + "/" + ds.name);
      std::ofstream(d + "/" + ds.name + ".idx") << ds.header;
    }
    return d;
  }();
  return dir;
}

void ReadEverything(const std::string& idx) {
  try {
    hzio::OpenOptions options;
    options.threads = 1;
    auto ds = hzio::OpenDataset(idx, options);  // reopened: no cached block table
    for (const hzio::Field& field : ds->header().fields) {
      for (int h = 0; h <= ds->header().maxh(); ++h) {
        hzio::BoxQuery q;
        q.field = field.name;
        q.level = h;
        try {
          (void)ds->Read(q);
        } catch (const hzio::Error&) {
        }
      }
      try {
        (void)ds->ReadBlock(ds->header().FieldIndex(field.name), 0, 1);
      } catch (const hzio::Error&) {
      }
    }
  } catch (const hzio::Error&) {
  }
}

struct DirectCase {
  const char* spec;
  const char* dtype;
  hzio::Point dims;
};

const DirectCase kDirect[] = {
    {"png", "uint8[3]", hzio::Point{4, 4}},        {"png", "uint8", hzio::Point{8, 1, 2}},
    {"png", "uint8[4]", hzio::Point{3, 5}},        {"jpg", "uint8", hzio::Point{4, 4}},
    {"jpg", "uint8[3]", hzio::Point{16, 8}},       {"zfp", "float32", hzio::Point{4, 4}},
    {"zfp", "float64", hzio::Point{5, 3, 2}},      {"zfp-accuracy=0.01", "float32", hzio::Point{4, 4}},
    {"zfp-precision=20", "float64", hzio::Point{4, 4, 4}}, {"zfp", "int32", hzio::Point{4, 4}},
    {"zfp-precision=32", "int64", hzio::Point{2, 3, 4}},
};

void DecodeDirectly(const uint8_t* data, size_t size) {
  for (const DirectCase& c : kDirect) {
    try {
      const hzio::SampleShape shape{hzio::DType::Parse(c.dtype), c.dims};
      std::vector<uint8_t> out(static_cast<size_t>(shape.dtype.BytesFor(c.dims.Product())));
      hzio::Decode(hzio::CodecSpec::Parse(c.spec), data, size, shape, out.data(), out.size(), "fuzz");
    } catch (const hzio::Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = DatasetDir();
  for (const FuzzDataset& ds : kDatasets) {
    {
      std::ofstream out(dir + "/" + ds.name + "/0000.bin", std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    ReadEverything(dir + "/" + ds.name + ".idx");
  }
  DecodeDirectly(data, size);
  return 0;
}
