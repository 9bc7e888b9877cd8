/// The NumPy `.npy` (format version 1.0) header for a C-order array, so `/api/v1/.../data?format=npy`
/// replies load with numpy.load as the same shape OpenVisus's Python API returns (design.md §3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hzio::server {

/// Magic, version, header length and the padded dict; data follows immediately.
std::string NpyHeader(const std::string& descr, const std::vector<int64_t>& shape);

}  // namespace hzio::server
