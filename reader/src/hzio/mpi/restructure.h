/// Phase 1 of the parallel writer: restructuring. The ranks' boxes (any shape, any position,
/// several per rank) are moved onto the imposed grid of power-of-two cells: every cell gets one
/// receiver (the rank holding its largest part, ties broken towards the least loaded rank), and
/// data moves with non-blocking point-to-point messages between the ranks that share a cell only.
/// Receivers are decided by a distributed directory (cell id mod ranks), so no rank ever holds a
/// structure that grows with ranks × cells (a home rank enumerates only its own cells).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "hzio/format/field.h"
#include "hzio/hz/imposed_grid.h"
#include "hzio/util/buffer_pool.h"

namespace hzio::mpi {

/// A rank's box of one field: row-major samples over `box` (caller memory).
struct Piece {
  int field = 0;
  Box box;
  const uint8_t* data = nullptr;
};

/// A cell after restructuring: the full aligned box and, per field, its samples row-major over
/// `box` (default-filled where no rank had data). Only the part of a cell inside the `touched` box
/// given to Restructure() is ever written or read; a boundary cell's buffer is pool memory, or
/// fresh sparse pages whose untouched part (outside the domain) costs nothing. A cell that is exactly one local
/// piece borrows the caller's memory instead of copying it (the common regular case).
struct RegularBox {
  int64_t id = 0;
  Box box;
  std::vector<PooledBuffer> fields;      // owned samples, or empty
  std::vector<const uint8_t*> borrowed;  // caller samples, or nullptr

  /// The samples of field f, or nullptr when no rank had data for it.
  const uint8_t* Data(int f) const {
    const size_t i = static_cast<size_t>(f);
    return borrowed[i] ? borrowed[i] : fields[i].data();
  }
  void Release(int f) {
    borrowed[static_cast<size_t>(f)] = nullptr;
    fields[static_cast<size_t>(f)] = PooledBuffer();
  }
};

/// Collective over `comm`. Pieces must lie inside the grid's domain (checked by the caller).
/// `touched`: the only part of any cell the caller will read (the domain rounded out to the HZ
/// encoder's subtrees); cells are default-filled there only. With `every_cell`, every cell of the
/// grid gets a receiver (its home rank when no rank has data in it) and every field of it data
/// (the default value where no rank had any), so encoding the cells writes every sample.
std::vector<RegularBox> Restructure(MPI_Comm comm, const ImposedGrid& grid, const std::vector<Field>& fields,
                                    const std::vector<Piece>& pieces, const Box& touched, bool every_cell = false);

}  // namespace hzio::mpi
