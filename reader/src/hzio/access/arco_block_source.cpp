#include "hzio/access/arco_block_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "hzio/format/hzio_keys.h"
#include "hzio/util/byte_buffer.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// A task opens and reads up to this many block files; fewer when a fetch has few blocks, so that
// every core gets several tasks.
constexpr size_t kMaxBlocksPerTask = 16;
constexpr size_t kTasksPerThread = 4;
// No codec makes a payload larger than this many times its block plus this much (headers of
// png/jpg for tiny blocks): larger files are damage, refused before they are read.
constexpr uint64_t kMaxExpansion = 2;
constexpr uint64_t kMaxOverhead = 64 * 1024;

// pread of up to n bytes at offset 0; fewer only at the end of the file.
uint64_t ReadFrom(int fd, uint8_t* out, uint64_t n, const std::string& path) {
  uint64_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, out + done, static_cast<size_t>(std::min<uint64_t>(n - done, 1u << 30)),
                              static_cast<off_t>(done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw OsError(path, "cannot read");
    if (r == 0) break;
    done += static_cast<uint64_t>(r);
  }
  return done;
}

}  // namespace

ArcoBlockSource::ArcoBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                                 std::string idx_path, std::optional<FileIdentity> idx_identity, Options options)
    : BlockSource(std::move(header), std::move(layout), idx_path),
      idx_path_(std::move(idx_path)),
      root_(ArcoRoot(idx_path_)),
      idx_identity_(idx_path_, idx_identity),
      generation_(Generation(this->header())),
      options_(options) {
  Check(this->header().arco > 0, ErrorCode::kInvalidArgument, idx_path_ + " is not an ARCO dataset ((arco) is 0)");
  for (size_t f = 0; f < this->header().fields.size(); ++f) {
    const Field& field = this->header().fields[f];
    try {
      codecs_.push_back(CodecSpec::Parse(field.compression).codec);
    } catch (const Error& e) {
      throw Error(e.code(), idx_path_ + ": field '" + field.name + "': " + e.what());
    }
    max_sizes_.push_back(kMaxExpansion * DecodedBlockBytes(static_cast<int>(f)) + kMaxOverhead);
  }
}

std::string ArcoBlockSource::Version() const { return idx_identity_.Version(); }

bool ArcoBlockSource::Changed() const { return idx_identity_.Changed(); }

std::shared_ptr<const OpenedPart> ArcoBlockSource::Part(const PartKey& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = parts_.find(key); it != parts_.end()) return it->second;
  }
  auto part = std::make_shared<OpenedPart>(
      OpenArcoPart(ArcoPartDirectory(root_, key.first, header().fields[static_cast<size_t>(key.second)].name),
                   generation_));
  // A part without a directory is not kept: a later version may add it, and looking again costs
  // one failed open.
  if (!part->fd.valid()) return part;
  std::lock_guard<std::mutex> lock(mu_);
  if (parts_.size() >= std::max<size_t>(options_.max_open_parts, 1)) parts_.clear();
  return parts_.emplace(key, std::move(part)).first->second;
}

bool ArcoBlockSource::ReadBlock(const OpenedPart& part, const BlockKey& key, uint8_t* raw_target,
                                const BlockSink& sink, size_t index) {
  const std::string name = ArcoBlockInPart(key.block);
  const std::string path = part.path + "/" + name;
  const std::string where = path + ": block " + std::to_string(key.block);
  const int opened = ::openat(part.fd.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (opened < 0) {
    if (errno == ENOENT) return false;
    throw OsError(path, "cannot open");
  }
  ScopedFd fd(opened);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw OsError(path, "cannot stat");
  Check(S_ISREG(st.st_mode), ErrorCode::kIo, path + ": not a regular file");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const size_t field = static_cast<size_t>(key.field);
  Check(size <= max_sizes_[field], ErrorCode::kCorrupt,
        where + ": the file has " + std::to_string(size) + " bytes; a block of " +
            std::to_string(DecodedBlockBytes(key.field)) + " bytes never encodes to that many");
  const Codec codec = codecs_[field];
  const bool row_major = !header().fields[field].hz_layout;
  auto short_read = [&]() -> Error {
    if (Changed()) return DatasetChangedError(idx_path_);
    return Error(ErrorCode::kCorrupt, where + ": the file shrank while it was read");
  };
  // Only a row-major block is read into the result: an hz one must be permuted there, which reads
  // it from a small buffer of this thread (in cache) far faster than from the result's memory.
  if (raw_target && row_major && codec == Codec::kRaw && size == DecodedBlockBytes(key.field) &&
      CopiesFast(0, raw_target)) {
    if (ReadFrom(fd.get(), raw_target, size, path) != size) throw short_read();
    sink(index, EncodedBlock{true, codec, row_major, raw_target, static_cast<size_t>(size), nullptr, where});
    return true;
  }
  std::shared_ptr<ByteBuffer> buffer = ThreadReusableBuffer();
  uint8_t* const data = AlignedLike(*buffer, 0, size);
  if (ReadFrom(fd.get(), data, size, path) != size) throw short_read();
  sink(index, EncodedBlock{true, codec, row_major, data, static_cast<size_t>(size), buffer, where});
  return true;
}

void ArcoBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) { FetchInto(keys, {}, sink); }

void ArcoBlockSource::FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                                const BlockSink& sink) {
  // Each part once per fetch: its directory is the version this source reads (arco_parts.h).
  std::map<PartKey, std::shared_ptr<const OpenedPart>> parts;
  for (const BlockKey& key : keys) {
    CheckKey(key);
    Check(header().time.Contains(key.time), ErrorCode::kNotFound,
          name() + ": timestep " + std::to_string(key.time) + " is not in the dataset");
    const PartKey part{key.time, key.field};
    if (!parts.count(part)) parts.emplace(part, Part(part));
  }
  std::atomic<bool> missing{false};
  auto deliver = [&](size_t i) {
    const BlockKey& key = keys[i];
    const OpenedPart& part = *parts.at(PartKey{key.time, key.field});
    uint8_t* target = i < raw_targets.size() ? raw_targets[i] : nullptr;
    if (part.fd.valid() && ReadBlock(part, key, target, sink, i)) return;
    missing = true;
    EncodedBlock absent;
    absent.where = part.path + "/" + ArcoBlockInPart(key.block) + ": block " + std::to_string(key.block);
    sink(i, std::move(absent));
  };
  const size_t threads = options_.threads == 1 ? 1 : static_cast<size_t>(ThreadPool::Shared().size()) + 1;
  const size_t per_task = std::clamp<size_t>(keys.size() / (kTasksPerThread * threads), 1, kMaxBlocksPerTask);
  const int64_t tasks = static_cast<int64_t>((keys.size() + per_task - 1) / per_task);
  auto task = [&](int64_t t) {
    const size_t begin = static_cast<size_t>(t) * per_task, end = std::min(keys.size(), begin + per_task);
    for (size_t i = begin; i < end; ++i) deliver(i);
  };
  if (options_.threads == 1 || tasks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
  } else {
    ThreadPool::Shared().ParallelFor(tasks, task);
  }
  // A missing file or part is an absent block only if the dataset is still the version this
  // source was opened with (contract 3): a commit may have removed the files it read.
  if (missing && Changed()) throw DatasetChangedError(idx_path_);
}

}  // namespace hzio
