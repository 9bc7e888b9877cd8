// The multiresolution driver: builds the avtMultiresSelection VisIt's engine would send for a few
// cameras (vtkCamera's composite projection, as avtView2D/avtView3D compute it), hands it to the IDX
// reader through RegisterDataSelections, and checks the box and level it picks, the mesh it builds,
// the values it returns (against hzio::core reading the same box and level directly) and the
// actual extents / cell size written back into the selection.
//
//   idx_multires_driver PLANE.idx CUBE.idx
// PLANE.idx: a 512 x 512 dataset, CUBE.idx: a 64^3 dataset (default bitmasks, physic box = logic
// box, a scalar first field). Prints one line per camera and exits non-zero on any mismatch.
#include <avtIDXFileFormat.h>
#include <avtMultiresSelection.h>

#include <vtkCamera.h>
#include <vtkDataArray.h>
#include <vtkMatrix4x4.h>
#include <vtkRectilinearGrid.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"

namespace {

int failures = 0;

void Expect(bool ok, const std::string &what)
{
    if (!ok)
    {
        ++failures;
        std::cout << "    FAIL: " << what << std::endl;
    }
}

struct Camera
{
    bool parallel = false;
    double position[3], focal[3], up[3];
    double parallel_scale = 1;  // half the window height in world units (parallel)
    double view_angle = 30;     // vertical field of view in degrees (perspective)
    double near_plane = 0.5, far_plane = 1000;
    int width = 512, height = 512;
};

// The composite projection transform of the camera, row-major, as VisIt's engine computes it
// (vtkCamera::GetCompositeProjectionTransformMatrix(aspect, -1, 1)).
void Transform(const Camera &c, double out[16])
{
    vtkCamera *cam = vtkCamera::New();
    cam->SetPosition(c.position[0], c.position[1], c.position[2]);
    cam->SetFocalPoint(c.focal[0], c.focal[1], c.focal[2]);
    cam->SetViewUp(c.up[0], c.up[1], c.up[2]);
    cam->SetParallelProjection(c.parallel);
    cam->SetParallelScale(c.parallel_scale);
    cam->SetViewAngle(c.view_angle);
    cam->SetClippingRange(c.near_plane, c.far_plane);
    vtkMatrix4x4::DeepCopy(out, cam->GetCompositeProjectionTransformMatrix(double(c.width) / c.height, -1, 1));
    cam->Delete();
}

// World AABB of the frustum and the area of its middle plane: the desired extents and view area.
void ExtentsAndArea(const double m[16], double extents[6], double &area)
{
    double inv[16];
    vtkMatrix4x4::Invert(m, inv);
    for (int i = 0; i < 3; ++i)
    {
        extents[2 * i] = DBL_MAX;
        extents[2 * i + 1] = -DBL_MAX;
    }
    double mid[4][3];
    int k = 0;
    for (double z : {-1.0, 1.0, 0.0})
        for (double y : {-1.0, 1.0})
            for (double x : {-1.0, 1.0})
            {
                double p[4] = {x, y, z, 1}, w[4];
                vtkMatrix4x4::MultiplyPoint(inv, p, w);
                for (int i = 0; i < 3; ++i)
                {
                    const double v = w[i] / w[3];
                    if (z != 0)
                    {
                        extents[2 * i] = std::min(extents[2 * i], v);
                        extents[2 * i + 1] = std::max(extents[2 * i + 1], v);
                    }
                    else
                        mid[k][i] = v;
                }
                if (z == 0) ++k;
            }
    // Corners 0 (-1,-1), 1 (1,-1), 2 (-1,1): the plane is a parallelogram.
    double a[3], b[3];
    for (int i = 0; i < 3; ++i)
    {
        a[i] = mid[1][i] - mid[0][i];
        b[i] = mid[2][i] - mid[0][i];
    }
    const double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
    area = std::sqrt(cx * cx + cy * cy + cz * cz);
}

struct Case
{
    std::string name;
    std::string dataset;
    Camera camera;
    double cell_area;
    hzio::Box box;  // expected
    int level;      // expected
    bool visible = true;
};

void Run(const Case &c)
{
    std::cout << c.name << std::endl;
    avtIDXFileFormat reader(c.dataset.c_str(), nullptr);

    double transform[16], extents[6], area;
    Transform(c.camera, transform);
    ExtentsAndArea(transform, extents, area);
    avtMultiresSelection *sel = new avtMultiresSelection;
    sel->SetCompositeProjectionTransformMatrix(transform);
    const double viewport[6] = {0, 1, 0, 1, 0, 1};
    sel->SetViewport(viewport);
    const int size[2] = {c.camera.width, c.camera.height};
    sel->SetSize(size);
    sel->SetViewArea(area);
    sel->SetDesiredExtents(extents);
    sel->SetDesiredCellArea(c.cell_area);
    std::vector<avtDataSelection_p> sels{avtDataSelection_p(sel)};
    std::vector<bool> applied(1, false);
    reader.RegisterDataSelections(sels, &applied);
    Expect(applied[0], "the reader applies the multires selection");

    const hzio::VisitSelectionPlan &plan = reader.CurrentPlan();
    std::cout << "  box " << plan.box.ToRangesString() << " level " << plan.level << " (expected "
              << c.box.ToRangesString() << " level " << c.level << ")" << std::endl;
    Expect(plan.box == c.box, "box");
    Expect(plan.level == c.level, "level");
    Expect(plan.visible == c.visible, "visibility");

    // The mesh spans the box at the level's cells; the values are hzio's for the same query.
    auto direct = hzio::OpenDataset(c.dataset);
    hzio::BoxQuery q;
    q.box = c.box;
    q.level = c.level;
    const hzio::BoxResult expected = direct->Read(q);
    vtkRectilinearGrid *mesh = vtkRectilinearGrid::SafeDownCast(reader.GetMesh(0, 0, "mesh"));
    Expect(mesh != nullptr, "a rectilinear mesh");
    if (mesh)
    {
        int dims[3];
        mesh->GetDimensions(dims);
        for (int d = 0; d < c.box.dims(); ++d)
            Expect(dims[d] == expected.grid.count[d] + 1,
                   "mesh nodes on axis " + std::to_string(d) + ": " + std::to_string(dims[d]));
        double bounds[6];
        mesh->GetBounds(bounds);
        for (int d = 0; d < c.box.dims(); ++d)
        {
            Expect(bounds[2 * d] == double(expected.grid.origin[d]), "mesh lower bound axis " + std::to_string(d));
            Expect(bounds[2 * d + 1] == double(c.box.p2[d]), "mesh upper bound axis " + std::to_string(d));
        }
        std::cout << "  mesh " << dims[0] << "x" << dims[1] << "x" << dims[2] << " nodes, bounds [" << bounds[0]
                  << "," << bounds[1] << "]x[" << bounds[2] << "," << bounds[3] << "]x[" << bounds[4] << ","
                  << bounds[5] << "]" << std::endl;
        mesh->Delete();
    }
    const std::string field = direct->header().fields[0].name;
    vtkDataArray *values = reader.GetVar(0, 0, field.c_str());
    Expect(values != nullptr && values->GetNumberOfTuples() == expected.grid.NumSamples(), "value count");
    if (values)
    {
        Expect(std::memcmp(values->GetVoidPointer(0), expected.data.data(),
                           static_cast<size_t>(expected.data.ByteSize())) == 0,
               "values equal hzio's read of the same box and level");
        values->Delete();
    }

    double actual[6];
    sel->GetActualExtents(actual);
    std::cout << "  actual extents";
    for (double v : actual) std::cout << " " << (v == DBL_MAX ? "+max" : v == -DBL_MAX ? "-max" : std::to_string(v));
    std::cout << ", cell " << sel->GetActualCellArea() << std::endl;
    for (int d = 0; d < c.box.dims(); ++d)
    {
        const bool at_lo = c.box.p1[d] == direct->header().box.p1[d];
        const bool at_hi = c.box.p2[d] == direct->header().box.p2[d];
        Expect(actual[2 * d] == (at_lo ? -DBL_MAX : double(c.box.p1[d])), "actual lower extent axis " + std::to_string(d));
        Expect(actual[2 * d + 1] == (at_hi ? DBL_MAX : double(c.box.p2[d])), "actual upper extent axis " + std::to_string(d));
    }
}

Camera TopDown2D(double x0, double x1, double y0, double y1, int w, int h)
{
    Camera c;
    c.parallel = true;
    const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    c.position[0] = cx; c.position[1] = cy; c.position[2] = 1;
    c.focal[0] = cx; c.focal[1] = cy; c.focal[2] = 0;
    c.up[0] = 0; c.up[1] = 1; c.up[2] = 0;
    c.parallel_scale = (y1 - y0) / 2;
    c.near_plane = 0.5;
    c.far_plane = 1.5;
    c.width = w;
    c.height = h;
    return c;
}

Camera Perspective3D(const double eye[3], const double focal[3], double fovy, int w, int h)
{
    Camera c;
    for (int i = 0; i < 3; ++i)
    {
        c.position[i] = eye[i];
        c.focal[i] = focal[i];
    }
    c.up[0] = 0; c.up[1] = 1; c.up[2] = 0;
    c.view_angle = fovy;
    c.near_plane = 1;
    c.far_plane = 1000;
    c.width = w;
    c.height = h;
    return c;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 3)
    {
        std::cerr << "usage: " << argv[0] << " PLANE.idx(512x512) CUBE.idx(64^3)" << std::endl;
        return 2;
    }
    const std::string plane = argv[1], cube = argv[2];
    const double above[3] = {32, 32, 96}, centre[3] = {32, 32, 0};
    const double away_eye[3] = {32, 32, 200}, away_focal[3] = {32, 32, 400};
    const double column_eye[3] = {16, 16, 80}, column_focal[3] = {16, 16, 0};
    // Expected boxes and levels, worked out by hand (bitmasks V0101.. for 512^2, V012.. for 64^3):
    const std::vector<Case> cases = {
        // Whole plane on 512 px with VisIt's default cell size 0.002 (1.024 px): every sample.
        {"2-D, whole dataset, 512 px, default cell size", plane, TopDown2D(0, 512, 0, 512, 512, 512), 0.002,
         hzio::Box({0, 0}, {512, 512}), 18},
        // Zoom onto [128,256]x[0,128]: only that part, at full resolution.
        {"2-D, zoom on [128,256]x[0,128]", plane, TopDown2D(128, 256, 0, 128, 512, 512), 1.0 / 512,
         hzio::Box({128, 0}, {256, 128}), 18},
        // Whole plane on 128 px with cells of 1/32 of the view (4 px, 16 samples): stride 16 per
        // axis, 8 bitmask positions fewer.
        {"2-D, whole dataset, 128 px, cells of 1/32", plane, TopDown2D(0, 512, 0, 512, 128, 128), 1.0 / 32,
         hzio::Box({0, 0}, {512, 512}), 10},
        // The window shows [101,301]x[38,238] on 128 px (0.64 px per sample); cells of 1/32 allow
        // 4 px: stride 4 per axis (level 14), the box widened to the stride-4 grid.
        {"2-D, off-grid zoom, 128 px, cells of 1/32", plane, TopDown2D(101, 301, 38, 238, 128, 128), 1.0 / 32,
         hzio::Box({100, 36}, {304, 240}), 14},
        // A 20-degree camera at (16,16,80) looking straight down: its frustum meets z = 0 in
        // [16 -+ 80 tan 10deg] = [1.89, 30.11] and the top face in [13.2, 18.8]: x, y cells 1..30,
        // every z; 11.3 px per sample at the top face -> full resolution.
        {"3-D, narrow perspective onto a corner column", cube, Perspective3D(column_eye, column_focal, 20, 64, 64),
         1.0 / 64, hzio::Box({1, 1, 0}, {31, 31, 64}), 18},
        // 90-degree camera 32 above the cube's top face, 64 px: z steps at the top corners move
        // 1.41 px, so full resolution.
        {"3-D, perspective above the cube, 1 px cells", cube, Perspective3D(above, centre, 90, 64, 64), 1.0 / 64,
         hzio::Box({0, 0, 0}, {64, 64, 64}), 18},
        // Same camera, cells of 4/64 of the view (4 px): z allows stride 2 only -> level 15.
        {"3-D, perspective above the cube, 4 px cells", cube, Perspective3D(above, centre, 90, 64, 64), 4.0 / 64,
         hzio::Box({0, 0, 0}, {64, 64, 64}), 15},
        // Looking away from the cube: nothing visible, the single level-0 sample.
        {"3-D, camera looking away", cube, Perspective3D(away_eye, away_focal, 60, 64, 64), 1.0 / 64,
         hzio::Box({0, 0, 0}, {64, 64, 64}), 0, false},
    };
    for (const Case &c : cases) Run(c);
    std::cout << (failures == 0 ? "ALL CAMERAS OK" : std::to_string(failures) + " FAILURES") << std::endl;
    return failures == 0 ? 0 : 1;
}
