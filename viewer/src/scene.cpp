#include "scene.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkColorTransferFunction.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageResliceMapper.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkMatrix4x4.h>
#include <vtkOutlineSource.h>
#include <vtkPiecewiseFunction.h>
#include <vtkPlane.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkFixedPointVolumeRayCastMapper.h>
#include <vtkGPUVolumeRayCastMapper.h>
#include <vtkVolume.h>
#include <vtkVolumeProperty.h>

namespace hzio::viewer {
namespace {

struct ColorStop {
  double t, r, g, b;
};

std::vector<ColorStop> ColormapStops(const std::string& name) {
  if (name == "gray") return {{0, 0, 0, 0}, {1, 1, 1, 1}};
  if (name == "coolwarm") return {{0, 0.230, 0.299, 0.754}, {0.5, 0.865, 0.865, 0.865}, {1, 0.706, 0.016, 0.150}};
  if (name == "hot") return {{0, 0, 0, 0}, {0.4, 0.9, 0, 0}, {0.8, 1, 0.9, 0}, {1, 1, 1, 1}};
  return {{0, 0.267, 0.005, 0.329}, {0.25, 0.229, 0.322, 0.546}, {0.5, 0.128, 0.567, 0.551},
          {0.75, 0.369, 0.789, 0.383}, {1, 0.993, 0.906, 0.144}};  // viridis
}

}  // namespace

Scene::Scene(vtkRenderWindow* window) : window_(window) {
  window_->AddRenderer(renderer_);
  renderer_->SetBackground(0.08, 0.09, 0.11);

  vtkVolumeProperty* vp = volume_->GetProperty();
  vp->SetColor(colors_);
  vp->SetScalarOpacity(opacity_);
  vp->SetInterpolationTypeToLinear();
  vp->ShadeOff();
  // Sample distances are set explicitly per image (SetImage), never adapted to frame rates, so a
  // screenshot does not depend on how fast the machine is.
  gpu_mapper_->SetInputData(image_);
  gpu_mapper_->SetBlendModeToComposite();
  gpu_mapper_->SetAutoAdjustSampleDistances(0);
  gpu_mapper_->SetLockSampleDistanceToInputSpacing(0);
  cpu_mapper_->SetInputData(image_);
  cpu_mapper_->SetBlendModeToComposite();
  cpu_mapper_->SetAutoAdjustSampleDistances(0);
  cpu_mapper_->SetImageSampleDistance(1);
  volume_->VisibilityOff();
  renderer_->AddVolume(volume_);
}

Scene::~Scene() = default;

void Scene::SetDataset(const IdxHeader& header, bool color) {
  for (auto& s : slices_) {
    if (s) renderer_->RemoveViewProp(s);
    s = nullptr;
  }
  if (outline_) renderer_->RemoveActor(outline_);
  dims_ = header.dims();
  color_ = color;
  has_image_ = false;
  image_->Initialize();
  const std::vector<double> p = header.PhysicBoxOrLogic();
  bounds_ = {0, 0, 0, 0, 0, 0};
  for (int d = 0; d < std::min(dims_, 3); ++d) {
    bounds_[2 * d] = p[2 * d];
    bounds_[2 * d + 1] = p[2 * d + 1];
  }
  // Opacity is per 1/64 of the largest extent, so the look does not depend on the level shown.
  double extent = 0;
  for (int d = 0; d < 3; ++d) extent = std::max(extent, bounds_[2 * d + 1] - bounds_[2 * d]);
  volume_->GetProperty()->SetScalarOpacityUnitDistance(extent / 64);

  vtkNew<vtkOutlineSource> box;
  box->SetBounds(bounds_.data());
  vtkNew<vtkPolyDataMapper> outline_mapper;
  outline_mapper->SetInputConnection(box->GetOutputPort());
  outline_ = vtkSmartPointer<vtkActor>::New();
  outline_->SetMapper(outline_mapper);
  outline_->GetProperty()->SetColor(0.55, 0.58, 0.62);
  renderer_->AddActor(outline_);

  const int slice_count = dims_ == 3 ? 3 : 1;
  for (int i = 0; i < slice_count; ++i) {
    auto slice = vtkSmartPointer<vtkImageSlice>::New();
    if (dims_ == 3) {
      auto plane = vtkSmartPointer<vtkPlane>::New();
      double normal[3] = {0, 0, 0};
      normal[i] = 1;
      plane->SetNormal(normal);
      planes_[i] = plane;
      vtkNew<vtkImageResliceMapper> mapper;
      mapper->SetInputData(image_);
      mapper->SetSlicePlane(plane);
      slice->SetMapper(mapper);
    } else {
      vtkNew<vtkImageSliceMapper> mapper;
      mapper->SetInputData(image_);
      mapper->SetOrientationToZ();
      slice->SetMapper(mapper);
    }
    vtkImageProperty* ip = slice->GetProperty();
    ip->SetInterpolationTypeToLinear();
    if (color_) {
      ip->SetColorWindow(255);
      ip->SetColorLevel(127.5);
    } else {
      ip->SetLookupTable(colors_);
      ip->UseLookupTableScalarRangeOn();
    }
    slice->VisibilityOff();
    slices_[i] = slice;
    renderer_->AddViewProp(slice);
  }
  SetSliceFractions(slice_fractions_);
  UpdateTransferFunctions();
  ResetCamera();
}

void Scene::SetImage(vtkImageData* image) {
  image_->ShallowCopy(image);
  image_->Modified();
  has_image_ = true;
  // One ray sample per displayed sample spacing: the planner keeps that spacing near a pixel, and
  // finer steps cost software OpenGL seconds per frame for no visible change (PSNR tests).
  const double* spacing = image_->GetSpacing();
  double finest = spacing[0];
  for (int d = 1; d < std::min(dims_, 3); ++d) finest = std::min(finest, spacing[d]);
  gpu_mapper_->SetSampleDistance(static_cast<float>(finest));
  cpu_mapper_->SetSampleDistance(static_cast<float>(finest));
  cpu_mapper_->SetInteractiveSampleDistance(static_cast<float>(2 * finest));
  if (mapper_name_.empty()) ChooseVolumeMapper();
  UpdateVisibility();
}

void Scene::ChooseVolumeMapper() {
  // HZIO_VIEWER_VOLUME=cpu|gpu forces a ray caster (tests, broken drivers).
  const char* forced = std::getenv("HZIO_VIEWER_VOLUME");
  const std::string choice = forced ? forced : "";
  bool gpu = choice != "cpu";
  if (gpu && choice != "gpu") gpu = gpu_mapper_->IsRenderSupported(window_, volume_->GetProperty()) != 0;
  mapper_name_ = gpu ? "gpu" : "cpu";
  if (gpu) volume_->SetMapper(gpu_mapper_);
  else volume_->SetMapper(cpu_mapper_);
}

void Scene::SetRenderMode(RenderMode mode) {
  mode_ = mode;
  UpdateVisibility();
}

void Scene::UpdateVisibility() {
  const bool volume = has_image_ && dims_ == 3 && !color_ && mode_ != RenderMode::kSlices;
  const bool slices = has_image_ && (dims_ != 3 || mode_ != RenderMode::kVolume);
  volume_->SetVisibility(volume);
  for (auto& s : slices_) {
    if (s) s->SetVisibility(slices);
  }
  if (volume) volume_rendered_ = true;
}

void Scene::SetColormap(const std::string& name) {
  colormap_ = name;
  UpdateTransferFunctions();
}

void Scene::SetValueRange(double lo, double hi) {
  if (!(hi > lo)) hi = lo + 1;
  range_ = {lo, hi};
  UpdateTransferFunctions();
}

void Scene::SetOpacityScale(double scale) {
  opacity_scale_ = std::max(0.0, scale);
  UpdateTransferFunctions();
}

void Scene::UpdateTransferFunctions() {
  const double lo = range_[0], hi = range_[1], span = hi - lo;
  colors_->RemoveAllPoints();
  for (const ColorStop& s : ColormapStops(colormap_)) colors_->AddRGBPoint(lo + s.t * span, s.r, s.g, s.b);
  // Low values transparent, opacity rising towards the top of the range.
  opacity_->RemoveAllPoints();
  opacity_->AddPoint(lo, 0);
  opacity_->AddPoint(lo + 0.35 * span, 0);
  opacity_->AddPoint(lo + 0.7 * span, std::min(1.0, 0.08 * opacity_scale_));
  opacity_->AddPoint(hi, std::min(1.0, 0.5 * opacity_scale_));
}

void Scene::SetSliceFractions(const std::array<double, 3>& fractions) {
  slice_fractions_ = fractions;
  for (int d = 0; d < 3; ++d) {
    if (!planes_[d]) continue;
    double origin[3] = {(bounds_[0] + bounds_[1]) / 2, (bounds_[2] + bounds_[3]) / 2, (bounds_[4] + bounds_[5]) / 2};
    origin[d] = bounds_[2 * d] + std::clamp(fractions[d], 0.0, 1.0) * (bounds_[2 * d + 1] - bounds_[2 * d]);
    planes_[d]->SetOrigin(origin);
  }
}

void Scene::ResetCamera() {
  vtkCamera* camera = renderer_->GetActiveCamera();
  const double center[3] = {(bounds_[0] + bounds_[1]) / 2, (bounds_[2] + bounds_[3]) / 2, (bounds_[4] + bounds_[5]) / 2};
  camera->SetFocalPoint(center);
  if (dims_ == 3) {
    camera->SetPosition(center[0] + 1.0, center[1] - 1.3, center[2] + 0.8);
    camera->SetViewUp(0, 0, 1);
  } else {
    camera->SetPosition(center[0], center[1], center[2] + 1.0);
    camera->SetViewUp(0, 1, 0);
  }
  renderer_->ResetCamera(bounds_.data());
  ResetClippingRange();
}

void Scene::SetCamera(const CameraSpec& c) {
  vtkCamera* camera = renderer_->GetActiveCamera();
  camera->SetPosition(c.position.data());
  camera->SetFocalPoint(c.focal_point.data());
  camera->SetViewUp(c.view_up.data());
  camera->OrthogonalizeViewUp();
  ResetClippingRange();
}

namespace {

// Near and far distances enclosing `bounds` as seen from `camera` (near kept positive).
std::array<double, 2> ClippingRangeAround(vtkCamera* camera, const std::array<double, 6>& bounds) {
  double pos[3], dir[3];
  camera->GetPosition(pos);
  camera->GetDirectionOfProjection(dir);
  double near_d = 1e300, far_d = -1e300;
  for (int corner = 0; corner < 8; ++corner) {
    double dist = 0;
    for (int d = 0; d < 3; ++d) dist += (bounds[2 * d + ((corner >> d) & 1)] - pos[d]) * dir[d];
    near_d = std::min(near_d, dist);
    far_d = std::max(far_d, dist);
  }
  far_d = std::max(far_d * 1.01, 1e-6);
  near_d = std::max(near_d * 0.99, far_d * 1e-4);
  return {near_d, far_d};
}

}  // namespace

void Scene::ResetClippingRange() {
  vtkCamera* camera = renderer_->GetActiveCamera();
  const auto range = ClippingRangeAround(camera, bounds_);
  camera->SetClippingRange(range[0], range[1]);
}

Mat4 Scene::PlannerMatrix(int width, int height) const {
  vtkNew<vtkCamera> camera;
  camera->DeepCopy(renderer_->GetActiveCamera());
  const auto range = ClippingRangeAround(camera, bounds_);
  camera->SetClippingRange(range[0], range[1]);
  vtkMatrix4x4* m = camera->GetCompositeProjectionTransformMatrix(static_cast<double>(width) / height, -1, 1);
  Mat4 out{};
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) out[4 * r + c] = m->GetElement(r, c);
  }
  return out;
}

std::string Scene::VolumeMapperName() const {
  return volume_rendered_ && !mapper_name_.empty() ? mapper_name_ : "none";
}

}  // namespace hzio::viewer
