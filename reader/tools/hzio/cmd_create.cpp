// `hzio create`: a new, empty dataset from dims, fields and storage options (design.md §3).
#include <cstdio>
#include <set>

#include "cli.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/util/error.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio create OUT.idx --dims X,Y[,Z] --field NAME:DTYPE [--field ...] [--time T0:T1]\n"
    "                   [--bitsperblock N] [--blocksperfile N] [--compression raw|zip|lz4|png|jpg|zfp]\n"
    "                   [--layout hzorder|rowmajor] [--arco SIZE] [--wait] [--sync]\n"
    "\n"
    "Creates an empty IDX version-6 dataset (header only) that `hzio convert` and the library fill.\n"
    "\n"
    "  --dims X,Y[,Z]       samples per axis, x first; a last axis of 1 is refused (write it as 2-D)\n"
    "  --field NAME:DTYPE   a field, e.g. temperature:float32, rgb:uint8[3] (repeatable, in order)\n"
    "  --time T0:T1         timesteps T0..T1, both included (OpenVisus `(time) T0 T1 time_%04d/`);\n"
    "                       or --time T for one. Without it: one timestep, 0, no time in file names\n"
    "  --bitsperblock N     log2 of samples per block (default min(maxh, 16))\n"
    "  --blocksperfile N    blocks per file; -1 = one file per timestep (default: -1 when a timestep\n"
    "                       is under 2 GiB, else OpenVisus's guess of 128 MiB of blocks per file)\n"
    "  --compression C      raw, zip (default, as OpenVisus CreateIdx), lz4, png or jpg (uint8,\n"
    "                       uint8[3], png also uint8[4]; 2-D), zfp[-MODE[-MODE]] (one float32,\n"
    "                       float64, int32 or int64; MODE reversible (default), precision=N or\n"
    "                       accuracy=X), as OpenVisus spells them (idx-format.md §5)\n"
    "  --layout L           rowmajor (default, OpenVisus v6) or hzorder\n"
    "  --arco SIZE          an ARCO dataset (idx-format.md §4.12): one file per block of at most\n"
    "                       SIZE bytes (1mb as OpenVisus's create_idx, 512kb, or bytes), blocks\n"
    "                       under OUT/<time>/<field>/; compression raw unless --compression says\n"
    "                       otherwise (OpenVisus 2.2.149's db.write stores raw payloads in ARCO\n"
    "                       datasets whatever their header says: fill a raw one, then run its\n"
    "                       compress_dataset()). hzio writes ARCO datasets whole (`hzio convert\n"
    "                       --arco SIZE` of an array): it refuses to fill or change an existing one\n"
    "  --wait               wait while another writer holds OUT.idx.lock (default: fail at once)\n"
    "  --sync               flush the header to disk before returning\n"
    "\n"
    "The bitmask is guessed from the dims as OpenVisus does; block files go to OUT/ beside OUT.idx.\n"
    "The header records that no field/timestep has been written yet (`(hzio written)`, a key\n"
    "OpenVisus ignores): `hzio info` and `verify` list the parts never written, `read` notes them.\n";

// §1.3: options are found by substring, so names must not contain option words or separators.
Field ParseFieldOption(const Args& args, const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw args.Usage("option '--field' expects NAME:DTYPE, got '" + text + "'");
  Field f;
  f.name = text.substr(0, colon);
  CheckFieldName(args, f.name, "--field");
  f.dtype = ParseDTypeOption(args, text.substr(colon + 1), "--field");
  return f;
}

}  // namespace

int RunCreate(int argc, char** argv) {
  Args args("create", kUsage);
  args.Option("--dims").Option("--field", "", true).Option("--time");
  AddStorageOptions(args);
  AddWriteOptions(args);
  if (!args.Parse(argc, argv, 1, 1, "OUT.idx")) return 0;
  const std::string out = args.positionals()[0];
  Check(!IsRemoteUrl(out), ErrorCode::kUnsupported,
        "hzio create writes local datasets, not " + out.substr(0, out.find('?')) +
            ": an object store takes whole ARCO datasets, uploaded by `hzio copy SRC.idx " +
            out.substr(0, out.find('?')) + "`");

  const std::optional<std::string> dims_text = args.Get("--dims");
  if (!dims_text) throw args.Usage("missing --dims X,Y[,Z]");
  const Point dims = ParseDims(args, *dims_text, "--dims");
  CheckNoTrailingUnitAxes(args, dims, "--dims");
  if (!args.Has("--field")) throw args.Usage("missing --field NAME:DTYPE");
  std::vector<Field> fields;
  std::set<std::string> names;
  for (const std::string& text : args.GetAll("--field")) {
    fields.push_back(ParseFieldOption(args, text));
    if (!names.insert(fields.back().name).second)
      throw args.Usage("option '--field': field '" + fields.back().name + "' given twice");
  }
  std::optional<std::pair<int64_t, int64_t>> time;
  if (std::optional<std::string> t = args.Get("--time")) time = ParseTimeRange(args, *t);
  StorageOptions storage = ReadStorageOptions(args);
  if (storage.arco > 0 && !storage.compression_given) storage.compression = "raw";  // as ov.create_idx

  const IdxHeader header = BuildNewHeader(out, dims, std::move(fields), time, storage);
  CreateEmptyDataset(out, header, ReadWriteOptions(args));

  std::printf("created %s: box %s, bitmask %s, %zu field(s), ", out.c_str(), header.box.ToRangesString().c_str(),
              header.bitmask.text().c_str(), header.fields.size());
  if (time) std::printf("timesteps %lld..%lld, ", static_cast<long long>(time->first), static_cast<long long>(time->second));
  std::printf("bitsperblock %d, blocksperfile %lld", header.bits_per_block,
              static_cast<long long>(header.blocks_per_file));
  if (header.arco > 0) std::printf(", ARCO blocks of at most %lld bytes", static_cast<long long>(header.arco));
  std::printf("\n");
  return 0;
}

}  // namespace hzio::cli
