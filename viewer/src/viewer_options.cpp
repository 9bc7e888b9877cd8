#include "viewer_options.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "hzio/util/error.h"

namespace hzio::viewer {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, "hzio-viewer: " + message);
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

int64_t ParseInt(const std::string& option, const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) Fail(option + " expects an integer, got '" + text + "'");
  return value;
}

double ParseDouble(const std::string& option, const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(value)) {
    Fail(option + " expects a number, got '" + text + "'");
  }
  return value;
}

CameraSpec ParseCamera(const std::string& text) {
  const auto parts = Split(text, ',');
  if (parts.size() != 9) {
    Fail("--camera expects 9 numbers PX,PY,PZ,FX,FY,FZ,UX,UY,UZ, got '" + text + "'");
  }
  CameraSpec c;
  for (int i = 0; i < 3; ++i) {
    c.position[i] = ParseDouble("--camera", parts[i]);
    c.focal_point[i] = ParseDouble("--camera", parts[3 + i]);
    c.view_up[i] = ParseDouble("--camera", parts[6 + i]);
  }
  double dir2 = 0, up2 = 0;
  for (int i = 0; i < 3; ++i) {
    const double d = c.focal_point[i] - c.position[i];
    dir2 += d * d;
    up2 += c.view_up[i] * c.view_up[i];
  }
  if (dir2 == 0) Fail("--camera: the position and the focal point are the same point");
  if (up2 == 0) Fail("--camera: the view-up vector is zero");
  return c;
}

}  // namespace

ViewerOptions ParseViewerOptions(const std::vector<std::string>& args) {
  ViewerOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) Fail(a + " needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--field") {
      o.field = value();
      if (o.field.empty()) Fail("--field needs a non-empty name");
    } else if (a == "--time") {
      o.time = ParseInt(a, value());
    } else if (a == "--level") {
      const int64_t h = ParseInt(a, value());
      if (h < 0 || h > 62) Fail("--level must be between 0 and 62, got " + std::to_string(h));
      o.level = static_cast<int>(h);
    } else if (a == "--size") {
      const std::string& text = value();
      const auto x = text.find('x');
      if (x == std::string::npos) Fail("--size expects WxH, got '" + text + "'");
      const int64_t w = ParseInt(a, text.substr(0, x)), h = ParseInt(a, text.substr(x + 1));
      if (w < 16 || h < 16 || w > 16384 || h > 16384) {
        Fail("--size: width and height must be between 16 and 16384, got '" + text + "'");
      }
      o.width = static_cast<int>(w);
      o.height = static_cast<int>(h);
      o.size_given = true;
    } else if (a == "--camera") {
      o.camera = ParseCamera(value());
    } else if (a == "--screenshot") {
      o.screenshot = value();
      if (o.screenshot.empty()) Fail("--screenshot needs a file name");
    } else if (a == "--stats") {
      o.stats = true;
    } else if (a == "--render") {
      const std::string& mode = value();
      if (mode == "volume") o.render = RenderMode::kVolume;
      else if (mode == "slices") o.render = RenderMode::kSlices;
      else if (mode == "both") o.render = RenderMode::kBoth;
      else Fail("--render expects volume, slices or both, got '" + mode + "'");
    } else if (a == "--no-clip") {
      o.no_clip = true;
    } else if (a == "--max-samples") {
      o.max_samples = ParseInt(a, value());
      if (o.max_samples < 4096) Fail("--max-samples must be at least 4096");
    } else if (!a.empty() && a[0] == '-') {
      Fail("unknown option '" + a + "' (see --help)");
    } else if (o.dataset.empty()) {
      o.dataset = a;
    } else {
      Fail("more than one dataset given: '" + o.dataset + "' and '" + a + "'");
    }
  }
  if (IsScripted(o) && o.dataset.empty() && !o.help) Fail("--screenshot and --stats need a DATASET");
  return o;
}

std::string ViewerUsage() {
  return "usage: hzio-viewer [DATASET] [--field NAME] [--time T] [--level H] [--size WxH]\n"
         "                   [--camera PX,PY,PZ,FX,FY,FZ,UX,UY,UZ] [--screenshot OUT.png] [--stats]\n"
         "                   [--render volume|slices|both] [--max-samples N] [--no-clip]\n"
         "DATASET is a .idx path or http://HOST:PORT/mod_visus?dataset=NAME.\n"
         "--screenshot/--stats: render, wait for the final level, save the PNG / print JSON, exit.\n"
         "--level H fixes the level (default: one sample per pixel, from the view).\n"
         "--max-samples N caps the samples of a planned load (default 16777216).\n"
         "--no-clip loads the whole dataset box instead of the part inside the view frustum.\n";
}

}  // namespace hzio::viewer
