// Reads a dataset through an installed hzio and prints its first sample and grid size.
#include <iostream>

#include "hzio/access/dataset.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  auto ds = hzio::OpenDataset(argv[1]);
  hzio::BoxResult r = ds->Read(hzio::BoxQuery{});
  std::cout << r.grid.count.ToString() << " " << static_cast<int>(r.data.data()[0]) << "\n";
  return 0;
}
