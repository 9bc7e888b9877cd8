/// Where an S3 dataset's credentials, region and endpoint come from, as the AWS command line and
/// SDKs (and OpenVisus's URL parameters) decide it, first match wins:
///  * credentials: the URL (`access_key`, `secret_key` or `secret_access_key`, `session_token`);
///    a named profile (`profile=` in the URL, else AWS_PROFILE) from the shared credentials file
///    (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials) or the config file; the
///    environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN); the `default`
///    profile; none: anonymous (unsigned requests, for public buckets);
///  * region: the URL (`region`), AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, a
///    `s3.REGION.` host name, else us-east-1;
///  * endpoint: the URL (`endpoint_url`), AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
///    `endpoint_url` (also the nested `s3 =` / `endpoint_url =` form OpenVisus reads), else AWS.
/// The config file is AWS_CONFIG_FILE or ~/.aws/config (`[profile NAME]`, or `[default]`).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "hzio/remote/sigv4.h"

namespace hzio::internal_remote {

struct S3Settings {
  AwsCredentials credentials;
  std::string region;        // never empty once resolved
  std::string endpoint_url;  // "" = Amazon S3 itself
  std::string profile;       // the profile used, "" when none
  std::string credentials_from;  // "url", "profile NAME", "environment" or "" (anonymous), for messages
};

/// Looks an environment variable up (std::getenv in production; a map in tests).
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
/// The process environment.
EnvLookup ProcessEnvironment();

/// Resolves the settings from the URL's query parameters (decoded), the environment and the
/// AWS files. `default_region` comes last before us-east-1 (e.g. parsed from the host name).
/// Throws kInvalidArgument naming the file or parameter for an explicit profile that does not
/// exist, or an access key without its secret.
S3Settings ResolveS3Settings(const std::map<std::string, std::string>& url_params, const EnvLookup& env,
                             const std::string& default_region = "");

/// The sections of an AWS INI file (`[name]`), each key -> value; a key whose value is empty and
/// is followed by indented `sub = value` lines gets them as "key.sub" (e.g. "s3.endpoint_url").
std::map<std::string, std::map<std::string, std::string>> ParseAwsIni(const std::string& text);

}  // namespace hzio::internal_remote
