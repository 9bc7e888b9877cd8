#include <IDXPluginInfo.h>

VISIT_DATABASE_PLUGIN_ENTRY(IDX, Engine)

avtDatabaseWriter *IDXEnginePluginInfo::GetWriter(void) { return nullptr; }
