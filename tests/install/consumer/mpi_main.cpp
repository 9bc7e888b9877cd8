// Writes a small dataset through an installed hzio::mpi and reads it back with hzio::core.
#include <mpi.h>

#include <iostream>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/mpi/parallel_writer.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 2) return 2;
  const hzio::Point dims{8, 8, 8};
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  hzio::IdxHeader h = hzio::mpi::MakeHeader(dims, hzio::mpi::ParseFieldList("v:uint8"), 1, 0, 0, "raw", argv[1], ranks);
  hzio::mpi::WriteOptions options;
  options.overwrite = true;
  hzio::mpi::ParallelWriter writer(MPI_COMM_WORLD, argv[1], h, options);
  std::vector<uint8_t> data(512);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i % 251);
  writer.Add(0, 0, hzio::Box(hzio::Point(3), dims), data.data());
  writer.Write();
  hzio::BoxResult r = hzio::OpenDataset(argv[1])->Read(hzio::BoxQuery{});
  std::cout << r.grid.count.ToString() << " " << static_cast<int>(r.data.data()[300]) << "\n";
  MPI_Finalize();
  return 0;
}
