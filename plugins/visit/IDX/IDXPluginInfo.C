#include <IDXPluginInfo.h>
#include <visit-config.h>

VISIT_PLUGIN_VERSION(IDX, DBP_EXPORT)
VISIT_DATABASE_PLUGIN_ENTRY(IDX, General)

const char *IDXGeneralPluginInfo::GetName() const { return "IDX"; }
const char *IDXGeneralPluginInfo::GetVersion() const { return "1.0"; }
const char *IDXGeneralPluginInfo::GetID() const { return "IDX_1.0"; }
bool IDXGeneralPluginInfo::EnabledByDefault() const { return true; }
bool IDXGeneralPluginInfo::HasWriter() const { return false; }

std::vector<std::string> IDXGeneralPluginInfo::GetDefaultFilePatterns() const
{
    return {"*.idx", "*.idxurl"};
}

bool IDXGeneralPluginInfo::AreDefaultFilePatternsStrict() const { return false; }
bool IDXGeneralPluginInfo::OpensWholeDirectory() const { return false; }
