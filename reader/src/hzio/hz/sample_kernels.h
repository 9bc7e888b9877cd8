/// Moving samples through an index table, the inner loop of every HZ permutation (idx-format.md
/// §3.1): gather (out[j] = src[table[j]]) and scatter (dst[table[j]] = in[j]), samples of a fixed
/// byte size. A copy of a size known at compile time is a few plain moves, where a memcpy call or a
/// word loop per sample costs more than the copy (RESULTS.md, "fixed-size scatter kernels"), so
/// the usual sample sizes get kernels of their own; the rest go through a generic loop (or, for the
/// group scatter, are left to the caller). Used by the
/// tile coder (subtree_coder.h) and by the unit scatter of the parallel reader (unit_scatter.h).
#pragma once

#include <cstdint>

namespace hzio {

/// out/dst, in/src, table, n: moves n samples.
using SampleKernel = void (*)(uint8_t*, const uint8_t*, const uint32_t*, int64_t);

/// Scatters groups of `group` consecutive samples of `in` that are laid out alike (unit_scatter.h):
/// for each group starting at sample f (n a multiple of group) and k < group,
/// dst[firsts[f] + to[k]] = in[f + from[k]]. Arguments: dst, in, firsts, n, group, to, from.
using GroupScatterKernel = void (*)(uint8_t*, const uint8_t*, const uint32_t*, int64_t, int64_t, const uint32_t*,
                                    const uint16_t*);

/// How a scatter reaches its destinations: kNear for a destination that sits in the caches (a
/// tile of the coder, prefetched whole), kFar for destinations spread over an array larger than
/// the caches (a block scattered into a box), whose cache lines are asked for a few samples ahead.
enum class Reach { kNear, kFar };

/// The kernels for samples of `sample_bytes`, or nullptr for a size without one.
SampleKernel GatherKernel(int64_t sample_bytes);
SampleKernel ScatterKernel(int64_t sample_bytes, Reach reach = Reach::kNear);
GroupScatterKernel GroupKernel(int64_t sample_bytes);

/// out[j] = src[table[j]] for j < n, with `kernel` when given (GatherKernel), else sample by sample.
void Gather(uint8_t* out, const uint8_t* src, const uint32_t* table, int64_t n, int64_t sample_bytes,
            SampleKernel kernel);
/// dst[table[j]] = in[j] for j < n, with `kernel` when given (ScatterKernel), else sample by sample.
void Scatter(uint8_t* dst, const uint8_t* in, const uint32_t* table, int64_t n, int64_t sample_bytes,
             SampleKernel kernel);

}  // namespace hzio
