/// Phase 1 of the parallel writer: restructuring. The ranks' boxes (any shape, any position,
/// several per rank) are moved onto the imposed grid of power-of-two cells: every cell gets one
/// receiver (the rank holding its largest part, ties broken towards the least loaded rank), and
/// data moves with non-blocking point-to-point messages between the ranks that share a cell only.
/// Receivers are decided by a distributed directory (cell id mod ranks), so no rank ever holds a
/// structure that grows with ranks × cells.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "hzio/format/field.h"
#include "hzio/mpi/imposed_grid.h"

namespace hzio::mpi {

/// A rank's box of one field: row-major samples over `box` (caller memory).
struct Piece {
  int field = 0;
  Box box;
  const uint8_t* data = nullptr;
};

/// A cell after restructuring: the full aligned box and, per field, its samples row-major over
/// `box` (default-filled where no rank had data). A cell that is exactly one local piece borrows
/// the caller's memory instead of copying it (the common regular case).
struct RegularBox {
  int64_t id = 0;
  Box box;
  std::vector<std::vector<uint8_t>> fields;  // owned samples, or empty
  std::vector<const uint8_t*> borrowed;      // caller samples, or nullptr

  /// The samples of field f, or nullptr when no rank had data for it.
  const uint8_t* Data(int f) const {
    const size_t i = static_cast<size_t>(f);
    return borrowed[i] ? borrowed[i] : fields[i].empty() ? nullptr : fields[i].data();
  }
  void Release(int f) {
    borrowed[static_cast<size_t>(f)] = nullptr;
    std::vector<uint8_t>().swap(fields[static_cast<size_t>(f)]);
  }
};

/// Collective over `comm`. Pieces must lie inside the grid's domain (checked by the caller).
std::vector<RegularBox> Restructure(MPI_Comm comm, const ImposedGrid& grid, const std::vector<Field>& fields,
                                    const std::vector<Piece>& pieces);

}  // namespace hzio::mpi
