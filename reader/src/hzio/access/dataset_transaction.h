/// A write to a classic IDX dataset as a transaction (TEAM contract 3): whatever happens —
/// a crash, `kill -9`, a full disk — the dataset reads as exactly its old version or exactly its
/// new one (a new dataset: absent). Every writer goes through it (`hzio create`/`convert`,
/// DatasetWriter, AddField/AddTimestep, hzio::mpi::ParallelWriter, `verify --repair`).
///
///  * The writer's lock (storage/lock_file.h) is taken first and held to the end; the committed
///    header is read under it.
///  * Block files of the committed version are never modified. A write that only adds timesteps
///    creates their files (fresh names: the time template gives them their own paths). Any other
///    change of existing files (a field or timestep that readers can see, a new field, a repair)
///    writes a new generation of the data directory (access/dataset_paths.h): the files it
///    changes are written there anew, every other file is hard-linked (copied with a wider table
///    when a field is added), and the new header names that directory.
///  * Commit() makes the staged data durable when asked (fsync of files, then of directories),
///    then renames the new `.idx` into place — the one atomic step — and then removes the
///    superseded generation. Readers holding the old header then see files vanish, which they
///    report as kChanged (contract 3) and reopen.
///  * Without Commit() (an error, an abandoned write) the destructor removes what was staged.
///  * `(hzio written)` (format/hzio_keys.h) records which field/timestep parts have data.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "hzio/format/hzio_keys.h"
#include "hzio/format/idx_header.h"

namespace hzio {

class LockFile;

struct TransactionOptions {
  /// fsync staged files and their directories before the header, and the header after: the
  /// commit then survives a power cut, not only a crash of the process.
  bool sync = false;
  /// Wait for another writer's lock instead of failing with kLocked.
  bool wait = false;
  /// Notes for the user: waiting for a lock, superseded files that could not be removed.
  std::function<void(const std::string&)> notify;
};

class DatasetTransaction {
 public:
  /// Locks the dataset whose header is (or will be) `idx_path` and reads its committed header.
  /// Throws kLocked (another writer), kIo, or the header's parse error.
  explicit DatasetTransaction(std::string idx_path, TransactionOptions options = {});
  /// Without Commit(): removes every staged file, then releases the lock.
  ~DatasetTransaction();
  DatasetTransaction(const DatasetTransaction&) = delete;
  DatasetTransaction& operator=(const DatasetTransaction&) = delete;

  const std::string& idx_path() const { return idx_path_; }
  const TransactionOptions& options() const { return options_; }
  /// Whether a committed dataset is there.
  bool exists() const { return committed_.has_value(); }
  /// The committed header (exists() only).
  const IdxHeader& committed() const;
  /// The header Commit() will write (its template may move to a new generation during the write).
  const IdxHeader& target() const;

  /// A new dataset (!exists()) with this header (validated). Files left at its paths by an earlier
  /// failed attempt are removed now.
  void Create(IdxHeader header);
  /// Replaces the whole dataset (exists()) by one with this header: a new generation into which
  /// everything is written anew; nothing is carried over.
  void Replace(IdxHeader header);
  /// Removes the committed dataset (exists()), the one step here that is not atomic: its `.idx`
  /// first (no reader opens a header whose files are going), then every generation of its data
  /// directory; Create() follows. For output whose files must sit at the paths a reader derives
  /// from the `.idx` name (PIDX-readable output, format/pidx_output.h), where a new generation
  /// cannot stage beside the old files. A failure after it leaves no dataset, never a mix.
  void RemoveCommitted();
  /// Declares timestep `time` (kUnsupported without a time template).
  void AddTimestep(int64_t time);
  /// Appends field `field` (kInvalidArgument if the name exists; kUnsupported before version 6 or
  /// for "* *" timesteps). Every existing block file gets a wider table in a new generation.
  void AddField(const Field& field);
  /// Records that field `field` (index in target()) at `time` received data.
  void MarkWritten(int field, int64_t time);

  /// Where the writer puts its version of the block file holding `first_block` at `time`, and
  /// the committed file it replaces (whose payloads it must carry over; "" when there is none).
  /// Parent directories are created. Writing a timestep the committed header declares moves the
  /// write to a new generation: files staged so far are renamed there, after `before_moving`
  /// (where the caller finishes what it has in flight to the old paths).
  struct FileSlot {
    std::string path;
    std::string previous;
    int64_t previous_slots = 0;  // entries in previous's table
  };
  FileSlot StageFile(uint64_t first_block, int64_t time, const std::function<void()>& before_moving = {});
  /// The path of that file in the target version (after any move).
  std::string TargetPath(uint64_t first_block, int64_t time) const;
  /// Asks for the committed file to be rewritten with its payloads packed (no unreferenced
  /// bytes) in a new generation, instead of linked (`verify --repair`).
  void RewritePacked(uint64_t first_block, int64_t time);

  /// Carries unchanged files over, syncs, renames the new header into place, removes the
  /// superseded generation, releases the lock. Throws (leaving the old version) on failure.
  /// With `remove_superseded` false the last two steps wait for RemoveSuperseded() (or the
  /// destructor): a parallel writer lets its ranks go before it cleans up.
  void Commit(bool remove_superseded = true);
  /// After Commit(false): removes what the commit superseded, then releases the lock. Failures
  /// only cost space (reported through `notify`; `hzio verify --repair` finishes the job).
  void RemoveSuperseded() noexcept;

 private:
  enum class Mode {
    kNew,         // no committed dataset: files go to their final paths
    kAppend,      // only new timesteps: their files go to their final paths
    kGeneration,  // a new generation: changed files written, the others carried over at Commit
    kReplace,     // a new generation written whole (nothing carried over)
  };
  using Key = std::pair<uint64_t, int64_t>;  // first block, time

  IdxHeader& MutableTarget();
  void SwitchToGeneration();
  void PrepareGenerationDirectory(int64_t generation);
  void CarryOver();
  void SyncStaged();
  IdxHeader HeaderToCommit() const;
  void RemoveLeftoversOfTimestep(int64_t time);
  void RemoveHeaderTemporaries();
  void Abort() noexcept;
  void Note(const std::string& message) const;

  std::string idx_path_;
  TransactionOptions options_;
  std::unique_ptr<LockFile> lock_;
  std::optional<IdxHeader> committed_;
  std::optional<IdxHeader> target_;
  Mode mode_ = Mode::kNew;
  std::string generation_dir_;           // kGeneration / kReplace
  std::map<Key, std::string> staged_;    // files written by the caller, by their current path
  std::set<Key> packed_;                 // committed files to rewrite packed
  std::map<Key, std::string> carried_;   // files carried over at Commit
  WrittenParts written_;
  bool done_ = false;
  std::optional<IdxHeader> superseded_;  // the version a commit replaced, until its files are removed
};

}  // namespace hzio
