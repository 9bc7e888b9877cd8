// Tests of the terminal progress bar (reader/src/hzio/util/progress.h): what a redraw shows, that
// a disabled bar (stderr not a terminal) writes nothing, and that updates are throttled.
#include "hzio/util/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace hzio {
namespace {

std::string Contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

TEST(ProgressBar, RenderShowsFractionAmountsRateAndEta) {
  std::FILE* f = std::tmpfile();
  ProgressBar bar("convert", int64_t{4} << 30, ProgressBar::Unit::kBytes, f, false);
  const std::string line = bar.Render(int64_t{1} << 30, 2.0);
  EXPECT_NE(line.find("convert ["), std::string::npos) << line;
  EXPECT_NE(line.find(" 25%"), std::string::npos) << line;
  EXPECT_NE(line.find("1.0 GiB / 4.0 GiB"), std::string::npos) << line;
  EXPECT_NE(line.find("512.0 MiB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 0:06"), std::string::npos) << line;
  ProgressBar count("verify", 10, ProgressBar::Unit::kCount, f, false);
  EXPECT_NE(count.Render(10, 5.0).find("100%  10 / 10"), std::string::npos) << count.Render(10, 5.0);
  std::fclose(f);
}

TEST(ProgressBar, DisabledBarWritesNothing) {
  std::FILE* f = std::tmpfile();
  {
    ProgressBar bar("x", 100, ProgressBar::Unit::kCount, f, false);
    for (int i = 0; i < 100; ++i) bar.Add(1);
    bar.Finish();
  }
  EXPECT_EQ(Contents(f), "");
  std::fclose(f);
}

TEST(ProgressBar, EnabledBarIsThrottledThreadSafeAndEndsTheLine) {
  std::FILE* f = std::tmpfile();
  {
    ProgressBar bar("x", 400000, ProgressBar::Unit::kCount, f, true);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 100000; ++i) bar.Add(1);
      });
    for (std::thread& t : threads) t.join();
  }  // the destructor finishes the bar
  const std::string out = Contents(f);
  size_t redraws = 0;
  for (char c : out) redraws += c == '\r';
  EXPECT_GE(redraws, 2u);    // the first update and the final state
  EXPECT_LT(redraws, 100u);  // not one per update
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out.find("100%  400000 / 400000"), std::string::npos);
  std::fclose(f);
}

}  // namespace
}  // namespace hzio
