#include <avtIDXFileFormat.h>

#include <algorithm>
#include <cstring>
#include <string>

#include <vtkDataArray.h>
#include <vtkDoubleArray.h>
#include <vtkRectilinearGrid.h>

#include <DBOptionsAttributes.h>
#include <DebugStream.h>
#include <InvalidFilesException.h>
#include <InvalidVariableException.h>
#include <avtDatabaseMetaData.h>
#include <avtMultiresSelection.h>
#include <avtParallel.h>
#include <avtResolutionSelection.h>

#include <IDXDescriptor.h>
#include <avtIDXOptions.h>

#include "hzio/util/error.h"

namespace {

const char *const kMeshName = "mesh";

// The VTK array type holding one component of `dtype`; throws for types VTK has no array for.
int VtkTypeOf(const hzio::DType &dtype)
{
    using Kind = hzio::DType::Kind;
    switch (dtype.kind())
    {
      case Kind::kFloat:
        if (dtype.bits() == 32) return VTK_FLOAT;
        if (dtype.bits() == 64) return VTK_DOUBLE;
        break;
      case Kind::kSigned:
        if (dtype.bits() == 8) return VTK_SIGNED_CHAR;
        if (dtype.bits() == 16) return VTK_SHORT;
        if (dtype.bits() == 32) return VTK_INT;
        if (dtype.bits() == 64) return VTK_LONG_LONG;
        break;
      case Kind::kUnsigned:
        if (dtype.bits() == 8) return VTK_UNSIGNED_CHAR;
        if (dtype.bits() == 16) return VTK_UNSIGNED_SHORT;
        if (dtype.bits() == 32) return VTK_UNSIGNED_INT;
        if (dtype.bits() == 64) return VTK_UNSIGNED_LONG_LONG;
        break;
    }
    throw hzio::Error(hzio::ErrorCode::kUnsupported,
                      "dtype " + dtype.ToString() + " has no VTK array type");
}

std::string ComponentVarName(const std::string &field, int c) { return field + "_c" + std::to_string(c); }

// Physic coordinate of continuous logic coordinate u on axis d (idx-format.md §1.2; sample i
// covers [i, i+1), so the physic box spans the logic box's p1..p2).
double Physic(const hzio::IdxHeader &h, const std::vector<double> &physic, int d, double u)
{
    const double l1 = static_cast<double>(h.box.p1[d]);
    const double lsize = static_cast<double>(h.box.p2[d] - h.box.p1[d]);
    return physic[2 * d] + (u - l1) * (physic[2 * d + 1] - physic[2 * d]) / lsize;
}

}  // namespace

// Everything hzio throws reaches VisIt as an exception naming the dataset and the reason.
#define IDX_TRY try {
#define IDX_CATCH                                                                   \
    }                                                                               \
    catch (const hzio::Error &e)                                                    \
    {                                                                               \
        EXCEPTION2(InvalidFilesException, std::string(filename), std::string(e.what())); \
    }

avtIDXFileFormat::avtIDXFileFormat(const char *name, const DBOptionsAttributes *options)
    : avtMTMDFileFormat(name)
{
    if (options != nullptr)
    {
        if (options->FindIndex(kIDXOptionLevel) >= 0) optionLevel_ = options->GetInt(kIDXOptionLevel);
        if (options->FindIndex(kIDXOptionBox) >= 0) optionBox_ = options->GetString(kIDXOptionBox);
        if (options->FindIndex(kIDXOptionMaxSamples) >= 0)
            optionMaxSamples_ = std::max(1, options->GetInt(kIDXOptionMaxSamples));
    }
}

avtIDXFileFormat::~avtIDXFileFormat() = default;

void avtIDXFileFormat::FreeUpResources(void)
{
    // The dataset keeps only its header and open file handles; the plan must survive between
    // RegisterDataSelections and the reads, so nothing is dropped here.
}

hzio::Dataset &avtIDXFileFormat::Open()
{
    if (dataset_) return *dataset_;
    IDX_TRY
        source_ = ResolveIdxSource(filename);
        std::shared_ptr<hzio::Dataset> opened = hzio::OpenDataset(source_);
        const int dims = opened->header().dims();
        hzio::Check(dims == 2 || dims == 3, hzio::ErrorCode::kUnsupported,
                    source_ + ": the VisIt plugin reads 2-D and 3-D datasets, this one has " +
                        std::to_string(dims) + " axes");
        const auto &time = opened->header().time;
        times_ = opened->header().has_time ? time.List() : std::vector<int64_t>{time.Default()};
        dataset_ = std::move(opened);
        debug1 << "IDX: opened " << source_ << " (" << times_.size() << " timesteps, maxh "
               << dataset_->header().maxh() << ")" << endl;
    IDX_CATCH
    return *dataset_;
}

hzio::PlannerDataset avtIDXFileFormat::PlannerInput()
{
    const hzio::IdxHeader &h = Open().header();
    return hzio::PlannerDataset{h.box, h.PhysicBoxOrLogic(), h.bitmask};
}

int64_t avtIDXFileFormat::TimeAt(int timestate)
{
    Open();
    if (timestate < 0 || static_cast<size_t>(timestate) >= times_.size())
        EXCEPTION2(InvalidFilesException, std::string(filename),
                   "timestate " + std::to_string(timestate) + " is outside 0.." + std::to_string(times_.size() - 1));
    return times_[static_cast<size_t>(timestate)];
}

int avtIDXFileFormat::GetNTimesteps(void)
{
    Open();
    return static_cast<int>(times_.size());
}

void avtIDXFileFormat::GetCycles(std::vector<int> &cycles)
{
    Open();
    cycles.assign(times_.begin(), times_.end());
}

void avtIDXFileFormat::GetTimes(std::vector<double> &times)
{
    Open();
    times.assign(times_.begin(), times_.end());
}

void avtIDXFileFormat::PopulateDatabaseMetaData(avtDatabaseMetaData *md, int)
{
    const hzio::IdxHeader &h = Open().header();
    const std::vector<double> physic = h.PhysicBoxOrLogic();
    const int dims = h.dims();

    avtMeshMetaData *mesh = new avtMeshMetaData;
    mesh->name = kMeshName;
    mesh->meshType = AVT_RECTILINEAR_MESH;
    mesh->numBlocks = 1;  // the format decomposes itself across ranks (see the header)
    mesh->blockOrigin = 0;
    mesh->spatialDimension = dims;
    mesh->topologicalDimension = dims;
    mesh->hasSpatialExtents = true;
    mesh->hasLogicalBounds = true;
    for (int d = 0; d < 3; ++d)
    {
        mesh->minSpatialExtents[d] = d < dims ? physic[2 * d] : 0;
        mesh->maxSpatialExtents[d] = d < dims ? physic[2 * d + 1] : 0;
        mesh->logicalBounds[d] = d < dims ? static_cast<int>(h.box.p2[d] - h.box.p1[d]) : 1;
    }
    mesh->LODs = h.maxh();
    md->Add(mesh);

    for (const hzio::Field &f : h.fields)
    {
        const int n = f.dtype.components();
        if (n == 1)
            AddScalarVarToMetaData(md, f.name, kMeshName, AVT_ZONECENT);
        else if (n <= 3)
            AddVectorVarToMetaData(md, f.name, kMeshName, AVT_ZONECENT, 3);
        else
            for (int c = 0; c < n; ++c) AddScalarVarToMetaData(md, ComponentVarName(f.name, c), kMeshName, AVT_ZONECENT);
    }

    md->SetFormatCanDoDomainDecomposition(true);
    md->SetFormatCanDoMultires(true);
    std::vector<int> cycles(times_.begin(), times_.end());
    std::vector<double> times(times_.begin(), times_.end());
    md->SetCycles(cycles);
    md->SetCyclesAreAccurate(true);
    md->SetTimes(times);
    md->SetTimesAreAccurate(true);
}

void avtIDXFileFormat::PlanFromOptions()
{
    IDX_TRY
        const hzio::PlannerDataset ds = PlannerInput();
        std::optional<hzio::Box> box;
        if (!optionBox_.empty()) box = hzio::Box::ParseRanges(optionBox_);
        int level = optionLevel_;
        if (level < 0) level = hzio::LevelForSampleBudget(ds.bitmask, box.value_or(ds.logic_box), optionMaxSamples_);
        plan_ = hzio::PlanFixedLevel(ds, level, box, hzio::FixedBox::kAsGiven);
    IDX_CATCH
}

void avtIDXFileFormat::PlanFromMultires(avtMultiresSelection *selection)
{
    IDX_TRY
        const hzio::PlannerDataset ds = PlannerInput();
        hzio::VisitMultiresValues v;
        selection->GetCompositeProjectionTransformMatrix(v.transform.data());
        selection->GetViewport(v.viewport.data());
        int size[2] = {0, 0};
        selection->GetSize(size);
        v.window_width = size[0];
        v.window_height = size[1];
        v.view_area = selection->GetViewArea();
        selection->GetDesiredExtents(v.desired_extents.data());
        v.desired_cell_area = selection->GetDesiredCellArea();
        const int fallback = optionLevel_ >= 0 ? std::min(optionLevel_, ds.bitmask.maxh())
                                               : hzio::LevelForSampleBudget(ds.bitmask, ds.logic_box, optionMaxSamples_);
        plan_ = hzio::PlanVisitSelection(ds, v, fallback);
        selection->SetActualExtents(plan_->actual_extents.data());
        selection->SetActualCellArea(plan_->actual_cell_size);
        debug1 << "IDX: multires selection -> box " << plan_->box.ToRangesString() << " level "
               << plan_->level << " (from camera: " << plan_->from_camera << ")" << endl;
    IDX_CATCH
}

void avtIDXFileFormat::RegisterDataSelections(const std::vector<avtDataSelection_p> &selections,
                                              std::vector<bool> *applied)
{
    plan_.reset();
    std::optional<int> fixed_level;
    for (size_t i = 0; i < selections.size(); ++i)
    {
        // VisIt hands the selections as const references but expects the reader to write the
        // actual extents back into the multires one (avtDatabase reads them afterwards).
        avtDataSelection *selection = const_cast<avtDataSelection *>(*selections[i]);
        const std::string type = selection->GetType();
        if (type == "Multi Resolution Data Selection")
        {
            PlanFromMultires(static_cast<avtMultiresSelection *>(selection));
            if (applied) (*applied)[i] = true;
        }
        else if (type == "avtResolutionSelection")
        {
            fixed_level = static_cast<avtResolutionSelection *>(selection)->resolution();
            if (applied) (*applied)[i] = true;
        }
    }
    if (fixed_level)
    {
        IDX_TRY
            const hzio::PlannerDataset ds = PlannerInput();
            const int level = std::clamp(*fixed_level, 0, ds.bitmask.maxh());
            std::optional<hzio::Box> box;
            if (plan_) box = plan_->box;  // a view and a fixed level: the view's box at that level
            plan_ = hzio::PlanFixedLevel(ds, level, box);
        IDX_CATCH
    }
}

const hzio::VisitSelectionPlan &avtIDXFileFormat::CurrentPlan()
{
    if (!plan_) PlanFromOptions();
    return *plan_;
}

std::string avtIDXFileFormat::CreateCacheNameIncludingSelections(std::string name)
{
    const hzio::VisitSelectionPlan &plan = CurrentPlan();
    return name + "@" + plan.box.ToRangesString() + "/L" + std::to_string(plan.level);
}

hzio::Box avtIDXFileFormat::DomainBox(int domain, int ranks)
{
    hzio::Dataset &ds = Open();
    const hzio::VisitSelectionPlan &plan = CurrentPlan();
    hzio::Box empty(plan.box.p1, plan.box.p1);
    if (ranks <= 1) return domain == 0 ? plan.box : empty;
    hzio::Grid grid;
    IDX_TRY
        grid = ds.layout().QueryGrid(plan.box, hzio::LevelRange{0, plan.level});
    IDX_CATCH
    // The slowest axis with a cell for every rank keeps slabs contiguous in memory; otherwise the
    // axis with the most cells (some ranks then get nothing).
    const int dims = plan.box.dims();
    int axis = -1;
    for (int d = dims - 1; d >= 0 && axis < 0; --d)
        if (grid.count[d] >= ranks) axis = d;
    if (axis < 0)
    {
        axis = 0;
        for (int d = 1; d < dims; ++d)
            if (grid.count[d] > grid.count[axis]) axis = d;
    }
    const int64_t n = grid.count[axis];
    const int64_t k0 = n * domain / ranks, k1 = n * (domain + 1) / ranks;
    if (k1 <= k0) return empty;
    hzio::Box box = plan.box;
    box.p1[axis] = grid.origin[axis] + k0 * grid.stride[axis];
    box.p2[axis] = std::min(grid.origin[axis] + k1 * grid.stride[axis], plan.box.p2[axis]);
    return box;
}

vtkDataSet *avtIDXFileFormat::GetMesh(int timestate, int domain, const char *meshname)
{
    if (std::string(meshname) != kMeshName) EXCEPTION1(InvalidVariableException, meshname);
    TimeAt(timestate);
    hzio::Dataset &ds = Open();
    const hzio::Box box = DomainBox(domain, PAR_Size());
    const hzio::IdxHeader &h = ds.header();
    const std::vector<double> physic = h.PhysicBoxOrLogic();
    if (box.Empty())
    {
        // More ranks than level-H cells: this rank has no cells. VisIt's writers reject a NULL
        // domain in the parallel engine, so it gets an empty grid (no nodes, no cells; a 1x1x1
        // grid would be one vertex cell to VTK).
        vtkRectilinearGrid *none = vtkRectilinearGrid::New();
        none->SetDimensions(0, 0, 0);
        return none;
    }
    hzio::BoxQuery query;
    query.box = box;
    query.level = CurrentPlan().level;
    hzio::Grid grid;
    IDX_TRY
        grid = ds.Resolve(query).grid;
    IDX_CATCH

    // Nodes at the samples' positions plus one closing node per axis, clipped to the dataset.
    vtkRectilinearGrid *rgrid = vtkRectilinearGrid::New();
    int nodes[3] = {1, 1, 1};
    vtkDoubleArray *coords[3];
    for (int d = 0; d < 3; ++d)
    {
        coords[d] = vtkDoubleArray::New();
        if (d >= h.dims())
        {
            coords[d]->InsertNextValue(0.0);
            continue;
        }
        const int64_t count = grid.count[d], s = grid.stride[d];
        nodes[d] = static_cast<int>(count + 1);
        coords[d]->SetNumberOfTuples(count + 1);
        for (int64_t i = 0; i < count; ++i)
            coords[d]->SetValue(i, Physic(h, physic, d, static_cast<double>(grid.origin[d] + i * s)));
        const int64_t end = std::min(grid.origin[d] + count * s, h.box.p2[d]);
        coords[d]->SetValue(count, Physic(h, physic, d, static_cast<double>(end)));
    }
    rgrid->SetDimensions(nodes);
    rgrid->SetXCoordinates(coords[0]);
    rgrid->SetYCoordinates(coords[1]);
    rgrid->SetZCoordinates(coords[2]);
    for (vtkDoubleArray *c : coords) c->Delete();
    return rgrid;
}

avtIDXFileFormat::VarRef avtIDXFileFormat::FindVar(const std::string &name)
{
    const hzio::IdxHeader &h = Open().header();
    for (size_t f = 0; f < h.fields.size(); ++f)
    {
        const hzio::Field &field = h.fields[f];
        if (field.name == name) return VarRef{static_cast<int>(f), -1};
        for (int c = 0; field.dtype.components() > 3 && c < field.dtype.components(); ++c)
            if (ComponentVarName(field.name, c) == name) return VarRef{static_cast<int>(f), c};
    }
    EXCEPTION1(InvalidVariableException, name);
}

hzio::BoxResult avtIDXFileFormat::ReadDomain(int timestate, int domain, int field)
{
    hzio::Dataset &ds = Open();
    hzio::BoxQuery query;
    query.box = DomainBox(domain, PAR_Size());
    query.level = CurrentPlan().level;
    query.field = ds.header().fields[static_cast<size_t>(field)].name;
    query.time = TimeAt(timestate);
    IDX_TRY
        return ds.Read(query);
    IDX_CATCH
    return {};
}

vtkDataArray *avtIDXFileFormat::GetVar(int timestate, int domain, const char *varname)
{
    const VarRef ref = FindVar(varname);
    const hzio::DType dtype = Open().header().fields[static_cast<size_t>(ref.field)].dtype;
    if (ref.component < 0 && dtype.components() != 1) EXCEPTION1(InvalidVariableException, varname);
    const bool none = DomainBox(domain, PAR_Size()).Empty();  // no cells on this rank (see GetMesh)
    const hzio::BoxResult result = none ? hzio::BoxResult{} : ReadDomain(timestate, domain, ref.field);
    const int64_t n = none ? 0 : result.grid.NumSamples();
    vtkDataArray *array = nullptr;
    IDX_TRY
        array = vtkDataArray::CreateDataArray(VtkTypeOf(dtype));
    IDX_CATCH
    array->SetNumberOfComponents(1);
    array->SetNumberOfTuples(n);
    if (n == 0) return array;
    const int64_t bytes = dtype.bits() / 8;
    uint8_t *out = static_cast<uint8_t *>(array->GetVoidPointer(0));
    if (ref.component < 0)
    {
        std::memcpy(out, result.data.data(), static_cast<size_t>(n * bytes));
    }
    else
    {
        const int64_t stride = bytes * dtype.components();
        const uint8_t *in = result.data.data() + ref.component * bytes;
        for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * bytes, in + i * stride, static_cast<size_t>(bytes));
    }
    return array;
}

vtkDataArray *avtIDXFileFormat::GetVectorVar(int timestate, int domain, const char *varname)
{
    const VarRef ref = FindVar(varname);
    const hzio::DType dtype = Open().header().fields[static_cast<size_t>(ref.field)].dtype;
    const int comps = dtype.components();
    if (ref.component >= 0 || comps < 2 || comps > 3) EXCEPTION1(InvalidVariableException, varname);
    const bool none = DomainBox(domain, PAR_Size()).Empty();  // no cells on this rank (see GetMesh)
    const hzio::BoxResult result = none ? hzio::BoxResult{} : ReadDomain(timestate, domain, ref.field);
    const int64_t n = none ? 0 : result.grid.NumSamples();
    vtkDataArray *array = nullptr;
    IDX_TRY
        array = vtkDataArray::CreateDataArray(VtkTypeOf(dtype));
    IDX_CATCH
    array->SetNumberOfComponents(3);
    array->SetNumberOfTuples(n);
    if (n == 0) return array;
    const int64_t bytes = dtype.bits() / 8;
    uint8_t *out = static_cast<uint8_t *>(array->GetVoidPointer(0));
    if (comps == 3)
    {
        std::memcpy(out, result.data.data(), static_cast<size_t>(n * 3 * bytes));
    }
    else
    {
        // VisIt vectors have 3 components: (u, v) -> (u, v, 0).
        std::memset(out, 0, static_cast<size_t>(n * 3 * bytes));
        for (int64_t i = 0; i < n; ++i)
            std::memcpy(out + i * 3 * bytes, result.data.data() + i * 2 * bytes, static_cast<size_t>(2 * bytes));
    }
    return array;
}
