// Plugin-info classes of the IDX database plugin (see IDX.xml): the names, patterns and factory
// VisIt's plugin managers look up by the conventional entry-point names.
#ifndef IDX_PLUGIN_INFO_H
#define IDX_PLUGIN_INFO_H
#include <DatabasePluginInfo.h>
#include <database_plugin_exports.h>

class avtDatabase;
class avtDatabaseWriter;

class IDXGeneralPluginInfo : public virtual GeneralDatabasePluginInfo
{
  public:
    const char *GetName() const override;
    const char *GetVersion() const override;
    const char *GetID() const override;
    bool EnabledByDefault() const override;
    bool HasWriter() const override;
    std::vector<std::string> GetDefaultFilePatterns() const override;
    bool AreDefaultFilePatternsStrict() const override;
    bool OpensWholeDirectory() const override;
};

class IDXCommonPluginInfo : public virtual CommonDatabasePluginInfo, public virtual IDXGeneralPluginInfo
{
  public:
    DatabaseType GetDatabaseType() override;
    avtDatabase *SetupDatabase(const char *const *list, int nList, int nBlock) override;
    DBOptionsAttributes *GetReadOptions() const override;
    DBOptionsAttributes *GetWriteOptions() const override;
};

class IDXMDServerPluginInfo : public virtual MDServerDatabasePluginInfo, public virtual IDXCommonPluginInfo
{
  public:
    virtual void dummy();  // the class must not be empty
};

class IDXEnginePluginInfo : public virtual EngineDatabasePluginInfo, public virtual IDXCommonPluginInfo
{
  public:
    avtDatabaseWriter *GetWriter(void) override;
};
#endif
