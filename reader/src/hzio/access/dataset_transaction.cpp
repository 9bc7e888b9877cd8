#include "hzio/access/dataset_transaction.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "hzio/access/arco_parts.h"
#include "hzio/access/block_file_copy.h"
#include "hzio/access/dataset_leftovers.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/format/block_files.h"
#include "hzio/storage/durable_file.h"
#include "hzio/storage/file.h"
#include "hzio/storage/lock_file.h"
#include "hzio/util/crash_point.h"
#include "hzio/util/error.h"

namespace hzio {

namespace fs = std::filesystem;

namespace {

int64_t Slots(const IdxHeader& h) { return h.blocks_per_file * static_cast<int64_t>(h.fields.size()); }

// hzio reads PIDX's chunked layout as a plain IDX dataset (format/pidx_chunking.h) but never writes
// chunk records: every write into one is refused, before its lock file is made.
void CheckWritable(const IdxHeader& header, const std::string& idx_path) {
  Check(!header.pidx_chunking, ErrorCode::kUnsupported,
        idx_path + ": a PIDX chunked dataset ((compression type) 1) is read-only in hzio; read it and "
                   "convert the arrays into a new dataset");
}

// `spec` with timestep t declared; runs of consecutive timesteps joined ("0 2 time_%04d/").
TimeSpec WithTimestep(TimeSpec spec, int64_t t) {
  std::vector<TimeRange> ranges = spec.ranges;
  if (ranges.empty()) ranges.push_back(TimeRange{0, 0, 1});  // no (time) ranges: timestep 0 only
  ranges.push_back(TimeRange{t, t, 1});
  std::sort(ranges.begin(), ranges.end(), [](const TimeRange& a, const TimeRange& b) { return a.from < b.from; });
  std::vector<TimeRange> merged;
  for (const TimeRange& r : ranges) {
    if (!merged.empty() && merged.back().step == 1 && r.step == 1 && r.from <= merged.back().to + 1)
      merged.back().to = std::max(merged.back().to, r.to);
    else
      merged.push_back(r);
  }
  spec.ranges = std::move(merged);
  return spec;
}

}  // namespace

DatasetTransaction::DatasetTransaction(std::string idx_path, TransactionOptions options)
    : idx_path_(std::move(idx_path)), options_(std::move(options)) {
  struct stat st {};
  if (::stat(idx_path_.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    CheckWritable(IdxHeader::Parse(ReadWholeFile(idx_path_), idx_path_, IdxStemOf(idx_path_)), idx_path_);
  LockOptions lock_options;
  lock_options.wait = options_.wait;
  lock_options.on_wait = options_.notify;
  lock_ = LockFile::Acquire(LockPathFor(idx_path_), idx_path_, lock_options);
  CrashPoint("locked " + idx_path_);
  RemoveHeaderTemporaries();
  if (::stat(idx_path_.c_str(), &st) == 0) {
    Check(S_ISREG(st.st_mode), ErrorCode::kInvalidArgument, idx_path_ + " exists and is not a regular file");
    committed_ = IdxHeader::Parse(ReadWholeFile(idx_path_), idx_path_, IdxStemOf(idx_path_));
    CheckWritable(*committed_, idx_path_);  // replaced by another between the two reads
    target_ = committed_;
    mode_ = Mode::kAppend;
  } else if (errno != ENOENT) {
    throw OsError(idx_path_, "cannot stat");
  }
}

DatasetTransaction::~DatasetTransaction() {
  if (!done_) Abort();
  else RemoveSuperseded();
}

const IdxHeader& DatasetTransaction::committed() const {
  Check(committed_.has_value(), ErrorCode::kInternal, idx_path_ + ": no committed dataset");
  return *committed_;
}

const IdxHeader& DatasetTransaction::target() const {
  Check(target_.has_value(), ErrorCode::kInternal, idx_path_ + ": the new dataset's header is not set");
  return *target_;
}

IdxHeader& DatasetTransaction::MutableTarget() {
  Check(!done_, ErrorCode::kInternal, idx_path_ + ": the transaction is already committed");
  Check(target_.has_value(), ErrorCode::kInvalidArgument,
        idx_path_ + ": no dataset there (create it first: `hzio create`, or convert an array into it)");
  return *target_;
}

void DatasetTransaction::RemoveHeaderTemporaries() {
  // Only a writer holding the lock makes `<name>.idx.tmp.<pid>`: any there now was left by a
  // killed one.
  const std::string prefix = fs::path(idx_path_).filename().string() + ".tmp.";
  std::error_code ec;
  for (auto it = fs::directory_iterator(IdxDirectory(idx_path_), ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && IsTemporaryName(name)) RemovePath(it->path().string());
  }
}

void DatasetTransaction::Note(const std::string& message) const {
  if (options_.notify) options_.notify(message);
}

void DatasetTransaction::Create(IdxHeader header) {
  Check(!committed_, ErrorCode::kInvalidArgument, idx_path_ + ": a dataset already exists there");
  Check(staged_.empty(), ErrorCode::kInternal, idx_path_ + ": Create after files were staged");
  header.Validate(IdxStemOf(idx_path_));
  target_ = std::move(header);
  mode_ = Mode::kNew;
  // Files an earlier, failed attempt left where this dataset's files go would be read as its own.
  if (target_->arco > 0) {  // ARCO (§4.12): the part directories of its fields and timesteps
    const std::string root = ArcoRoot(idx_path_);
    for (int64_t t : target_->time.List())
      for (const Field& f : target_->fields) RemoveTree(ArcoPartDirectory(root, t, f.name));
    return;
  }
  for (const BlockFileRef& f : ExistingBlockFiles(*target_, idx_path_)) RemovePath(f.path);
}

void DatasetTransaction::Replace(IdxHeader header) {
  Check(committed_.has_value(), ErrorCode::kInternal, idx_path_ + ": Replace without a committed dataset");
  Check(staged_.empty(), ErrorCode::kInternal, idx_path_ + ": Replace after files were staged");
  header.Validate(IdxStemOf(idx_path_));
  const std::string old_dir = DataDirectoryOf(*committed_, idx_path_).path;
  int64_t n = std::max(Generation(*committed_), Generation(header)) + 1;
  while (DataDirectoryOf(WithGeneration(header, idx_path_, n), idx_path_).path == old_dir) ++n;
  target_ = WithGeneration(header, idx_path_, n);
  mode_ = Mode::kReplace;
  PrepareGenerationDirectory(n);
}

void DatasetTransaction::RemoveCommitted() {
  Check(committed_.has_value(), ErrorCode::kInternal, idx_path_ + ": RemoveCommitted without a committed dataset");
  Check(staged_.empty(), ErrorCode::kInternal, idx_path_ + ": RemoveCommitted after files were staged");
  Check(committed_->arco == 0, ErrorCode::kUnsupported,
        idx_path_ + " is an ARCO dataset: it cannot be replaced in place (remove it first)");
  RemovePath(idx_path_);
  if (options_.sync) SyncDirectory(IdxDirectory(idx_path_));
  RemoveOtherGenerations(*committed_, idx_path_);
  RemoveGenerationOf(*committed_, idx_path_);
  committed_.reset();
  target_.reset();
  mode_ = Mode::kNew;
}

void DatasetTransaction::PrepareGenerationDirectory(int64_t generation) {
  generation_dir_ = DataDirectoryOf(*target_, idx_path_).path;
  Check(Generation(*target_) == generation, ErrorCode::kInternal, "generation mismatch");
  // Under the lock, a directory of this name is what a killed writer staged: never committed.
  RemoveTree(generation_dir_);
  MakeDirectories(generation_dir_);
}

void DatasetTransaction::SwitchToGeneration() {
  if (mode_ == Mode::kGeneration || mode_ == Mode::kReplace) return;
  Check(mode_ == Mode::kAppend, ErrorCode::kInternal, idx_path_ + ": a new dataset has no generations to switch");
  const std::string old_dir = DataDirectoryOf(*committed_, idx_path_).path;
  int64_t n = Generation(*committed_) + 1;
  while (DataDirectoryOf(WithGeneration(*target_, idx_path_, n), idx_path_).path == old_dir) ++n;
  target_ = WithGeneration(*target_, idx_path_, n);
  PrepareGenerationDirectory(n);
  mode_ = Mode::kGeneration;
  // Files staged for new timesteps so far move along (nobody has them open: see StageFile).
  for (auto& [key, path] : staged_) {
    const std::string moved = TargetPath(key.first, key.second);
    MakeDirectories(ParentDirectory(moved));
    RenameFile(path, moved);
    path = moved;
  }
}

void DatasetTransaction::RemoveLeftoversOfTimestep(int64_t time) {
  for (const BlockFileRef& f : ExistingBlockFiles(*target_, idx_path_, time)) RemovePath(f.path);
}

void DatasetTransaction::AddTimestep(int64_t time) {
  IdxHeader& h = MutableTarget();
  if (h.time.Contains(time)) return;
  Check(!h.time.tmpl.empty(), ErrorCode::kUnsupported,
        idx_path_ + " has no time template, so it holds one timestep only (create it with "
                    "`hzio create --time T0:T1`, or convert the first array with --time)");
  h.time = WithTimestep(h.time, time);
  h.has_time = true;
  // A killed writer may have left files of this timestep (it was never declared): never read them.
  if (mode_ == Mode::kNew || mode_ == Mode::kAppend) RemoveLeftoversOfTimestep(time);
}

void DatasetTransaction::AddField(const Field& field) {
  IdxHeader& h = MutableTarget();
  Check(h.version == 6, ErrorCode::kUnsupported, idx_path_ + ": only version 6 datasets can get new fields");
  for (const Field& f : h.fields)
    Check(f.name != field.name, ErrorCode::kInvalidArgument, idx_path_ + " already has a field '" + field.name + "'");
  IdxHeader grown = h;
  grown.fields.push_back(field);
  grown.Validate(IdxStemOf(idx_path_));  // refuses tables that would grow beyond a sane size
  h = std::move(grown);
  if (mode_ == Mode::kAppend) SwitchToGeneration();  // every existing table grows
}

void DatasetTransaction::MarkWritten(int field, int64_t time) {
  const IdxHeader& h = target();
  Check(field >= 0 && field < static_cast<int>(h.fields.size()), ErrorCode::kInternal, "MarkWritten: no such field");
  written_.Add(h.fields[static_cast<size_t>(field)].name, time);
}

std::string DatasetTransaction::TargetPath(uint64_t first_block, int64_t time) const {
  return BlockFiles(target(), IdxDirectory(idx_path_)).FilePath(first_block, time);
}

DatasetTransaction::FileSlot DatasetTransaction::StageFile(uint64_t first_block, int64_t time,
                                                           const std::function<void()>& before_moving) {
  Check(!done_, ErrorCode::kInternal, idx_path_ + ": StageFile after Commit");
  Check(target().time.Contains(time), ErrorCode::kNotFound,
        idx_path_ + ": timestep " + std::to_string(time) + " is not declared");
  const bool visible = committed_ && committed_->time.Contains(time);
  if (mode_ == Mode::kAppend && visible) {
    if (!staged_.empty() && before_moving) before_moving();
    SwitchToGeneration();
  }
  FileSlot slot;
  slot.path = TargetPath(first_block, time);
  MakeDirectories(ParentDirectory(slot.path));
  staged_[Key{first_block, time}] = slot.path;
  if (mode_ == Mode::kGeneration && visible) {
    const std::string old = BlockFiles(*committed_, IdxDirectory(idx_path_)).FilePath(first_block, time);
    if (FileExists(old)) {
      slot.previous = old;
      slot.previous_slots = Slots(*committed_);
    }
  }
  return slot;
}

void DatasetTransaction::RewritePacked(uint64_t first_block, int64_t time) {
  Check(committed_.has_value(), ErrorCode::kInternal, idx_path_ + ": nothing committed to rewrite");
  SwitchToGeneration();
  packed_.insert(Key{first_block, time});
}

void DatasetTransaction::CarryOver() {
  const int64_t old_slots = Slots(*committed_), new_slots = Slots(*target_);
  for (const BlockFileRef& old : ExistingBlockFiles(*committed_, idx_path_)) {
    const Key key{old.first_block, old.time};
    if (staged_.count(key)) continue;
    const std::string path = TargetPath(old.first_block, old.time);
    MakeDirectories(ParentDirectory(path));
    if (old_slots != new_slots || packed_.count(key))
      CopyBlockFilePacked(old.path, old_slots, path, new_slots, options_.sync);
    else
      LinkOrCopy(old.path, path);
    carried_[key] = path;
  }
}

void DatasetTransaction::SyncStaged() {
  std::set<std::string> dirs;
  for (const auto& [key, path] : staged_) {
    SyncFile(path);
    dirs.insert(ParentDirectory(path));
  }
  for (const auto& [key, path] : carried_) dirs.insert(ParentDirectory(path));
  const DataDirectory data = DataDirectoryOf(*target_, idx_path_);
  if (data.dedicated && fs::is_directory(data.path)) {
    // Files written by other processes (hzio::mpi aggregators fsync their own) sit in these too.
    dirs.insert(data.path);
    dirs.insert(ParentDirectory(data.path));
    for (const auto& entry : fs::recursive_directory_iterator(data.path))
      if (entry.is_directory()) dirs.insert(entry.path().string());
  }
  for (const std::string& d : dirs) SyncDirectory(d);
}

IdxHeader DatasetTransaction::HeaderToCommit() const {
  IdxHeader h = *target_;
  std::optional<WrittenParts> record;
  if (mode_ == Mode::kNew || mode_ == Mode::kReplace) {
    record = written_;
  } else if ((record = WrittenParts::Of(*committed_))) {
    record->AddAll(written_);
  } else if (!committed_->time.any) {
    // Unknown so far: every committed part counts as written; so does what this commit wrote.
    record = written_;
    for (const Field& f : committed_->fields)
      for (int64_t t : committed_->time.List()) record->Add(f.name, t);
  }
  if (!record) return h;
  // ARCO parts are filled by writers that leave the header as it is (OpenVisus's db.write into an
  // empty dataset of `hzio create --arco`): a record would call their data never written.
  if (h.arco > 0) {
    SetMetadataValue(h, kWrittenKey, std::nullopt);
    return h;
  }
  // A record that covers every declared part says nothing the absence of the key does not: drop
  // it (a dataset written whole has the header OpenVisus would write).
  bool complete = !h.time.any;
  for (const Field& f : h.fields)
    for (int64_t t : complete ? h.time.List() : std::vector<int64_t>{})
      if (!record->Contains(f.name, t)) complete = false;
  if (complete)
    SetMetadataValue(h, kWrittenKey, std::nullopt);
  else
    record->StoreInto(h);
  return h;
}

void DatasetTransaction::Commit(bool remove_superseded) {
  Check(!done_, ErrorCode::kInternal, idx_path_ + ": Commit called twice");
  target();
  if (mode_ == Mode::kGeneration) CarryOver();
  if (options_.sync) SyncStaged();
  const IdxHeader header = HeaderToCommit();
  CrashPoint("staged " + idx_path_);
  WriteFileAtomically(idx_path_, header.ToText(), options_.sync);  // the commit
  done_ = true;
  if (committed_ && (mode_ == Mode::kGeneration || mode_ == Mode::kReplace)) superseded_ = committed_;
  committed_ = header;
  target_ = header;
  if (remove_superseded) RemoveSuperseded();
}

void DatasetTransaction::RemoveSuperseded() noexcept {
  // The new version is in place; what it superseded is garbage. A failure here costs space only,
  // never data.
  if (superseded_) {
    try {
      RemoveGenerationOf(*superseded_, idx_path_);
      RemoveOtherGenerations(*committed_, idx_path_);
    } catch (const std::exception& e) {
      Note(std::string("the superseded version's files were not all removed (") + e.what() +
           "); `hzio verify --repair` removes them");
    }
    superseded_.reset();
  }
  if (lock_) CrashPoint("unlocking " + idx_path_);
  lock_.reset();
}

void DatasetTransaction::Abort() noexcept {
  try {
    if (mode_ == Mode::kGeneration || mode_ == Mode::kReplace) {
      RemoveTree(generation_dir_);
    } else {
      const std::string stop = mode_ == Mode::kNew ? IdxDirectory(idx_path_) : DataDirectoryOf(*target_, idx_path_).path;
      for (const auto& [key, path] : staged_) {
        RemovePath(path);
        RemoveEmptyDirectories(ParentDirectory(path), stop);
      }
      // A new dataset's files may also have been written by other processes (hzio::mpi ranks):
      // nothing is committed, so whatever sits at its paths goes.
      if (mode_ == Mode::kNew && target_) {
        for (const BlockFileRef& f : ExistingBlockFiles(*target_, idx_path_)) {
          if (RemovePath(f.path)) RemoveEmptyDirectories(ParentDirectory(f.path), stop);
        }
      }
    }
  } catch (const std::exception& e) {
    Note(std::string("staged files of the abandoned write were not all removed (") + e.what() +
         "); `hzio verify --repair` removes them");
  }
}

}  // namespace hzio
