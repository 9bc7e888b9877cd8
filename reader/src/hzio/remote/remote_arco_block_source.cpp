#include "hzio/remote/remote_arco_block_source.h"

#include "hzio/codec/codec.h"
#include "hzio/format/arco_block_path.h"
#include "hzio/util/error.h"
#include "hzio/util/task_group.h"
#include "hzio/util/thread_pool.h"

namespace hzio::internal_remote {

RemoteArcoBlockSource::RemoteArcoBlockSource(std::shared_ptr<const IdxHeader> header,
                                             std::shared_ptr<const BlockLayout> layout,
                                             std::shared_ptr<const ObjectStore> store, std::string version,
                                             std::string idx_validator)
    : ObjectBlockSource(std::move(header), std::move(layout), std::move(store), std::move(version),
                        std::move(idx_validator)) {
  Check(this->header().arco > 0, ErrorCode::kInternal, name() + ": not an ARCO dataset");
  const std::string& idx = this->store().location().idx_name;
  const size_t dot = idx.find_last_of('.');
  idx_stem_ = dot == std::string::npos || dot == 0 ? idx : idx.substr(0, dot);
}

std::string RemoteArcoBlockSource::BlockKeyOf(const BlockKey& key) const {
  const Field& field = header().fields[static_cast<size_t>(key.field)];
  return store().Key(ArcoBlockPath(idx_stem_, key.time, field.name, key.block));
}

void RemoteArcoBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) {
  std::vector<ObjectStore::Get> gets;
  gets.reserve(keys.size());
  for (const BlockKey& k : keys) {
    CheckKey(k);
    Check(header().time.Contains(k.time), ErrorCode::kNotFound,
          name() + ": timestep " + std::to_string(k.time) + " is not in the dataset");
    // A compressed block is rarely much larger than its samples; anything far beyond is not one.
    const size_t limit = 2 * DecodedBlockBytes(k.field) + (size_t{1} << 20);
    ObjectStore::Get get;
    get.key = BlockKeyOf(k);
    get.max_bytes = limit;
    gets.push_back(std::move(get));
  }
  ThreadPool& pool = ThreadPool::Shared();
  TaskGroup tasks(&pool, DecodeBacklog(store().client(), pool.size()));
  store().GetMany(gets, [&](size_t i, HttpResponse&& res) {
    if (tasks.failed()) tasks.Wait();  // rethrows the error, ending the transfers
    const BlockKey& k = keys[i];
    EncodedBlock b;
    b.where = store().Url(gets[i].key);
    if (res.status == 404 || (res.status == 200 && res.body.empty())) {
      sink(i, std::move(b));
      return;
    }
    if (res.status != 200) throw store().ResponseError(gets[i].key, res);
    const Field& field = header().fields[static_cast<size_t>(k.field)];
    auto body = std::make_shared<std::string>(std::move(res.body));
    b.present = true;
    b.codec = CodecSpec::Parse(field.compression).codec;
    b.row_major = !field.hz_layout;
    b.data = reinterpret_cast<const uint8_t*>(body->data());
    b.size = body->size();
    b.owner = body;
    tasks.Submit([&sink, i, b = std::move(b)]() mutable { sink(i, std::move(b)); });
  });
  tasks.Wait();
}

}  // namespace hzio::internal_remote
