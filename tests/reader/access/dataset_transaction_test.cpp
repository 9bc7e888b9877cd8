// Writes as transactions (access/dataset_transaction.h): readers see the old version until the
// commit and the new one after, committed block files are never modified, an abandoned write
// leaves nothing, one writer at a time; leftovers are found and reclaimed
// (access/dataset_leftovers.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include "support/test_support.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_extend.h"
#include "hzio/access/dataset_leftovers.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/access/dataset_transaction.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/storage/file.h"
#include "hzio/storage/lock_file.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;
using testing::ThrowsError;

constexpr int64_t kNx = 40, kNy = 24;

IdxHeader Header() {
  IdxHeader h;
  h.box = Box{Point{0, 0}, Point{kNx, kNy}};
  h.fields.push_back(Field::Parse("a uint16 default_compression(zip)", 6));
  h.fields.push_back(Field::Parse("b uint8", 6));
  h.time = TimeSpec::Range(0, 1, "time_%02d/");
  h.has_time = true;
  h.bits_per_block = 6;
  h.blocks_per_file = 4;
  return h;
}

template <class T>
std::vector<T> Values(int64_t seed) {
  std::vector<T> v(static_cast<size_t>(kNx * kNy));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i * 7 + static_cast<size_t>(seed) * 1000);
  return v;
}

void WriteField(DatasetWriter& w, int field, int64_t time, int64_t seed) {
  const Box box{Point{0, 0}, Point{kNx, kNy}};
  if (field == 0) {
    const std::vector<uint16_t> v = Values<uint16_t>(seed);
    w.Write(0, time, box, reinterpret_cast<const uint8_t*>(v.data()));
  } else {
    const std::vector<uint8_t> v = Values<uint8_t>(seed);
    w.Write(field, time, box, v.data());
  }
}

// Field `field` at `time` read through a fresh open, as bytes.
std::vector<uint8_t> ReadPart(const std::string& idx, const std::string& field, int64_t time) {
  BoxQuery q;
  q.field = field;
  q.time = time;
  BoxResult r = OpenDataset(idx)->Read(q);
  return std::vector<uint8_t>(r.data.data(), r.data.data() + r.data.ByteSize());
}

template <class T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return std::vector<uint8_t>(p, p + v.size() * sizeof(T));
}

// The inode of every file under `dir` by relative path.
std::map<std::string, std::pair<ino_t, std::vector<uint8_t>>> Snapshot(const fs::path& dir) {
  std::map<std::string, std::pair<ino_t, std::vector<uint8_t>>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    struct stat st {};
    ::stat(e.path().c_str(), &st);
    out[fs::relative(e.path(), dir).string()] = {st.st_ino, testing::ReadBytes(e.path().string())};
  }
  return out;
}

std::string MakeDataset(const testing::TempDir& dir) {
  const std::string idx = dir.File("ds.idx");
  WriterOptions options;
  DatasetWriter w(idx, Header(), options);
  WriteField(w, 0, 0, 1);
  WriteField(w, 1, 0, 2);
  WriteField(w, 0, 1, 3);
  w.Finish();
  return idx;
}

TEST(DatasetTransaction, OverwriteIsInvisibleUntilTheCommitAndNeverTouchesCommittedFiles) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  EXPECT_EQ(WrittenParts::Of(OpenDataset(idx)->header())->ToText(), "a@0:1 b@0");
  const auto before = Snapshot(dir.path() / "ds");
  const std::string header_before = ReadWholeFile(idx);
  std::shared_ptr<Dataset> old_reader = OpenDataset(idx);
  {
    DatasetTransaction txn(idx);
    DatasetWriter w(txn);
    WriteField(w, 1, 0, 9);  // b@0 again: the file of time 0 changes
    w.Finish();
    // Staged, not committed: the dataset reads as before, its files are untouched.
    EXPECT_EQ(ReadWholeFile(idx), header_before);
    EXPECT_EQ(ReadPart(idx, "b", 0), Bytes(Values<uint8_t>(2)));
    EXPECT_EQ(Snapshot(dir.path() / "ds"), before);
    EXPECT_TRUE(fs::exists(dir.path() / "ds.g2/time_00"));
    txn.Commit();
  }
  EXPECT_EQ(ReadPart(idx, "b", 0), Bytes(Values<uint8_t>(9)));
  EXPECT_EQ(ReadPart(idx, "a", 0), Bytes(Values<uint16_t>(1)));  // carried over in the rewritten file
  EXPECT_EQ(ReadPart(idx, "a", 1), Bytes(Values<uint16_t>(3)));  // an untouched file: linked
  EXPECT_FALSE(fs::exists(dir.path() / "ds"));                   // the superseded generation is gone
  EXPECT_EQ(DataDirectoryOf(OpenDataset(idx)->header(), idx).path, dir.File("ds.g2"));
  // A reader that opened the old version sees its files vanish (reported as kChanged by readers
  // that check, TEAM contract 3) — never new bytes under the old header.
  EXPECT_FALSE(fs::exists(dir.path() / "ds/time_00/0000.bin"));
  EXPECT_TRUE(FindLeftovers(OpenDataset(idx)->header(), idx).items.empty());
  (void)old_reader;
}

TEST(DatasetTransaction, AbandonedWritesLeaveNothing) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  const auto before = Snapshot(dir.path());
  {
    DatasetWriter w(idx, Header(), [] { WriterOptions o; o.allow_existing = true; return o; }());
    WriteField(w, 0, 1, 5);
    // No Finish: an error in the caller.
  }
  {
    DatasetTransaction txn(idx);
    txn.AddField(Field::Parse("c float32", 6));
    // Not committed.
  }
  EXPECT_EQ(Snapshot(dir.path()), before);
  // A new dataset abandoned: no header, no files.
  {
    DatasetWriter w(dir.File("new.idx"), Header());
    WriteField(w, 0, 0, 1);
  }
  EXPECT_FALSE(fs::exists(dir.File("new.idx")));
  EXPECT_FALSE(fs::exists(dir.File("new")));
}

TEST(DatasetTransaction, AddingTimestepsWritesInPlaceAndRecordsWhatIsMissing) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  const auto before = Snapshot(dir.path() / "ds");
  {
    DatasetTransaction txn(idx);
    txn.AddTimestep(5);
    DatasetWriter w(txn);
    WriteField(w, 0, 5, 7);
    w.Finish();
    txn.Commit();
  }
  const IdxHeader h = OpenDataset(idx)->header();
  EXPECT_EQ(Generation(h), Generation(IdxHeader::Parse(ReadWholeFile(idx), idx)));
  EXPECT_TRUE(h.time.Contains(5));
  EXPECT_EQ(ReadPart(idx, "a", 5), Bytes(Values<uint16_t>(7)));
  // Only new files: every committed one is still there, the same inode with the same bytes.
  const auto after = Snapshot(dir.path() / "ds");
  for (const auto& [rel, file] : before) EXPECT_EQ(after.at(rel), file) << rel;
  EXPECT_GT(after.size(), before.size());
  EXPECT_EQ(WrittenParts::Of(h)->ToText(), "a@0:1,5 b@0");
  const IdxHeader t7 = AddTimestep(idx, 7);
  EXPECT_EQ(NeverWrittenParts(t7).size(), 2u);
  EXPECT_EQ(NeverWrittenParts(t7)[0].times, "7");
  EXPECT_TRUE(ThrowsError([&] { AddTimestep(dir.File("none.idx"), 1); }, ErrorCode::kNotFound, {"none.idx"}));
}

TEST(DatasetTransaction, AddingAFieldWidensEveryFileInANewGeneration) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  const IdxHeader h = AddField(idx, Field::Parse("c float32", 6));
  EXPECT_EQ(h.fields.size(), 3u);
  EXPECT_EQ(ReadPart(idx, "a", 0), Bytes(Values<uint16_t>(1)));
  EXPECT_EQ(ReadPart(idx, "b", 0), Bytes(Values<uint8_t>(2)));
  EXPECT_EQ(ReadPart(idx, "a", 1), Bytes(Values<uint16_t>(3)));
  EXPECT_EQ(ReadPart(idx, "c", 1), std::vector<uint8_t>(kNx * kNy * 4, 0));
  EXPECT_EQ(WrittenParts::Of(h)->ToText(), "a@0:1 b@0");
  EXPECT_TRUE(ThrowsError([&] { AddField(idx, Field::Parse("c uint8", 6)); }, ErrorCode::kInvalidArgument, {"already has a field 'c'"}));
  EXPECT_TRUE(FindLeftovers(h, idx).items.empty());
}

TEST(DatasetTransaction, OneWriterAtATime) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  auto first = std::make_unique<DatasetTransaction>(idx);
  EXPECT_TRUE(ThrowsError([&] { DatasetTransaction second(idx); }, ErrorCode::kLocked, {"ds.idx is being written by pid", "--wait"}));
  EXPECT_TRUE(ThrowsError([&] { DatasetWriter w(idx, Header(), [] { WriterOptions o; o.allow_existing = true; return o; }()); },
              ErrorCode::kLocked, {"is being written"}));
  std::string noted;
  std::thread waiter([&] {
    TransactionOptions o;
    o.wait = true;
    o.notify = [&](const std::string& m) { noted = m; };
    DatasetTransaction second(idx, o);
    second.AddTimestep(9);
    second.Commit();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  first->AddTimestep(8);
  first->Commit();
  first.reset();
  waiter.join();
  EXPECT_NE(noted.find("waiting"), std::string::npos) << noted;
  const IdxHeader h = OpenDataset(idx)->header();
  EXPECT_TRUE(h.time.Contains(8) && h.time.Contains(9)) << "the waiting writer read the committed header under the lock";
}

TEST(DatasetTransaction, CreateRefusesAnExistingDatasetAndClearsStaleFiles) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  EXPECT_TRUE(ThrowsError([&] { CreateEmptyDataset(idx, Header()); }, ErrorCode::kInvalidArgument, {"already exists"}));
  // Files a killed writer left for a dataset that was never committed are not read as its data.
  const std::string other = dir.File("other.idx");
  fs::create_directories(dir.path() / "other/time_01");
  fs::copy_file(dir.File("ds/time_01/0000.bin"), dir.File("other/time_01/0000.bin"));
  CreateEmptyDataset(other, Header());
  EXPECT_FALSE(fs::exists(dir.File("other/time_01/0000.bin")));
  EXPECT_EQ(ReadPart(other, "a", 1), std::vector<uint8_t>(kNx * kNy * 2, 0));
  EXPECT_EQ(NeverWrittenParts(OpenDataset(other)->header()).size(), 2u);
}

TEST(DatasetLeftovers, FoundAndReclaimedWithoutChangingTheData) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  const std::vector<uint8_t> a0 = ReadPart(idx, "a", 0);
  // What killed writers and in-place rewrites leave behind.
  fs::create_directories(dir.path() / "ds.g5/time_00");
  testing::WriteBytes(dir.File("ds.g5/time_00/0000.bin"), std::vector<uint8_t>(100, 1));
  testing::WriteBytes(dir.File("ds.idx.tmp.4242"), std::vector<uint8_t>(10, 1));
  fs::create_directories(dir.path() / "ds/time_03");
  testing::WriteBytes(dir.File("ds/time_03/0000.bin"), std::vector<uint8_t>(30, 1));
  testing::WriteBytes(dir.File("ds/notes.txt"), std::vector<uint8_t>(3, 1));
  const std::string bin = dir.File("ds/time_00/0000.bin");
  const uint64_t size = fs::file_size(bin);
  std::vector<uint8_t> grown = testing::ReadBytes(bin);
  grown.resize(size + 500, 0xee);
  testing::WriteBytes(bin, grown);

  const LeftoverReport report = FindLeftovers(OpenDataset(idx)->header(), idx);
  std::map<std::string, Leftover::Kind> kinds;
  for (const Leftover& l : report.items) kinds[fs::path(l.path).lexically_relative(dir.path()).string()] = l.kind;
  EXPECT_EQ(kinds.at("ds.g5"), Leftover::Kind::kGeneration);
  EXPECT_EQ(kinds.at("ds.idx.tmp.4242"), Leftover::Kind::kTemporary);
  EXPECT_EQ(kinds.at("ds/time_03/0000.bin"), Leftover::Kind::kUnreferencedFile);
  EXPECT_EQ(kinds.at("ds/notes.txt"), Leftover::Kind::kForeign);
  EXPECT_EQ(kinds.at("ds/time_00/0000.bin"), Leftover::Kind::kUnreferencedBytes);
  EXPECT_EQ(report.Reclaimable(), 4u);
  EXPECT_EQ(report.ReclaimableBytes(), 100u + 10u + 30u + 500u);

  {
    DatasetTransaction txn(idx);
    RepairLeftovers(txn, FindLeftovers(txn.committed(), idx));
  }
  EXPECT_EQ(ReadPart(idx, "a", 0), a0);
  EXPECT_EQ(ReadPart(idx, "a", 1), Bytes(Values<uint16_t>(3)));
  const LeftoverReport after = FindLeftovers(OpenDataset(idx)->header(), idx);
  EXPECT_EQ(after.Reclaimable(), 0u);
  EXPECT_EQ(DataDirectoryOf(OpenDataset(idx)->header(), idx).path, dir.File("ds.g2"));  // packed: a new version
  EXPECT_EQ(fs::file_size(dir.File("ds.g2/time_00/0000.bin")), size);
  // The original directory kept only what hzio did not write.
  EXPECT_EQ(Snapshot(dir.path() / "ds").size(), 1u);
  EXPECT_TRUE(fs::exists(dir.File("ds/notes.txt")));
}

TEST(DatasetLeftovers, AKilledWritersLockFileIsReportedAndGoesWithTheNextLock) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  const std::string lock = LockPathFor(idx);
  EXPECT_FALSE(fs::exists(lock));  // the writer that made the dataset removed it as it let go
  EXPECT_TRUE(FindLeftovers(OpenDataset(idx)->header(), idx).items.empty());

  // What a writer killed while holding the lock leaves: the file with its record, unlocked.
  const std::string record = "pid 4242\nhost elsewhere\n";
  testing::WriteBytes(lock, std::vector<uint8_t>(record.begin(), record.end()));
  const LeftoverReport report = FindLeftovers(OpenDataset(idx)->header(), idx);
  ASSERT_EQ(report.items.size(), 1u);
  EXPECT_EQ(report.items[0].kind, Leftover::Kind::kAbandonedLock);
  EXPECT_EQ(report.items[0].path, lock);
  EXPECT_EQ(report.Reclaimable(), 1u);

  {
    // A lock file someone holds is not a leftover; the holder removes it as it lets go.
    DatasetTransaction txn(idx);
    EXPECT_TRUE(FindLeftovers(txn.committed(), idx).items.empty());
    RepairLeftovers(txn, report);
    EXPECT_TRUE(fs::exists(lock));
  }
  EXPECT_FALSE(fs::exists(lock));
  EXPECT_TRUE(FindLeftovers(OpenDataset(idx)->header(), idx).items.empty());
}

TEST(DatasetLeftovers, AMissingGenerationDirectoryIsReported) {
  testing::TempDir dir;
  const std::string idx = MakeDataset(dir);
  AddField(idx, Field::Parse("c int8", 6));
  fs::rename(dir.File("ds.g2"), dir.File("moved"));
  const LeftoverReport report = FindLeftovers(OpenDataset(idx)->header(), idx);
  ASSERT_TRUE(report.missing_directory.has_value());
  EXPECT_EQ(*report.missing_directory, dir.File("ds.g2"));
}

}  // namespace
}  // namespace hzio
