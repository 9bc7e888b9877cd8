/// Command-line options of `hzio-viewer` (design.md §3, "Desktop viewer"): the dataset and what to
/// show first, plus the scripted mode (`--screenshot`, `--stats`) that tests and benchmarks use.
/// Pure parsing, no Qt: bad input throws hzio::Error(kInvalidArgument) naming the option.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hzio::viewer {

/// A camera in physic coordinates: position, focal point, view-up.
struct CameraSpec {
  std::array<double, 3> position{}, focal_point{}, view_up{};
};

/// What to draw for 3-D datasets (2-D datasets are always drawn as one image).
enum class RenderMode { kVolume, kSlices, kBoth };

struct ViewerOptions {
  std::string dataset;                 // .idx path or mod_visus URL; "" = start empty
  std::string field;                   // "" = the dataset's first field
  std::optional<int64_t> time;         // nullopt = the dataset's default timestep
  std::optional<int> level;            // nullopt = planned from the view
  int width = 800, height = 600;       // render view size in pixels (--size)
  bool size_given = false;
  std::optional<CameraSpec> camera;
  std::string screenshot;              // PNG path; non-empty = scripted run
  bool stats = false;                  // print the stats JSON when the final image is shown
  RenderMode render = RenderMode::kVolume;
  int64_t max_samples = int64_t{1} << 24;  // budget per planned load (samples)
  bool no_clip = false;                // load the whole dataset box, not just the visible part
  bool help = false;
};

/// Parses the arguments after the program name. Throws hzio::Error(kInvalidArgument).
ViewerOptions ParseViewerOptions(const std::vector<std::string>& args);

/// The --help text.
std::string ViewerUsage();

/// Whether the options ask for a scripted run (render, wait for the final level, exit).
inline bool IsScripted(const ViewerOptions& o) { return !o.screenshot.empty() || o.stats; }

}  // namespace hzio::viewer
