#include <IDXDescriptor.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "hzio/access/dataset.h"
#include "hzio/util/error.h"

namespace {

std::string Trim(const std::string &s)
{
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

}  // namespace

bool IsIdxDescriptor(const std::string &filename)
{
    const std::string suffix = ".idxurl";
    if (filename.size() < suffix.size()) return false;
    std::string tail = filename.substr(filename.size() - suffix.size());
    std::transform(tail.begin(), tail.end(), tail.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return tail == suffix;
}

std::string ResolveIdxSource(const std::string &filename)
{
    if (!IsIdxDescriptor(filename)) return filename;
    std::ifstream in(filename);
    hzio::Check(in.good(), hzio::ErrorCode::kNotFound, filename + ": cannot read the .idxurl descriptor");
    std::string line;
    while (std::getline(in, line))
    {
        const std::string entry = Trim(line);
        if (entry.empty() || entry[0] == '#') continue;
        if (hzio::IsRemoteUrl(entry)) return entry;
        // A local .idx named relative to the descriptor.
        std::filesystem::path p(entry);
        if (p.is_relative()) p = std::filesystem::path(filename).parent_path() / p;
        return p.string();
    }
    throw hzio::Error(hzio::ErrorCode::kInvalidArgument,
                      filename + ": the .idxurl descriptor holds no URL (expected a line such as "
                                 "http://127.0.0.1:8080/mod_visus?dataset=NAME or s3://BUCKET/KEY/visus.idx)");
}
