// The file-system steps of a write transaction (storage/durable_file.h) and the output of
// `hzio read -o` (storage/output_file.h): every failure names the path, nothing half-written
// is ever left under a final name, nothing hzio did not create is removed.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <numeric>

#include "support/test_support.h"
#include "hzio/storage/durable_file.h"
#include "hzio/storage/output_file.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;
using testing::ThrowsError;

std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(DurableFile, WriteFileAtomicallyReplacesWholeAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir.File("a.idx");
  WriteFileAtomically(path, "old\n");
  WriteFileAtomically(path, "new text\n", /*sync=*/true);
  EXPECT_EQ(testing::ReadText(path), "new text\n");
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"a.idx"});
  // A parent that is a file: a clear error naming it, and the old file untouched.
  EXPECT_TRUE(ThrowsError([&] { WriteFileAtomically(dir.File("a.idx/b.idx"), "x"); }, ErrorCode::kIo, {"a.idx"}));
  EXPECT_EQ(testing::ReadText(path), "new text\n");
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"a.idx"});
}

TEST(DurableFile, LinkOrCopySharesTheFileAndReplacesLeftovers) {
  testing::TempDir dir;
  testing::WriteBytes(dir.File("from"), {1, 2, 3});
  testing::WriteBytes(dir.File("to"), {9});  // a leftover of an interrupted attempt
  EXPECT_TRUE(LinkOrCopy(dir.File("from"), dir.File("to")));
  struct stat a {}, b {};
  ASSERT_EQ(::stat(dir.File("from").c_str(), &a), 0);
  ASSERT_EQ(::stat(dir.File("to").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_TRUE(ThrowsError([&] { LinkOrCopy(dir.File("missing"), dir.File("x")); }, ErrorCode::kIo, {"x", "missing"}));
}

TEST(DurableFile, CopyBytesCopiesRangesBetweenOffsets) {
  testing::TempDir dir;
  std::vector<uint8_t> data(3 << 20);
  std::iota(data.begin(), data.end(), uint8_t{0});
  testing::WriteBytes(dir.File("in"), data);
  ScopedFd in = OpenForReadingIfExists(dir.File("in"));
  ScopedFd out(::open(dir.File("out").c_str(), O_RDWR | O_CREAT, 0644));
  ASSERT_TRUE(in.valid() && out.valid());
  CopyBytes(in.get(), 100, out.get(), 7, data.size() - 100, dir.File("in"), dir.File("out"));
  const std::vector<uint8_t> got = testing::ReadBytes(dir.File("out"));
  ASSERT_EQ(got.size(), data.size() - 100 + 7);
  EXPECT_TRUE(std::equal(data.begin() + 100, data.end(), got.begin() + 7));
  EXPECT_TRUE(ThrowsError([&] { CopyBytes(in.get(), data.size() - 10, out.get(), 0, 20, dir.File("in"), dir.File("out")); },
              ErrorCode::kCorrupt, {"in", "shorter than expected"}));
}

TEST(DurableFile, RemovalsTolerateWhatIsGone) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "a/b/c");
  testing::WriteBytes(dir.File("a/keep"), {1});
  EXPECT_FALSE(RemovePath(dir.File("nothing")));
  RemoveEmptyDirectories(dir.File("a/b/c"), dir.path().string());
  EXPECT_FALSE(fs::exists(dir.path() / "a/b"));
  EXPECT_TRUE(fs::exists(dir.path() / "a/keep"));  // a is not empty: it stays
  RemoveTree(dir.File("a"));
  RemoveTree(dir.File("a"));
  EXPECT_FALSE(fs::exists(dir.path() / "a"));
}

TEST(OutputFile, RegularFileIsReplacedOnlyByFinish) {
  testing::TempDir dir;
  const std::string path = dir.File("out.raw");
  testing::WriteBytes(path, {7, 7, 7});
  ::chmod(path.c_str(), 0600);
  {
    OutputFile out(path);
    EXPECT_TRUE(out.CanRestart());
    const uint8_t bytes[] = {1, 2};
    out.Write(bytes, 2);
    EXPECT_EQ(testing::ReadBytes(path), (std::vector<uint8_t>{7, 7, 7}));  // not yet
    // Abandoned (an error): the old file stays, the temporary one goes.
  }
  EXPECT_EQ(testing::ReadBytes(path), (std::vector<uint8_t>{7, 7, 7}));
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out.raw"});
  {
    OutputFile out(path);
    const uint8_t junk[] = {9, 9, 9, 9};
    out.Write(junk, 4);
    out.Restart();
    const uint8_t bytes[] = {1, 2};
    out.Write(bytes, 2);
    out.Finish();
  }
  EXPECT_EQ(testing::ReadBytes(path), (std::vector<uint8_t>{1, 2}));
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(Names(dir.path()), std::vector<std::string>{"out.raw"});
}

TEST(OutputFile, SymbolicLinksAreWrittenThroughDevicesInPlace) {
  testing::TempDir dir;
  testing::WriteBytes(dir.File("target"), {1});
  fs::create_symlink(dir.File("target"), dir.File("link"));
  {
    OutputFile out(dir.File("link"));
    const uint8_t b[] = {5, 6};
    out.Write(b, 2);
    out.Finish();
  }
  EXPECT_TRUE(fs::is_symlink(dir.File("link")));
  EXPECT_EQ(testing::ReadBytes(dir.File("target")), (std::vector<uint8_t>{5, 6}));
  {
    OutputFile null("/dev/null");
    EXPECT_FALSE(null.CanRestart());
    const uint8_t b[] = {1};
    null.Write(b, 1);
    // Abandoned: a device is never removed.
  }
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(ThrowsError([&] { OutputFile full("/dev/full"); const uint8_t b[] = {1}; full.Write(b, 1); }, ErrorCode::kIo,
              {"/dev/full", "No space left on device"}));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  fs::create_symlink(dir.File("nowhere"), dir.File("dangling"));
  EXPECT_TRUE(ThrowsError([&] { OutputFile o(dir.File("dangling")); }, ErrorCode::kInvalidArgument, {"dangling", "symbolic link"}));
  EXPECT_TRUE(ThrowsError([&] { OutputFile o(dir.path().string()); }, ErrorCode::kInvalidArgument, {"is a directory"}));
}

}  // namespace
}  // namespace hzio
