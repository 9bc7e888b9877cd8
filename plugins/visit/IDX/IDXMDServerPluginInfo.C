#include <IDXPluginInfo.h>

VISIT_DATABASE_PLUGIN_ENTRY(IDX, MDServer)

void IDXMDServerPluginInfo::dummy() {}
