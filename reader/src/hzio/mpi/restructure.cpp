#include "hzio/mpi/restructure.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>

#include "hzio/util/box_copy.h"
#include "hzio/mpi/collective.h"

namespace hzio::mpi {

namespace {

constexpr int kBidTag = 99, kAnswerTag = 100, kSizeTag = 101, kHeaderTag = 102, kDataTag = 1000;

// Per-record layout of a data message header: id, field, p1[dims], p2[dims].
int64_t RecordWords(int dims) { return 2 + 2 * int64_t{dims}; }

// Which rank receives each cell this rank contributes to, and, for the cells it receives, which
// ranks contribute. Decided at the cell's home rank (id mod size).
struct Ownership {
  std::map<int64_t, int> receiver;                      // every cell this rank touches
  std::map<int64_t, std::vector<int>> contributors;     // only the cells this rank receives
};

Ownership DecideReceivers(MPI_Comm comm, const ImposedGrid& grid, const std::vector<Piece>& pieces,
                          bool every_cell) {
  const int size = CommSize(comm), me = CommRank(comm);
  std::map<int64_t, int64_t> volume;
  for (const Piece& p : pieces)
    for (int64_t id : grid.CellsIntersecting(p.box)) volume[id] += grid.CellBox(id).Intersect(p.box).Size().Product();
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(size));
  for (const auto& [id, v] : volume) {
    auto& o = out[static_cast<size_t>(id % size)];
    o.push_back(id);
    o.push_back(v);
  }
  const Received in = ExchangeInt64(comm, out, kBidTag);

  // At the home rank: group contributions by cell, pick the receiver.
  struct Bid { int64_t id, volume; int rank; };
  std::vector<Bid> bids;
  for (int r = 0; r < size; ++r)
    for (int64_t i = in.offsets[static_cast<size_t>(r)]; i < in.offsets[static_cast<size_t>(r) + 1]; i += 2)
      bids.push_back(Bid{in.values[static_cast<size_t>(i)], in.values[static_cast<size_t>(i) + 1], r});
  std::sort(bids.begin(), bids.end(), [](const Bid& a, const Bid& b) { return a.id != b.id ? a.id < b.id : a.rank < b.rank; });
  std::map<int, int64_t> load;  // volume already assigned to each rank by this home
  for (auto& o : out) o.clear();
  for (size_t i = 0; i < bids.size();) {
    size_t j = i;
    while (j < bids.size() && bids[j].id == bids[i].id) ++j;
    size_t best = i;
    for (size_t k = i + 1; k < j; ++k) {
      const bool larger = bids[k].volume > bids[best].volume;
      const bool tie_less_loaded = bids[k].volume == bids[best].volume && load[bids[k].rank] < load[bids[best].rank];
      if (larger || tie_less_loaded) best = k;
    }
    const int receiver = bids[best].rank;
    load[receiver] += bids[best].volume;
    for (size_t k = i; k < j; ++k) {
      auto& o = out[static_cast<size_t>(bids[k].rank)];
      o.push_back(bids[i].id);
      o.push_back(receiver);
      if (bids[k].rank == receiver) {
        o.push_back(static_cast<int64_t>(j - i));
        for (size_t m = i; m < j; ++m) o.push_back(bids[m].rank);
      } else {
        o.push_back(0);
      }
    }
    i = j;
  }
  const Received answers = ExchangeInt64(comm, out, kAnswerTag);
  Ownership own;
  if (every_cell) {  // the cells nobody bid for are received (empty) at their home: this rank
    size_t at = 0;
    for (int64_t id = me; id < grid.num_cells(); id += size) {
      while (at < bids.size() && bids[at].id < id) ++at;
      if (at < bids.size() && bids[at].id == id) continue;
      own.receiver[id] = me;
      own.contributors[id];
    }
  }
  for (size_t i = 0; i < answers.values.size();) {
    const int64_t id = answers.values[i];
    const int receiver = static_cast<int>(answers.values[i + 1]);
    const int64_t n = answers.values[i + 2];
    own.receiver[id] = receiver;
    if (n > 0) {
      auto& c = own.contributors[id];
      for (int64_t k = 0; k < n; ++k) c.push_back(static_cast<int>(answers.values[i + 3 + static_cast<size_t>(k)]));
    }
    i += 3 + static_cast<size_t>(n);
  }
  return own;
}

}  // namespace

std::vector<RegularBox> Restructure(MPI_Comm comm, const ImposedGrid& grid, const std::vector<Field>& fields,
                                    const std::vector<Piece>& pieces, const Box& touched, bool every_cell) {
  const int me = CommRank(comm);
  const Ownership own = DecideReceivers(comm, grid, pieces, every_cell);
  const int dims = grid.cell_size().dims;
  std::vector<int64_t> sample_bytes;
  std::vector<std::vector<uint8_t>> defaults;
  for (const Field& f : fields) {
    sample_bytes.push_back(f.dtype.SampleBytes());
    defaults.push_back(f.DefaultSample());
  }

  // The cells received here, with lazily allocated per-field buffers.
  std::map<int64_t, RegularBox> mine;
  for (const auto& [id, contributors] : own.contributors) {
    RegularBox& rb = mine[id];
    rb.id = id;
    rb.box = grid.CellBox(id);
    rb.fields.resize(fields.size());
    rb.borrowed.assign(fields.size(), nullptr);
  }
  auto buffer_of = [&](int64_t id, int field) -> uint8_t* {
    RegularBox& rb = mine.at(id);
    PooledBuffer& buf = rb.fields[static_cast<size_t>(field)];
    if (!buf.data()) {
      const int64_t n = rb.box.Size().Product();
      buf = PooledBuffer(static_cast<size_t>(n * sample_bytes[static_cast<size_t>(field)]),
                         LargeAllocation::Pages::kSparse);
      const uint8_t*& lent = rb.borrowed[static_cast<size_t>(field)];
      if (lent) {  // a second piece overlaps a borrowed cell (wholly inside the domain): copy it first
        std::memcpy(buf.data(), lent, buf.size());
        lent = nullptr;
      } else {
        FillRegion(rb.box, buf.data(), rb.box.Intersect(touched), defaults[static_cast<size_t>(field)]);
      }
    }
    return buf.data();
  };

  // Pack outgoing parts per destination; copy local parts directly.
  struct Outgoing { std::vector<int64_t> header; std::vector<uint8_t> data; };
  std::map<int, Outgoing> outgoing;
  for (const Piece& p : pieces) {
    const int64_t sb = sample_bytes[static_cast<size_t>(p.field)];
    for (int64_t id : grid.CellsIntersecting(p.box)) {
      const Box cell = grid.CellBox(id);
      const Box part = cell.Intersect(p.box);
      const int receiver = own.receiver.at(id);
      if (receiver == me && p.box == cell && own.contributors.at(id).size() == 1 &&
          mine.at(id).Data(p.field) == nullptr) {
        mine.at(id).borrowed[static_cast<size_t>(p.field)] = p.data;  // the piece is the cell: no copy
        continue;
      }
      if (receiver == me) {
        CopyRegion(p.box, p.data, cell, buffer_of(id, p.field), part, sb);
        continue;
      }
      Outgoing& o = outgoing[receiver];
      o.header.push_back(id);
      o.header.push_back(p.field);
      for (int d = 0; d < dims; ++d) o.header.push_back(part.p1[d]);
      for (int d = 0; d < dims; ++d) o.header.push_back(part.p2[d]);
      const size_t at = o.data.size();
      o.data.resize(at + static_cast<size_t>(part.Size().Product() * sb));
      CopyRegion(p.box, p.data, part, o.data.data() + at, part, sb);
    }
  }

  std::set<int> sources;
  for (const auto& [id, contributors] : own.contributors)
    for (int r : contributors)
      if (r != me) sources.insert(r);

  // Round 1: sizes. Round 2: headers and data.
  std::vector<MPI_Request> requests;
  std::map<int, std::array<int64_t, 2>> sizes;
  for (int src : sources) {
    MPI_Request req;
    MpiCheck(MPI_Irecv(sizes[src].data(), 2, MPI_INT64_T, src, kSizeTag, comm, &req), "MPI_Irecv(size)");
    requests.push_back(req);
  }
  std::map<int, std::array<int64_t, 2>> out_sizes;
  for (auto& [dest, o] : outgoing) {
    out_sizes[dest] = {static_cast<int64_t>(o.header.size()), static_cast<int64_t>(o.data.size())};
    MPI_Request req;
    MpiCheck(MPI_Isend(out_sizes[dest].data(), 2, MPI_INT64_T, dest, kSizeTag, comm, &req), "MPI_Isend(size)");
    requests.push_back(req);
  }
  WaitAll(requests);
  std::map<int, Outgoing> incoming;
  for (int src : sources) {
    Outgoing& in = incoming[src];
    in.header.resize(static_cast<size_t>(sizes[src][0]));
    in.data.resize(static_cast<size_t>(sizes[src][1]));
    IrecvBytes(reinterpret_cast<uint8_t*>(in.header.data()), sizes[src][0] * 8, src, kHeaderTag, comm, requests);
    IrecvBytes(in.data.data(), sizes[src][1], src, kDataTag, comm, requests);
  }
  for (auto& [dest, o] : outgoing) {
    IsendBytes(reinterpret_cast<const uint8_t*>(o.header.data()), static_cast<int64_t>(o.header.size()) * 8, dest,
               kHeaderTag, comm, requests);
    IsendBytes(o.data.data(), static_cast<int64_t>(o.data.size()), dest, kDataTag, comm, requests);
  }
  WaitAll(requests);
  outgoing.clear();

  const int64_t words = RecordWords(dims);
  for (auto& [src, in] : incoming) {
    size_t at = 0;
    for (size_t r = 0; r + static_cast<size_t>(words) <= in.header.size(); r += static_cast<size_t>(words)) {
      const int64_t id = in.header[r];
      const int field = static_cast<int>(in.header[r + 1]);
      Box part{Point(dims), Point(dims)};
      for (int d = 0; d < dims; ++d) {
        part.p1[d] = in.header[r + 2 + static_cast<size_t>(d)];
        part.p2[d] = in.header[r + 2 + static_cast<size_t>(dims + d)];
      }
      const RegularBox& rb = mine.at(id);
      CopyRegion(part, in.data.data() + at, rb.box, buffer_of(id, field), part, sample_bytes[static_cast<size_t>(field)]);
      at += static_cast<size_t>(part.Size().Product() * sample_bytes[static_cast<size_t>(field)]);
    }
  }

  if (every_cell)  // a field nobody had data for in a cell is encoded as its default value
    for (auto& [id, rb] : mine)
      for (size_t f = 0; f < fields.size(); ++f)
        if (!rb.Data(static_cast<int>(f))) buffer_of(id, static_cast<int>(f));

  std::vector<RegularBox> result;
  for (auto& [id, rb] : mine) result.push_back(std::move(rb));
  return result;
}

}  // namespace hzio::mpi
