#include <avtIDXOptions.h>

#include <DBOptionsAttributes.h>

const char *const kIDXOptionLevel = "Level";
const char *const kIDXOptionBox = "Box";
const char *const kIDXOptionMaxSamples = "Max samples";

DBOptionsAttributes *GetIDXReadOptions(void)
{
    DBOptionsAttributes *rv = new DBOptionsAttributes;
    rv->SetInt(kIDXOptionLevel, -1);
    rv->SetString(kIDXOptionBox, "");
    rv->SetInt(kIDXOptionMaxSamples, 64 * 1024 * 1024);
    rv->SetHelp(
        "<p><b>Level</b>: the resolution level H to read when VisIt sends no multiresolution "
        "selection (levels 0..H; -1 picks the finest level whose samples fit in <b>Max samples</b>)."
        "</p><p><b>Box</b>: the logic box to read, <i>x0:x1,y0:y1[,z0:z1]</i> with exclusive "
        "upper bounds; empty reads the whole dataset.</p>"
        "<p>In multiresolution mode the view decides the box and level and these options are "
        "ignored.</p>");
    return rv;
}
