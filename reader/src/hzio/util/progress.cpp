#include "hzio/util/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>

#include "hzio/util/strings.h"

namespace hzio {

namespace {

constexpr int64_t kRedrawIntervalNs = 200'000'000;  // 5 redraws per second keeps a slow terminal idle
constexpr int kBarWidth = 28;

std::string FormatDuration(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%" PRId64 ":%02d:%02d", s / 3600, static_cast<int>(s / 60 % 60),
                  static_cast<int>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(s / 60), static_cast<int>(s % 60));
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, int64_t total, Unit unit)
    : ProgressBar(std::move(label), total, unit, stderr, StderrIsTerminal()) {}

ProgressBar::ProgressBar(std::string label, int64_t total, Unit unit, std::FILE* out, bool enabled)
    : label_(std::move(label)), total_(total), unit_(unit), out_(out), enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { Finish(); }

bool ProgressBar::StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

void ProgressBar::Set(int64_t done) {
  done_.store(done, std::memory_order_relaxed);
  MaybeDraw(done, false);
}

void ProgressBar::Add(int64_t delta) {
  const int64_t done = done_.fetch_add(delta, std::memory_order_relaxed) + delta;
  MaybeDraw(done, false);
}

void ProgressBar::Finish() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(out_, "\r%s\033[K\n", Render(done_.load(), seconds).c_str());
  std::fflush(out_);
}

void ProgressBar::MaybeDraw(int64_t done, bool force) {
  if (!enabled_) return;
  const int64_t now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
  int64_t next = next_draw_ns_.load(std::memory_order_relaxed);
  if (!force && now < next) return;
  // Only the thread that advances the deadline draws; the others return at once.
  if (!next_draw_ns_.compare_exchange_strong(next, now + kRedrawIntervalNs)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  std::fprintf(out_, "\r%s\033[K", Render(done, static_cast<double>(now) * 1e-9).c_str());
  std::fflush(out_);
}

std::string ProgressBar::Render(int64_t done, double seconds) const {
  std::string line = label_ + " ";
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
  auto amount = [&](double v) {
    return unit_ == Unit::kBytes ? FormatBytes(v) : std::to_string(static_cast<int64_t>(v));
  };
  if (total_ > 0) {
    const double fraction = std::clamp(static_cast<double>(done) / static_cast<double>(total_), 0.0, 1.0);
    const int filled = static_cast<int>(fraction * kBarWidth);
    line += "[" + std::string(static_cast<size_t>(filled), '#') +
            std::string(static_cast<size_t>(kBarWidth - filled), '.') + "] ";
    char pct[16];
    std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(fraction * 100));
    line += pct;
    line += "  " + amount(static_cast<double>(done)) + " / " + amount(static_cast<double>(total_));
  } else {
    line += amount(static_cast<double>(done));
  }
  if (rate > 0) {
    line += "  " + amount(rate) + "/s";
    if (total_ > done) line += "  ETA " + FormatDuration(static_cast<double>(total_ - done) / rate);
    else line += "  " + FormatDuration(seconds);
  }
  return line;
}

}  // namespace hzio
