#include "hzio/remote/mod_visus_block_source.h"

#include <algorithm>
#include <vector>

#include "hzio/remote/mod_visus_reply.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"
#include "hzio/util/task_group.h"
#include "hzio/util/thread_pool.h"

namespace hzio::internal_remote {

namespace {

constexpr size_t kBlocksPerRequest = 64;

}  // namespace

ModVisusBlockSource::ModVisusBlockSource(std::shared_ptr<const IdxHeader> header,
                                         std::shared_ptr<const BlockLayout> layout, std::string url,
                                         ModVisusUrl endpoint, std::shared_ptr<HttpClient> client,
                                         std::string wire_compression, std::string version)
    : BlockSource(std::move(header), std::move(layout), std::move(url)),
      endpoint_(std::move(endpoint)),
      client_(std::move(client)),
      wire_compression_(std::move(wire_compression)),
      version_(std::move(version)) {}

size_t ModVisusBlockSource::batch() {
  // As ModVisusAccess does: batch only when the server says it aggregates (§7.9 step 3). Asked
  // on the first block fetch, so datasets read through box queries never ping.
  std::call_once(ping_once_, [&] {
    HttpResponse ping = client_->Get(endpoint_.Request({{"action", "ping"}}));
    batch_ = ping.status == 200 && ping.Header("block-query-support-aggregation") == "1" ? kBlocksPerRequest : 1;
  });
  return batch_;
}

void ModVisusBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) {
  const size_t batch = this->batch();
  // A request asks for blocks of one field and timestep: group the keys, then cut the groups.
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    CheckKey(keys[i]);
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return keys[a].field != keys[b].field ? keys[a].field < keys[b].field : keys[a].time < keys[b].time;
  });
  std::vector<std::pair<size_t, size_t>> requests;  // [begin, end) of `order`
  for (size_t i = 0; i < order.size();) {
    size_t j = i + 1;
    while (j < order.size() && j - i < batch && keys[order[j]].field == keys[order[i]].field &&
           keys[order[j]].time == keys[order[i]].time)
      ++j;
    requests.emplace_back(i, j);
    i = j;
  }
  std::vector<HttpRequest> http(requests.size());
  for (size_t r = 0; r < requests.size(); ++r) {
    const auto [begin, end] = requests[r];
    const BlockKey& first = keys[order[begin]];
    const Field& field = header().fields[static_cast<size_t>(first.field)];
    std::string list;
    for (size_t k = begin; k < end; ++k) list += (list.empty() ? "" : " ") + std::to_string(keys[order[k]].block);
    http[r].url = endpoint_.Request({{"action", "rangequery"},
                                     {"field", field.name},
                                     {"time", FormatFixed6(static_cast<double>(first.time))},
                                     {"compression", wire_compression_},
                                     {"block", list}});
  }
  // All requests in flight at once; the parts are checked and handed on on the pool.
  ThreadPool& pool = ThreadPool::Shared();
  TaskGroup tasks(&pool, static_cast<size_t>(2 * pool.size() + 2));
  client_->PerformMany(http, [&](size_t r, HttpResponse&& reply) {
    if (tasks.failed()) tasks.Wait();  // rethrows the error, ending the transfers
    const auto [begin, end] = requests[r];
    const std::string& request = http[r].url;
    if (reply.status != 200 && !(reply.status == 404 && end - begin == 1)) throw ReplyError(request, reply);
    // The parts own the payloads the sink sees (views into their bodies).
    auto parts = std::make_shared<std::vector<HttpResponse>>(DecomposeReply(reply, end - begin));
    tasks.Submit([&, r, parts] {
      const auto [b0, b1] = requests[r];
      const Field& field = header().fields[static_cast<size_t>(keys[order[b0]].field)];
      for (size_t k = b0; k < b1; ++k) {
        const uint64_t id = keys[order[k]].block;
        const HttpResponse& part = (*parts)[k - b0];
        EncodedBlock b;
        b.where = http[r].url + " (block " + std::to_string(id) + ")";
        if (part.status == 200) {
          CheckArrayPart(part, field.dtype, layout().BlockGrid(id).count, b.where);
          b.present = true;
          b.codec = WireCodec(part);
          // visus-layout describes a block body: "hzorder" or empty (row-major); legacy visus-format.
          b.row_major = part.HasHeader("visus-layout") ? part.Header("visus-layout") != "hzorder"
                                                       : part.HasHeader("visus-format") && part.Header("visus-format") != "0";
          b.data = reinterpret_cast<const uint8_t*>(part.body.data());
          b.size = part.body.size();
          b.owner = parts;
        } else if (part.status != 404) {
          throw ReplyError(b.where, part);
        }
        sink(order[k], std::move(b));
      }
    });
  });
  tasks.Wait();
}

}  // namespace hzio::internal_remote
