/// Large box-query replies produced piece by piece (issue 14: replies are never materialised
/// whole): the result grid of idx-format.md §3.4 is cut into runs that are contiguous in its
/// row-major order (whole planes, else rows of a plane, else parts of a row), each assembled from
/// the block cache on a worker when the transport is ready for it, optionally compressed as one
/// zlib stream across the pieces (a `zip` body, §5). A reply holds at most a piece or two whatever
/// its size.
#pragma once

#include <memory>
#include <string>

#include <zlib.h>

#include "handlers/server_context.h"
#include "http/message.h"

namespace hzio::server {

class BoxBodyStream : public BodyStream {
 public:
  /// Streams `prefix` (e.g. an npy header) followed by the samples of `query` on `dataset`,
  /// zlib-compressed at `zip_level` when `zip` (then the size is unknown: sent chunked).
  BoxBodyStream(std::shared_ptr<const ServedDataset> dataset, std::shared_ptr<ServerShared> shared,
                const Dataset::Resolved& query, std::string prefix, bool zip, int zip_level, int64_t piece_bytes);
  ~BoxBodyStream() override;

  int64_t Size() const override;
  int64_t NextPieceBound() const override;
  bool Next(std::string& piece) override;

 private:
  /// The next run of samples as a sub-query; false when all were produced.
  bool NextRun(Dataset::Resolved* run);
  void Raw(std::string& out);

  std::shared_ptr<const ServedDataset> dataset_;
  std::shared_ptr<ServerShared> shared_;
  Dataset::Resolved query_;
  std::string prefix_;
  bool zip_;
  int64_t piece_bytes_;
  int64_t sample_bytes_;
  int64_t total_bytes_;
  int axis_ = 0;        // runs take a range of this axis, all of the faster ones, one index of the slower
  int64_t per_run_ = 1; // indices of axis_ per run
  Point pos_;           // start of the next run on axis_ and above
  bool finished_ = false;
  bool prefix_sent_ = false;
  z_stream z_{};
  bool z_open_ = false;
};

/// Whether a reply of `compression` can be streamed (raw and zlib; lz4 is one block).
bool StreamableCompression(const std::string& compression);

}  // namespace hzio::server
