#include "hzio/remote/aws_config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

using Ini = std::map<std::string, std::map<std::string, std::string>>;

std::optional<std::string> NonEmpty(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> v = env(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

std::optional<std::string> Param(const std::map<std::string, std::string>& params, const std::string& name) {
  auto it = params.find(name);
  if (it == params.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string FileOr(const EnvLookup& env, const std::string& variable, const std::string& home_relative) {
  if (std::optional<std::string> v = NonEmpty(env, variable)) return *v;
  std::optional<std::string> home = NonEmpty(env, "HOME");
  return home ? *home + "/" + home_relative : std::string();
}

Ini LoadIni(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseAwsIni(text.str());
}

const std::map<std::string, std::string>* Section(const Ini& ini, const std::string& name) {
  auto it = ini.find(name);
  return it == ini.end() ? nullptr : &it->second;
}

std::optional<std::string> Value(const std::map<std::string, std::string>* section, const std::string& key) {
  if (!section) return std::nullopt;
  auto it = section->find(key);
  if (it == section->end() || it->second.empty()) return std::nullopt;
  return it->second;
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

Ini ParseAwsIni(const std::string& text) {
  Ini ini;
  std::string section, parent;  // parent: the key whose indented sub-settings follow
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
    const std::string t = Trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[' && t.back() == ']') {
      section = Trim(t.substr(1, t.size() - 2));
      ini[section];
      parent.clear();
      continue;
    }
    const size_t eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = ToLower(Trim(t.substr(0, eq))), value = Trim(t.substr(eq + 1));
    if (indented && !parent.empty()) {
      ini[section][parent + "." + key] = value;
      continue;
    }
    ini[section][key] = value;
    parent = value.empty() ? key : std::string();
  }
  return ini;
}

S3Settings ResolveS3Settings(const std::map<std::string, std::string>& params, const EnvLookup& env,
                             const std::string& default_region) {
  S3Settings s;
  const Ini credentials_file = LoadIni(FileOr(env, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials"));
  const std::string config_path = FileOr(env, "AWS_CONFIG_FILE", ".aws/config");
  const Ini config_file = LoadIni(config_path);

  std::optional<std::string> explicit_profile = Param(params, "profile");
  if (!explicit_profile) explicit_profile = NonEmpty(env, "AWS_PROFILE");
  s.profile = explicit_profile.value_or("default");
  const auto* cred_section = Section(credentials_file, s.profile);
  const auto* config_section =
      Section(config_file, s.profile == "default" ? std::string("default") : "profile " + s.profile);
  if (!config_section && s.profile != "default") config_section = Section(config_file, s.profile);
  if (explicit_profile && !cred_section && !config_section)
    throw Error(ErrorCode::kInvalidArgument,
                "AWS profile '" + s.profile + "' is in neither " +
                    FileOr(env, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials") + " nor " + config_path);
  auto profile_value = [&](const std::string& key) {
    std::optional<std::string> v = Value(cred_section, key);
    return v ? v : Value(config_section, key);
  };

  // Credentials.
  if (std::optional<std::string> key = Param(params, "access_key")) {
    std::optional<std::string> secret = Param(params, "secret_key");
    if (!secret) secret = Param(params, "secret_access_key");
    Check(secret.has_value(), ErrorCode::kInvalidArgument,
          "the URL gives access_key but no secret_key (or secret_access_key)");
    s.credentials = {*key, *secret, Param(params, "session_token").value_or("")};
    s.credentials_from = "url";
  } else {
    auto from_profile = [&]() -> bool {
      std::optional<std::string> id = profile_value("aws_access_key_id");
      std::optional<std::string> secret = profile_value("aws_secret_access_key");
      if (!id || !secret) return false;
      s.credentials = {*id, *secret, profile_value("aws_session_token").value_or("")};
      s.credentials_from = "profile " + s.profile;
      return true;
    };
    std::optional<std::string> env_id = NonEmpty(env, "AWS_ACCESS_KEY_ID");
    std::optional<std::string> env_secret = NonEmpty(env, "AWS_SECRET_ACCESS_KEY");
    // An explicitly named profile wins over the environment's keys (as botocore does).
    if (!(explicit_profile && from_profile())) {
      if (env_id && env_secret) {
        s.credentials = {*env_id, *env_secret, NonEmpty(env, "AWS_SESSION_TOKEN").value_or("")};
        s.credentials_from = "environment";
      } else {
        from_profile();
      }
    }
  }

  // Region.
  std::optional<std::string> region = Param(params, "region");
  if (!region) region = NonEmpty(env, "AWS_REGION");
  if (!region) region = NonEmpty(env, "AWS_DEFAULT_REGION");
  if (!region) region = profile_value("region");
  s.region = region.value_or(default_region.empty() ? "us-east-1" : default_region);

  // Endpoint.
  std::optional<std::string> endpoint = Param(params, "endpoint_url");
  if (!endpoint) endpoint = NonEmpty(env, "AWS_ENDPOINT_URL_S3");
  if (!endpoint) endpoint = NonEmpty(env, "AWS_ENDPOINT_URL");
  if (!endpoint) endpoint = profile_value("s3.endpoint_url");
  if (!endpoint) endpoint = profile_value("endpoint_url");
  s.endpoint_url = endpoint.value_or("");
  while (!s.endpoint_url.empty() && s.endpoint_url.back() == '/') s.endpoint_url.pop_back();
  return s;
}

}  // namespace hzio::internal_remote
