/// The VTK side of the viewer: one renderer holding the dataset's outline, a volume (GPU ray
/// casting, falling back to VTK's CPU ray caster where the OpenGL driver cannot do it) and three
/// orthogonal slices for 3-D datasets, or one image for 2-D ones. The displayed image is updated
/// in place as finer data arrives. Also turns the VTK camera into the shared planner's matrix
/// (design.md §6). No Qt.
#pragma once

#include <array>
#include <string>

#include <vtkNew.h>
#include <vtkSmartPointer.h>

#include "hzio/format/idx_header.h"
#include "hzio/hz/view_planner.h"
#include "viewer_options.h"

class vtkColorTransferFunction;
class vtkImageData;
class vtkImageSlice;
class vtkPiecewiseFunction;
class vtkPlane;
class vtkRenderer;
class vtkRenderWindow;
class vtkActor;
class vtkFixedPointVolumeRayCastMapper;
class vtkGPUVolumeRayCastMapper;
class vtkVolume;

namespace hzio::viewer {

/// Colour maps offered by the UI, by name.
inline constexpr std::array<const char*, 4> kColormaps{"viridis", "gray", "coolwarm", "hot"};

class Scene {
 public:
  explicit Scene(vtkRenderWindow* window);
  ~Scene();
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  /// Starts showing a dataset: outline, empty image, default camera. `color` = 2-D RGB(A) data.
  void SetDataset(const IdxHeader& header, bool color);
  /// Shows `image` (physic placement from volume_image.h), replacing the current one in place.
  void SetImage(vtkImageData* image);
  bool HasImage() const { return has_image_; }

  void SetRenderMode(RenderMode mode);
  RenderMode render_mode() const { return mode_; }
  void SetColormap(const std::string& name);
  void SetValueRange(double lo, double hi);
  std::array<double, 2> value_range() const { return range_; }
  /// Scales the opacity of the volume (1 = default).
  void SetOpacityScale(double scale);
  /// Positions of the three slices as fractions 0..1 of the dataset's extent.
  void SetSliceFractions(const std::array<double, 3>& fractions);

  void ResetCamera();
  void SetCamera(const CameraSpec& camera);
  /// The camera's physic -> clip matrix for a viewport of width x height pixels, with the near
  /// and far planes around the whole dataset (not just what is loaded).
  Mat4 PlannerMatrix(int width, int height) const;
  /// Near/far planes around the whole dataset; call before rendering.
  void ResetClippingRange();

  /// "gpu" or "cpu" once a volume was rendered, "none" otherwise.
  std::string VolumeMapperName() const;
  vtkRenderer* renderer() const { return renderer_; }

 private:
  void UpdateTransferFunctions();
  void UpdateVisibility();
  /// GPU ray casting where the OpenGL context supports it, else VTK's CPU ray caster.
  void ChooseVolumeMapper();

  vtkRenderWindow* window_;
  vtkNew<vtkRenderer> renderer_;
  vtkNew<vtkImageData> image_;
  vtkNew<vtkColorTransferFunction> colors_;
  vtkNew<vtkPiecewiseFunction> opacity_;
  vtkNew<vtkGPUVolumeRayCastMapper> gpu_mapper_;
  vtkNew<vtkFixedPointVolumeRayCastMapper> cpu_mapper_;
  std::string mapper_name_;            // "gpu" or "cpu" once chosen
  vtkNew<vtkVolume> volume_;
  std::array<vtkSmartPointer<vtkImageSlice>, 3> slices_;
  std::array<vtkSmartPointer<vtkPlane>, 3> planes_;
  vtkSmartPointer<vtkActor> outline_;
  std::array<double, 6> bounds_{};
  std::array<double, 3> slice_fractions_{0.5, 0.5, 0.5};
  std::array<double, 2> range_{0, 1};
  std::string colormap_ = "viridis";
  double opacity_scale_ = 1;
  int dims_ = 3;
  bool color_ = false;
  bool has_image_ = false;
  bool volume_rendered_ = false;
  RenderMode mode_ = RenderMode::kVolume;
};

}  // namespace hzio::viewer
