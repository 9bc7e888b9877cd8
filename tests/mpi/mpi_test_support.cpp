#include "mpi_test_support.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/mpi/collective.h"
#include "hzio/util/decomposition.h"
#include "hzio/access/synthetic.h"
#include "support/test_support.h"

namespace hzio::mpi::testing {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(MPI_Comm comm) : comm_(comm) {
  std::string path;
  if (CommRank(comm) == 0) {
    std::string tmpl = (fs::temp_directory_path() / "hzio-mpi-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  int64_t n = static_cast<int64_t>(path.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
  path.resize(static_cast<size_t>(n));
  MPI_Bcast(path.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  path_ = path;
}

ScratchDir::~ScratchDir() {
  MPI_Barrier(comm_);
  if (CommRank(comm_) == 0 && !path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

bool AllRanks(bool ok, MPI_Comm comm) {
  int local = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, comm);
  return all == 1;
}

bool SameOnAllRanks(const std::string& text, MPI_Comm comm) {
  int64_t size = static_cast<int64_t>(text.size());
  MPI_Bcast(&size, 1, MPI_INT64_T, 0, comm);
  std::string root(static_cast<size_t>(size), '\0');
  if (CommRank(comm) == 0) root = text;
  MPI_Bcast(root.data(), static_cast<int>(size), MPI_CHAR, 0, comm);
  return AllRanks(root == text, comm);
}

MPI_Comm FirstRanks(MPI_Comm comm, int n) {
  MPI_Comm sub;
  const int rank = CommRank(comm);
  MPI_Comm_split(comm, rank < n ? 0 : MPI_UNDEFINED, rank, &sub);
  return sub;
}

bool EvictFromPageCache(MPI_Comm comm, const std::string& dir) {
  int evicted = 1;
  if (CommRank(comm) == 0) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      if (!hzio::testing::EvictFileFromPageCache(entry.path().string())) evicted = 0;
    }
  }
  MPI_Bcast(&evicted, 1, MPI_INT, 0, comm);
  return evicted == 1;
}

IoStats WriteSynthetic(MPI_Comm comm, const std::string& idx_path, const SyntheticSpec& spec, const Point& grid,
                       int64_t pieces_per_rank, const WriteOptions& options) {
  const std::vector<Field> fields = ParseFieldList(spec.fields);
  const IdxHeader header = MakeHeader(spec.dims, fields, spec.timesteps, spec.bits_per_block, spec.blocks_per_file,
                                      spec.compression, idx_path, CommSize(comm));
  ParallelWriter writer(comm, idx_path, header, options);
  const Box domain(Point(spec.dims.dims), spec.dims);
  const std::vector<Box> pieces = RankPieces(domain, grid, pieces_per_rank, CommRank(comm));
  std::vector<std::vector<uint8_t>> buffers;
  for (int64_t t = 0; t < spec.timesteps; ++t)
    for (size_t f = 0; f < fields.size(); ++f)
      for (const Box& b : pieces) {
        buffers.emplace_back(static_cast<size_t>(fields[f].dtype.BytesFor(b.Size().Product())));
        FillSynthetic(fields[f].dtype, static_cast<int>(f), t, DenseGrid(b), buffers.back().data());
        writer.Add(static_cast<int>(f), t, b, buffers.back().data());
      }
  return writer.Write();
}

std::vector<std::string> VerifySerialAllLevels(MPI_Comm comm, const std::string& idx_path) {
  std::vector<std::string> problems;
  const int rank = CommRank(comm), ranks = CommSize(comm);
  try {
    const std::shared_ptr<Dataset> ds = OpenDataset(idx_path);
    const IdxHeader& h = ds->header();
    for (int level = rank; level <= h.maxh(); level += ranks)
      for (size_t f = 0; f < h.fields.size(); ++f)
        for (int64_t t : h.time.List()) {
          BoxQuery q;
          q.level = level;
          q.field = h.fields[f].name;
          q.time = t;
          const BoxResult r = ds->Read(q);
          const int64_t bad = FirstSyntheticMismatch(h.fields[f].dtype, static_cast<int>(f), t, r.grid, r.data.data());
          if (bad >= 0)
            problems.push_back(idx_path + ": field " + h.fields[f].name + " time " + std::to_string(t) + " level " +
                               std::to_string(level) + ": sample " + std::to_string(bad) + " differs");
        }
  } catch (const std::exception& e) {
    problems.push_back(std::string("serial read failed: ") + e.what());
  }
  // Make every rank's verdict count everywhere.
  if (!AllRanks(problems.empty(), comm) && problems.empty()) problems.push_back("another rank found a mismatch");
  return problems;
}

std::vector<std::string> CompareBlockFiles(const std::string& dataset_a, const std::string& dataset_b) {
  std::vector<std::string> problems;
  // The data directory each visus.idx names (an overwrite moves it to a new generation).
  auto data_dir = [](const std::string& folder) {
    const std::string idx = folder + "/visus.idx";
    return DataDirectoryOf(OpenDataset(idx)->header(), idx).path;
  };
  const std::string dir_a = data_dir(dataset_a), dir_b = data_dir(dataset_b);
  auto list = [](const std::string& dir) {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".bin") files.push_back(fs::relative(e.path(), dir).string());
    std::sort(files.begin(), files.end());
    return files;
  };
  const std::vector<std::string> a = list(dir_a), b = list(dir_b);
  if (a != b) {
    problems.push_back("different file sets: " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
    return problems;
  }
  if (a.empty()) problems.push_back("no block files in " + dir_a);
  for (const std::string& rel : a)
    if (hzio::testing::ReadText((fs::path(dir_a) / rel).string()) != hzio::testing::ReadText((fs::path(dir_b) / rel).string()))
      problems.push_back(rel + " differs");
  return problems;
}

void ExpectNoProblems(const std::vector<std::string>& problems) {
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

}  // namespace hzio::mpi::testing
