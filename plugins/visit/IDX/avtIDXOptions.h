// Read options of the IDX plugin (shown by VisIt's "Open file" dialog and visitconvert's prompts).
#ifndef AVT_IDX_OPTIONS_H
#define AVT_IDX_OPTIONS_H
#include <string>

class DBOptionsAttributes;

// Option names, shared by the options object and the reader.
extern const char *const kIDXOptionLevel;       // int, -1 = automatic
extern const char *const kIDXOptionBox;         // "x0:x1,y0:y1[,z0:z1]", "" = whole dataset
extern const char *const kIDXOptionMaxSamples;  // int, the automatic level's sample budget

DBOptionsAttributes *GetIDXReadOptions(void);
#endif
