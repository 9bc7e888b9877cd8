/// The `hzio` command line (design.md §3): one Run function per subcommand and the helpers they
/// share for parsing dims, dtypes and storage options into the library's types. Commands are
/// thin: datasets are opened, read, written and verified by hzio::core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_transaction.h"
#include "hzio/format/idx_header.h"
#include "hzio/storage/file.h"
#include "hzio/util/box.h"
#include "hzio/util/strings.h"

namespace hzio::cli {

int RunInfo(int argc, char** argv);
int RunCreate(int argc, char** argv);
int RunConvert(int argc, char** argv);
int RunCopy(int argc, char** argv);
int RunRead(int argc, char** argv);
int RunVerify(int argc, char** argv);
int RunGc(int argc, char** argv);
int RunServe(int argc, char** argv);
int RunPasswd(int argc, char** argv);

/// Parses "X,Y[,Z]" sample counts given to `option`; every count must be >= 1.
Point ParseDims(const Args& args, const std::string& text, const std::string& option);
/// Parses a dtype given to `option` (idx-format.md §1.4), as a usage error when malformed.
DType ParseDTypeOption(const Args& args, const std::string& text, const std::string& option);
/// Rejects field names that OpenVisus would misparse (idx-format.md §1.3 substring options).
void CheckFieldName(const Args& args, const std::string& name, const std::string& option);
/// Rejects dims whose last axes have extent 1 (idx-format.md §8.6: OpenVisus cannot read them).
void CheckNoTrailingUnitAxes(const Args& args, const Point& dims, const std::string& option);
/// "a/b/name.idx" -> "name" (what OpenVisus puts into the guessed filename template, §2.4).
std::string IdxStem(const std::string& idx_path);
/// numpy-style shape "(16, 32, 64)".
std::string FormatShape(const std::vector<int64_t>& shape);

/// The storage choices shared by `create` and `convert` for a new dataset.
struct StorageOptions {
  std::string compression = "zip";  // "" (raw), "zip" or "lz4"
  bool hz_layout = false;           // OpenVisus v6 default: row-major
  int bits_per_block = 0;           // 0 = min(maxh, 16)
  std::optional<int64_t> blocks_per_file;
  bool compression_given = false, layout_given = false;
  int64_t arco = 0;                 // > 0: ARCO, one file per block of at most this many bytes (§4.12)
};
/// Declares --compression, --layout, --bitsperblock, --blocksperfile, --arco.
void AddStorageOptions(Args& args);
StorageOptions ReadStorageOptions(const Args& args);

/// A new version-6 header like OpenVisus's CreateIdx makes: box [0, dims), guessed bitmask, the
/// fields with the storage options applied, timesteps [t0, t1] with template "time_%04d/" when
/// given, blocksperfile "all in one file" below 2 GiB per timestep and the §2.3 guess above,
/// the filename template guessed from the .idx stem (§2.4). Validated.
IdxHeader BuildNewHeader(const std::string& idx_path, const Point& dims, std::vector<Field> fields,
                         std::optional<std::pair<int64_t, int64_t>> time, const StorageOptions& storage);
/// Parses "T" or "T0:T1" (inclusive, like OpenVisus's `(time) T0 T1`).
std::pair<int64_t, int64_t> ParseTimeRange(const Args& args, const std::string& text);

/// Prints "hzio: note: MESSAGE" on stderr.
void PrintNote(const std::string& message);
/// Declares --wait and --sync, the options of every command that writes a dataset.
void AddWriteOptions(Args& args);
/// The transaction options those give (notes go to stderr).
TransactionOptions ReadWriteOptions(const Args& args);

/// The help lines of the dataset URL forms and of the cache options, for the commands' usage texts.
extern const char kDatasetHelp[];
extern const char kCacheHelp[];
/// Declares --cache-dir DIR, --cache-size SIZE and --no-cache (the disk cache of remote blocks).
void AddCacheOptions(Args& args);
/// Applies them to `options` (not given: HZIO_CACHE_DIR / HZIO_CACHE_SIZE, else ~/.cache/hzio, 10 GiB).
void ReadCacheOptions(const Args& args, OpenOptions& options);

/// Reads and validates the header of an existing local .idx.
IdxHeader ReadLocalHeader(const std::string& idx_path);

}  // namespace hzio::cli
