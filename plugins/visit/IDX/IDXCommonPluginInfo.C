#include <IDXPluginInfo.h>

#include <avtGenericDatabase.h>
#include <avtIDXFileFormat.h>
#include <avtIDXOptions.h>
#include <avtMTMDFileFormatInterface.h>

DatabaseType IDXCommonPluginInfo::GetDatabaseType() { return DB_TYPE_MTMD; }

// An MTMD database over groups of files; every .idx holds all its timesteps and domains, so each
// group has one file (VisIt passes nBlock > 1 only for grouped multi-block files: extra ones are
// ignored).
avtDatabase *IDXCommonPluginInfo::SetupDatabase(const char *const *list, int nList, int nBlock)
{
    int nTimestepGroups = nList / nBlock;
    avtMTMDFileFormat **ffl = new avtMTMDFileFormat *[nTimestepGroups];
    for (int i = 0; i < nTimestepGroups; ++i)
        ffl[i] = new avtIDXFileFormat(list[i * nBlock], readOptions);
    avtMTMDFileFormatInterface *inter = new avtMTMDFileFormatInterface(ffl, nTimestepGroups);
    return new avtGenericDatabase(inter);
}

DBOptionsAttributes *IDXCommonPluginInfo::GetReadOptions() const { return GetIDXReadOptions(); }
DBOptionsAttributes *IDXCommonPluginInfo::GetWriteOptions() const { return nullptr; }
