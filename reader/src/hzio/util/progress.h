/// A one-line progress bar for long command-line work (convert, create, verify; design.md §3):
/// drawn on stderr only when stderr is a terminal, redrawn at most a few times per second, safe to
/// update from several threads. Output that is piped or captured stays free of control characters.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace hzio {

class ProgressBar {
 public:
  enum class Unit { kCount, kBytes };

  /// Draws on stderr iff it is a terminal (isatty). `total` may be 0 when unknown.
  ProgressBar(std::string label, int64_t total, Unit unit = Unit::kCount);
  /// Draws on `out` iff `enabled` (tests render into a file).
  ProgressBar(std::string label, int64_t total, Unit unit, std::FILE* out, bool enabled);
  ~ProgressBar();  // Finish()es
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Whether stderr is a terminal (the default for the first constructor).
  static bool StderrIsTerminal();

  void Set(int64_t done);
  void Add(int64_t delta);
  /// Draws the final state and ends the line (only once; later updates are ignored).
  void Finish();

  bool enabled() const { return enabled_; }
  /// The text of one redraw for `done` after `seconds` (no carriage return), for tests.
  std::string Render(int64_t done, double seconds) const;

 private:
  void MaybeDraw(int64_t done, bool force);

  std::string label_;
  int64_t total_;
  Unit unit_;
  std::FILE* out_;
  bool enabled_;
  std::atomic<int64_t> done_{0};
  std::atomic<int64_t> next_draw_ns_{0};
  std::mutex mutex_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hzio
