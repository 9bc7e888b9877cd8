#include "hzio/mpi/collective.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

namespace hzio::mpi {

int CheckedInt(int64_t value, const char* what) {
  Check(value >= 0 && value <= std::numeric_limits<int>::max(), ErrorCode::kTooLarge,
        std::string(what) + " (" + std::to_string(value) + ") does not fit an MPI int count");
  return static_cast<int>(value);
}

void MpiCheck(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(ErrorCode::kInternal, std::string(what) + " failed: " + std::string(text, static_cast<size_t>(len)));
}

std::string BroadcastText(MPI_Comm comm, const std::string& text, std::exception_ptr root_error) {
  // The size (-1: rank 0 failed) and the first bytes travel together.
  constexpr size_t kInline = size_t{16} << 10;
  std::vector<char> first(sizeof(int64_t) + kInline);
  int64_t n = root_error ? -1 : static_cast<int64_t>(text.size());
  std::memcpy(first.data(), &n, sizeof n);
  if (n > 0) std::memcpy(first.data() + sizeof n, text.data(), std::min(text.size(), kInline));
  MpiCheck(MPI_Bcast(first.data(), CheckedInt(static_cast<int64_t>(first.size()), "text"), MPI_CHAR, 0, comm),
           "MPI_Bcast(text)");
  std::memcpy(&n, first.data(), sizeof n);
  if (n < 0) Agree(comm, root_error);  // rank 0 failed: every rank throws its message
  // Rank 0 has the text; the others fill theirs from the broadcasts.
  std::string out = CommRank(comm) == 0 ? text : std::string(static_cast<size_t>(n), '\0');
  std::memcpy(out.data(), first.data() + sizeof n, std::min(static_cast<size_t>(n), kInline));
  if (static_cast<size_t>(n) > kInline)
    MpiCheck(MPI_Bcast(out.data() + kInline, CheckedInt(n - static_cast<int64_t>(kInline), "text size"), MPI_CHAR, 0,
                       comm),
             "MPI_Bcast(text rest)");
  return out;
}

int CommRank(MPI_Comm comm) {
  int r = 0;
  MpiCheck(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

int CommSize(MPI_Comm comm) {
  int n = 0;
  MpiCheck(MPI_Comm_size(comm, &n), "MPI_Comm_size");
  return n;
}

void Agree(MPI_Comm comm, std::exception_ptr local_error) { AgreeAndReduce(comm, {}, {}, local_error); }

std::vector<int64_t> AgreeAndMax(MPI_Comm comm, std::vector<int64_t> values, std::exception_ptr local_error) {
  return AgreeAndReduce(comm, std::move(values), {}, local_error).maxima;
}

namespace {

// The reduction of AgreeAndReduce over records [status, m, maxima (m), sums]: element-wise maximum
// over the first 2 + m entries (m is the same on every rank, so it survives) and sums over the
// rest. A record travels as one element of a contiguous datatype, so MPI can never hand this
// function a piece of one (it may split a long buffer of plain integers, and positions would shift).
void MaxThenSum(void* in, void* inout, int* len, MPI_Datatype* type) {
  int record_bytes = 0;
  MPI_Type_size(*type, &record_bytes);
  const int n = record_bytes / static_cast<int>(sizeof(int64_t));
  for (int r = 0; r < *len; ++r) {
    const int64_t* a = static_cast<const int64_t*>(in) + static_cast<int64_t>(r) * n;
    int64_t* b = static_cast<int64_t*>(inout) + static_cast<int64_t>(r) * n;
    const int64_t maxed = 2 + a[1];
    for (int i = 0; i < n; ++i) b[i] = i < maxed ? std::max(a[i], b[i]) : a[i] + b[i];
  }
}

MPI_Op MaxThenSumOp() {
  static MPI_Op op = [] {
    MPI_Op created;
    MpiCheck(MPI_Op_create(MaxThenSum, 1, &created), "MPI_Op_create");
    return created;
  }();
  return op;
}

}  // namespace

Reduced AgreeAndReduce(MPI_Comm comm, std::vector<int64_t> maxima, std::vector<int64_t> sums,
                       std::exception_ptr local_error) {
  const int rank = CommRank(comm), size = CommSize(comm);
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  if (local_error) {
    try {
      std::rethrow_exception(local_error);
    } catch (const Error& e) {
      code = e.code();
      message = e.what();
    } catch (const std::bad_alloc&) {
      code = ErrorCode::kTooLarge;
      message = "out of memory";
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception";
    }
  }
  // The lowest failing rank speaks for everyone, so all ranks throw the same message: slot 0
  // carries size - rank for a failed rank, whose maximum names the lowest one.
  const int64_t m = static_cast<int64_t>(maxima.size());
  std::vector<int64_t> values{local_error ? size - rank : 0, m};
  values.insert(values.end(), maxima.begin(), maxima.end());
  values.insert(values.end(), sums.begin(), sums.end());
  const int count = CheckedInt(static_cast<int64_t>(values.size()), "values");
  if (sums.empty()) {
    MpiCheck(MPI_Allreduce(MPI_IN_PLACE, values.data(), count, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce(status)");
  } else {
    MPI_Datatype record;
    MpiCheck(MPI_Type_contiguous(count, MPI_INT64_T, &record), "MPI_Type_contiguous");
    MpiCheck(MPI_Type_commit(&record), "MPI_Type_commit");
    const int rc = MPI_Allreduce(MPI_IN_PLACE, values.data(), 1, record, MaxThenSumOp(), comm);
    MPI_Type_free(&record);
    MpiCheck(rc, "MPI_Allreduce(status)");
  }
  if (values[0] == 0)
    return Reduced{std::vector<int64_t>(values.begin() + 2, values.begin() + 2 + m),
                   std::vector<int64_t>(values.begin() + 2 + m, values.end())};
  const int speaker = size - static_cast<int>(values[0]);
  int64_t header[2] = {static_cast<int64_t>(code), static_cast<int64_t>(message.size())};
  MpiCheck(MPI_Bcast(header, 2, MPI_INT64_T, speaker, comm), "MPI_Bcast(error)");
  message.resize(static_cast<size_t>(header[1]));
  MpiCheck(MPI_Bcast(message.data(), CheckedInt(header[1], "error message length"), MPI_CHAR, speaker, comm),
           "MPI_Bcast(error message)");
  throw Error(static_cast<ErrorCode>(header[0]), "rank " + std::to_string(speaker) + ": " + message);
}

void IsendBytes(const uint8_t* data, int64_t size, int dest, int base_tag, MPI_Comm comm,
                std::vector<MPI_Request>& requests) {
  for (int64_t at = 0, tag = base_tag; at < size; at += kMaxTransferBytes, ++tag) {
    const int n = CheckedInt(std::min(kMaxTransferBytes, size - at), "message size");
    MPI_Request req;
    MpiCheck(MPI_Isend(data + at, n, MPI_BYTE, dest, CheckedInt(tag, "message tag"), comm, &req), "MPI_Isend");
    requests.push_back(req);
  }
}

void IrecvBytes(uint8_t* data, int64_t size, int source, int base_tag, MPI_Comm comm,
                std::vector<MPI_Request>& requests) {
  for (int64_t at = 0, tag = base_tag; at < size; at += kMaxTransferBytes, ++tag) {
    const int n = CheckedInt(std::min(kMaxTransferBytes, size - at), "message size");
    MPI_Request req;
    MpiCheck(MPI_Irecv(data + at, n, MPI_BYTE, source, CheckedInt(tag, "message tag"), comm, &req), "MPI_Irecv");
    requests.push_back(req);
  }
}

void WaitAll(std::vector<MPI_Request>& requests) {
  if (requests.empty()) return;
  MpiCheck(MPI_Waitall(CheckedInt(static_cast<int64_t>(requests.size()), "request count"), requests.data(),
                       MPI_STATUSES_IGNORE),
           "MPI_Waitall");
  requests.clear();
}

Received ExchangeInt64(MPI_Comm comm, const std::vector<std::vector<int64_t>>& out, int tag) {
  // Sparse exchange without a global count step (the "NBX" consensus): synchronous sends
  // complete only once matched, so when every rank's sends are done and everyone has entered the
  // non-blocking barrier, every message has been received.
  const int size = CommSize(comm);
  std::vector<MPI_Request> sends;
  for (int r = 0; r < size; ++r) {
    const std::vector<int64_t>& v = out[static_cast<size_t>(r)];
    if (v.empty()) continue;
    MPI_Request req;
    MpiCheck(MPI_Issend(v.data(), CheckedInt(static_cast<int64_t>(v.size()), "exchange count"), MPI_INT64_T, r, tag,
                        comm, &req),
             "MPI_Issend");
    sends.push_back(req);
  }
  std::vector<std::vector<int64_t>> from(static_cast<size_t>(size));
  MPI_Request barrier = MPI_REQUEST_NULL;
  for (bool done = false; !done;) {
    int flag = 0;
    MPI_Status status;
    MpiCheck(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &status), "MPI_Iprobe");
    if (flag) {
      int count = 0;
      MpiCheck(MPI_Get_count(&status, MPI_INT64_T, &count), "MPI_Get_count");
      std::vector<int64_t>& in = from[static_cast<size_t>(status.MPI_SOURCE)];
      const size_t at = in.size();
      in.resize(at + static_cast<size_t>(count));
      MpiCheck(MPI_Recv(in.data() + at, count, MPI_INT64_T, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      continue;
    }
    int complete = 0;
    if (barrier == MPI_REQUEST_NULL) {
      MpiCheck(MPI_Testall(CheckedInt(static_cast<int64_t>(sends.size()), "requests"), sends.data(), &complete,
                           MPI_STATUSES_IGNORE),
               "MPI_Testall");
      if (complete) MpiCheck(MPI_Ibarrier(comm, &barrier), "MPI_Ibarrier");
    } else {
      MpiCheck(MPI_Test(&barrier, &complete, MPI_STATUS_IGNORE), "MPI_Test");
      done = complete != 0;
    }
  }
  Received in;
  in.offsets.assign(static_cast<size_t>(size) + 1, 0);
  for (int r = 0; r < size; ++r) {
    const std::vector<int64_t>& v = from[static_cast<size_t>(r)];
    in.offsets[static_cast<size_t>(r) + 1] = in.offsets[static_cast<size_t>(r)] + static_cast<int64_t>(v.size());
    in.values.insert(in.values.end(), v.begin(), v.end());
  }
  return in;
}

}  // namespace hzio::mpi
