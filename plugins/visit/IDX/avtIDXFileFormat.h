// The IDX reader: an avtMTMDFileFormat over hzio::core (design.md §2: "a thin adapter").
//
// * One rectilinear mesh "mesh" spanning the physic box (idx-format.md §1.2); sample i of a level-H
//   read covers the cell [x_i, x_i + D_H) (clipped to the dataset), so every field is zone-centred
//   and one cell holds exactly one stored sample: values equal `hzio read` at the same box/level.
// * Fields: 1 component -> scalar, 2 or 3 -> vector (2 padded with z = 0), more -> one scalar per
//   component ("NAME_c0", ...).
// * Timesteps: the header's (time) list; VisIt's cycle = time = the IDX timestep value.
// * Domains: the format decomposes itself (FormatCanDoDomainDecomposition): VisIt asks every
//   engine rank for "its" domain and the reader cuts the planned box into PAR_Size() slabs of whole
//   level-H cells along the slowest axis that has enough of them (a rank left without cells gets
//   an empty grid). Each rank reads its slab with hzio::core on its own: hzio::mpi's collective
//   reads would need every rank to call GetVar in lock step, which VisIt does not promise.
// * Multires (FormatCanDoMultires, LODs = maxh): an avtMultiresSelection is mapped to box + level
//   by hzio::PlanVisitSelection (reader/src/hzio/hz/visit_selection.h) and the actual extents and
//   cell size are written back into the selection; an avtResolutionSelection fixes the level.
//   Without a selection the read options decide (Level, Box, Max samples).
// * Remote datasets: an .idxurl descriptor (IDXDescriptor.h) names a server URL.
#ifndef AVT_IDX_FILE_FORMAT_H
#define AVT_IDX_FILE_FORMAT_H

#include <avtMTMDFileFormat.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/hz/visit_selection.h"

class DBOptionsAttributes;
class avtMultiresSelection;

class avtIDXFileFormat : public avtMTMDFileFormat
{
  public:
    avtIDXFileFormat(const char *filename, const DBOptionsAttributes *options);
    ~avtIDXFileFormat() override;

    const char *GetType(void) override { return "IDX"; }
    void FreeUpResources(void) override;

    int GetNTimesteps(void) override;
    void GetCycles(std::vector<int> &cycles) override;
    void GetTimes(std::vector<double> &times) override;

    vtkDataSet *GetMesh(int timestate, int domain, const char *meshname) override;
    vtkDataArray *GetVar(int timestate, int domain, const char *varname) override;
    vtkDataArray *GetVectorVar(int timestate, int domain, const char *varname) override;

    void RegisterDataSelections(const std::vector<avtDataSelection_p> &selections,
                                std::vector<bool> *applied) override;
    std::string CreateCacheNameIncludingSelections(std::string name) override;

    // The plan the next reads use (for tests and debugging).
    const hzio::VisitSelectionPlan &CurrentPlan();
    // The logic box rank `domain` of `ranks` reads under the current plan (empty: nothing).
    hzio::Box DomainBox(int domain, int ranks);

  protected:
    void PopulateDatabaseMetaData(avtDatabaseMetaData *md, int timestate) override;

  private:
    // A variable VisIt asked for, resolved to a field and (for split fields) a component.
    struct VarRef
    {
        int field = -1;
        int component = -1;  // -1: every component
    };

    hzio::Dataset &Open();
    hzio::PlannerDataset PlannerInput();
    int64_t TimeAt(int timestate);
    VarRef FindVar(const std::string &name);
    void PlanFromOptions();
    void PlanFromMultires(avtMultiresSelection *selection);
    hzio::BoxResult ReadDomain(int timestate, int domain, int field);

    std::string source_;  // path or URL
    std::shared_ptr<hzio::Dataset> dataset_;
    std::vector<int64_t> times_;

    // Read options.
    int optionLevel_ = -1;
    std::string optionBox_;
    int64_t optionMaxSamples_ = int64_t{64} << 20;

    std::optional<hzio::VisitSelectionPlan> plan_;
};

#endif
