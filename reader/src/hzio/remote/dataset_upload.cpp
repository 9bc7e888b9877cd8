#include "hzio/remote/dataset_upload.h"

#include <unistd.h>

#include <ctime>

#include "hzio/access/dataset_paths.h"
#include "hzio/codec/codec.h"
#include "hzio/remote/crypto.h"
#include "hzio/remote/object_store.h"
#include "hzio/remote/object_uploader.h"
#include "hzio/remote/object_url.h"
#include "hzio/remote/upload_marker.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

using namespace internal_remote;

UploadMarker Marker(const std::string& state) {
  UploadMarker m;
  m.state = state;
  m.writer = "hzio copy";
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  m.host = host;
  m.pid = static_cast<int64_t>(::getpid());
  char when[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  m.time = when;
  return m;
}

void PutChecked(const ObjectStore& store, const std::string& key, std::string text) {
  const HttpResponse r = store.Put(key, std::make_shared<const std::string>(std::move(text)));
  if (r.status != 200 && r.status != 201 && r.status != 204) throw store.ResponseError(key, r);
}

}  // namespace

UploadResult UploadDataset(Dataset& source, const std::string& url, CopyOptions options,
                           const std::function<void(const std::string&)>& notify) {
  Check(!IsModVisusUrl(url), ErrorCode::kUnsupported,
        RedactUrl(url) + ": a mod_visus server takes no uploads (upload to an S3 bucket that it or hzio serve reads)");
  const ObjectStore store(ParseObjectLocation(url), ProcessEnvironment(), std::make_shared<HttpClient>());
  const std::string& where = store.location().display;
  Check(store.s3(), ErrorCode::kUnsupported,
        where + ": a plain web server takes no uploads; upload to an S3-compatible store (s3://BUCKET/KEY/NAME.idx, "
                "or this URL with endpoint_url=/access_key=/secret_key= parameters)");
  Check(!options.blocks_per_file, ErrorCode::kUnsupported,
        where + ": object stores take ARCO datasets only (one object per block; classic block files would need "
                "ranged writes): drop the classic block geometry (blocksperfile), or give the ARCO block size");
  if (options.arco == 0) options.arco = source.header().arco > 0 ? source.header().arco : kDefaultUploadArcoBytes;
  const std::string& idx_name = store.location().idx_name;
  const IdxHeader header = CopyHeader(source.header(), idx_name, options);

  // What is there already: the .idx and the marker, in one round trip.
  const std::string idx_key = store.IdxKey();
  const std::string marker_key = store.Key(UploadMarkerName(idx_name));
  std::vector<ObjectStore::Get> gets(2);
  gets[0].key = idx_key;
  gets[0].max_bytes = size_t{16} << 20;
  gets[1].key = marker_key;
  gets[1].max_bytes = 64 * 1024;
  HttpResponse found[2];
  store.GetMany(gets, [&](size_t i, HttpResponse&& r) { found[i] = std::move(r); });
  for (size_t i = 0; i < 2; ++i)
    if (found[i].status != 200 && found[i].status != 404) throw store.ResponseError(gets[i].key, found[i]);
  Check(found[0].body.find("<Code>NoSuchBucket</Code>") == std::string::npos, ErrorCode::kNotFound,
        where + ": the bucket '" + store.location().bucket + "' does not exist at " + store.Url("") +
            " (hzio creates no buckets: make it first, e.g. `aws s3 mb s3://" + store.location().bucket + "`)");
  UploadResult result;
  result.destination = where;
  if (found[1].status == 200) {
    const UploadMarker earlier = ParseUploadMarker(found[1].body, store.Url(marker_key));
    Check(earlier.state != "complete", ErrorCode::kInvalidArgument,
          where + ": a dataset is there already (uploaded " + earlier.time + " by " + earlier.writer +
              "); refusing to overwrite it (delete its objects first)");
    result.resumed = true;
    if (notify)
      notify(where + ": an upload started " + earlier.time + " on " + earlier.host + " (pid " +
             std::to_string(earlier.pid) + ") did not finish; uploading again over it");
  } else {
    Check(found[0].status == 404, ErrorCode::kInvalidArgument,
          where + ": a dataset is there already (written by another tool); refusing to overwrite it");
  }

  for (const Field& f : header.fields)
    if (notify && CodecSpec::Parse(f.compression).codec != Codec::kZip)
      notify(where + ": field '" + f.name + "' goes up as " +
             (f.compression.empty() ? std::string("raw") : f.compression) +
             " blocks, which OpenVisus's S3 reader misreads (it takes every ARCO block for zip): give "
             "--compression zip for OpenVisus clients");

  // Readers refuse the dataset from now until the last PUT (upload_marker.h).
  PutChecked(store, marker_key, FormatUploadMarker(Marker("uploading")));
  ObjectUploader uploader(store, IdxStemOf(idx_name), ObjectUploader::Limits{});
  DatasetWriter writer(where, header, uploader, options.writer);
  result.sample_bytes = CopyDatasetInto(source, writer, options);  // Finish waits for every block PUT
  const std::string idx_text = writer.header().ToText();
  PutChecked(store, idx_key, idx_text);
  UploadMarker done = Marker("complete");
  done.idx_sha256 = HexLower(Sha256(idx_text));
  done.objects = uploader.objects() + 1;
  done.bytes = uploader.bytes() + idx_text.size();
  PutChecked(store, marker_key, FormatUploadMarker(done));
  result.objects = done.objects + 1;
  result.bytes = done.bytes;
  return result;
}

}  // namespace hzio
