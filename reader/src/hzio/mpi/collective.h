/// Collective error semantics and small MPI helpers for hzio::mpi.
///
/// Every collective operation of the parallel writer and reader runs its local work, then calls
/// Agree(): the ranks reduce their local status, and if any rank failed, every rank throws the
/// same hzio::Error (the message of the lowest failing rank, prefixed with that rank). A failing
/// rank therefore never leaves the others waiting in a later collective. MPI counts are `int`;
/// every conversion goes through CheckedInt and large transfers are split.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "hzio/util/error.h"

namespace hzio::mpi {

/// Converts a 64-bit count to the `int` MPI wants; throws kTooLarge naming `what` if it does not fit.
int CheckedInt(int64_t value, const char* what);

/// Throws kInternal naming `what` if an MPI call did not return MPI_SUCCESS.
void MpiCheck(int rc, const char* what);

/// The agreement step: reduces whether any rank holds an error; if so every rank throws the same
/// Error. Call it on every rank of `comm`, in the same order, whether or not the rank failed.
void Agree(MPI_Comm comm, std::exception_ptr local_error);

/// Agree() fused with an element-wise maximum of `values` over the ranks, in the same single
/// allreduce (several start-up agreements cost one synchronisation). Returns the maxima.
std::vector<int64_t> AgreeAndMax(MPI_Comm comm, std::vector<int64_t> values, std::exception_ptr local_error);

/// Agree() fused with element-wise maxima of `maxima` and sums of `sums`, still one allreduce.
struct Reduced {
  std::vector<int64_t> maxima, sums;
};
Reduced AgreeAndReduce(MPI_Comm comm, std::vector<int64_t> maxima, std::vector<int64_t> sums,
                       std::exception_ptr local_error);

/// Runs `work` locally and then Agree()s on its outcome.
template <class Work>
void Collectively(MPI_Comm comm, Work&& work) {
  std::exception_ptr error;
  try {
    work();
  } catch (...) {
    error = std::current_exception();
  }
  Agree(comm, error);
}

/// Rank 0's `text` on every rank: one broadcast when it fits 16 KiB, a second for the rest. When
/// rank 0 passes `root_error` instead, every rank throws that error (through Agree). Collective.
std::string BroadcastText(MPI_Comm comm, const std::string& text, std::exception_ptr root_error);

int CommRank(MPI_Comm comm);
int CommSize(MPI_Comm comm);


/// Chunk size for byte transfers: every message or RMA call moves at most this many bytes.
inline constexpr int64_t kMaxTransferBytes = int64_t{1} << 30;

/// Non-blocking send/receive of a byte buffer of any size, split into <= kMaxTransferBytes
/// messages with tags base_tag, base_tag+1, ... Requests are appended to `requests`.
void IsendBytes(const uint8_t* data, int64_t size, int dest, int base_tag, MPI_Comm comm,
                std::vector<MPI_Request>& requests);
void IrecvBytes(uint8_t* data, int64_t size, int source, int base_tag, MPI_Comm comm,
                std::vector<MPI_Request>& requests);
void WaitAll(std::vector<MPI_Request>& requests);

/// Sparse exchange of int64 records: sends out[r] to rank r (empty: nothing), returns what every
/// rank sent to us, concatenated in rank order. No step costs O(ranks) per rank beyond `out`
/// itself. Consecutive exchanges that may overlap in time must use different tags.
struct Received {
  std::vector<int64_t> values;
  std::vector<int64_t> offsets;  // values of rank r are [offsets[r], offsets[r+1])
};
Received ExchangeInt64(MPI_Comm comm, const std::vector<std::vector<int64_t>>& out, int tag);

}  // namespace hzio::mpi
