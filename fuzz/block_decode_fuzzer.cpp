// Fuzzes a block file end to end: the fuzzer's bytes become the block file of a small dataset
// (block table + payloads, any codec), which is then read at every level.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "hzio/access/dataset.h"
#include "hzio/util/error.h"

namespace {

const std::string& DatasetDir() {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path() / ("hzio_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d + "/f");
    std::ofstream(d + "/f.idx") << "(version)\n6\n(box)\n0 9 0 6\n(fields)\nv int16 default_value(3) \n"
                                   "+ w float32[2] \n(bits)\nV0101010\n(bitsperblock)\n4\n(blocksperfile)\n8\n"
                                   "(filename_template)\n./f/%04x.bin\n";
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = DatasetDir();
  {
    std::ofstream out(dir + "/f/0000.bin", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    hzio::OpenOptions options;
    options.threads = 1;
    auto ds = hzio::OpenDataset(dir + "/f.idx", options);  // reopened: no cached block table
    for (const char* field : {"v", "w"}) {
      for (int h = 0; h <= ds->header().maxh(); ++h) {
        hzio::BoxQuery q;
        q.field = field;
        q.level = h;
        try {
          (void)ds->Read(q);
        } catch (const hzio::Error&) {
        }
      }
      try {
        (void)ds->ReadBlock(0, 0, 1);
      } catch (const hzio::Error&) {
      }
    }
  } catch (const hzio::Error&) {
  }
  return 0;
}
