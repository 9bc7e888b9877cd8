/// Datasets stored as files on a web server or as objects in an S3-compatible store, named by URL
/// (design.md §3):
///  * `s3://BUCKET/KEY/visus.idx` — endpoint and credentials from the environment (aws_config.h);
///    Amazon S3 itself is addressed virtual-hosted (`https://BUCKET.s3.REGION.amazonaws.com/KEY`),
///    any other endpoint (MinIO, OSN, Wasabi, ...) path-style (`ENDPOINT/BUCKET/KEY`);
///  * OpenVisus's form `http(s)://HOST[:PORT]/BUCKET/KEY/visus.idx?endpoint_url=...&access_key=...
///    &secret_key=...&region=...&profile=...`: any of those parameters makes the URL an S3 one
///    (path-style, the endpoint defaults to the URL's own host), as do Amazon S3 host names;
///  * any other `http(s)://HOST/PATH/visus.idx` — a plain web server (unsigned GETs, Range
///    requests).
/// URLs with `mod_visus` in their path or a `dataset=` parameter are mod_visus servers instead
/// (remote_dataset.h). Objects are named by keys relative to the folder of the `.idx`.
#pragma once

#include <map>
#include <string>

namespace hzio::internal_remote {

struct ObjectLocation {
  bool s3 = false;             // signed S3 requests (else plain HTTP)
  std::string endpoint;        // "scheme://host[:port]" (no default port); "" = Amazon S3 by region
  std::string bucket;          // S3 only
  std::string folder;          // decoded path of the .idx's folder inside the bucket / server, "" or "a/b/"
  std::string idx_name;        // decoded file name of the .idx ("visus.idx")
  bool virtual_hosted = false; // S3 on amazonaws.com: the bucket in the host name
  std::string region_hint;     // from an amazonaws.com host name ("" when none)
  std::map<std::string, std::string> params;  // the URL's decoded query parameters
  std::string display;         // the URL without credentials (errors, cache identity)
};

/// Whether an http(s) URL names a mod_visus server's dataset (path has "mod_visus", or a
/// `dataset=` parameter).
bool IsModVisusUrl(const std::string& url);

/// Parses an `s3://` or (non-mod_visus) `http(s)://` dataset URL. Throws kInvalidArgument naming
/// the URL when it has no bucket or key, or does not name a file.
ObjectLocation ParseObjectLocation(const std::string& url);

/// The URL without its credential parameters (access_key, secret_key, secret_access_key,
/// session_token), for messages and cache keys.
std::string RedactUrl(const std::string& url);

/// Resolves `relative` ("./visus/0000.bin", "../x.bin", "visus/0/data/....bin") against `folder`
/// ("a/b/") into a key without "." or ".." segments. Throws kInvalidArgument naming `what` when it
/// is absolute or climbs above the root.
std::string ResolveObjectKey(const std::string& folder, const std::string& relative, const std::string& what);

}  // namespace hzio::internal_remote
