// Fuzzes the .idx header parser (text and XML forms) and the validated header's writers.
#include <cstdint>
#include <string>

#include "hzio/format/block_files.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"
#include "hzio/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hzio::IdxHeader h = hzio::IdxHeader::Parse(text, "fuzz.idx");
    // A header that validates must round-trip through its own text form.
    hzio::IdxHeader again = hzio::IdxHeader::Parse(h.ToText(), "again.idx");
    if (again.ToText() != h.ToText()) __builtin_trap();
    (void)h.ToXml("fuzz");
    hzio::BlockLayout layout(h.bitmask, h.bits_per_block);
    (void)layout.QueryGrid(h.box, hzio::LevelRange{0, h.maxh()});
    // Its templates reach printf when a block's file is named.
    const hzio::BlockFiles files(h, "/fuzz");
    (void)files.FilePath(0, h.time.Default());
    (void)files.FilePath(~uint64_t{0} >> 1, h.time.Default());
  } catch (const hzio::Error&) {
    // Rejected with a clear error: the expected outcome for most inputs.
  }
  return 0;
}
