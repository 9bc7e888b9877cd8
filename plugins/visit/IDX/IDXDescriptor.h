// What a file handed to the IDX plugin names: an .idx path, or an .idxurl descriptor holding the
// URL of a dataset on an hzio or OpenVisus server (design.md §3: http://HOST:PORT/mod_visus?
// dataset=NAME). VisIt only opens files, so a remote dataset is reached through a small local file.
//
// Descriptor format: the first line that is neither empty nor a '#' comment, trimmed, is the URL
// (http:// or https://) or a path to an .idx (relative to the descriptor's folder).
#ifndef IDX_DESCRIPTOR_H
#define IDX_DESCRIPTOR_H
#include <string>

// The path or URL to open for `filename`. Throws hzio::Error naming the file when an .idxurl
// descriptor cannot be read or names nothing.
std::string ResolveIdxSource(const std::string &filename);

// Whether `filename` ends with ".idxurl" (case-insensitive).
bool IsIdxDescriptor(const std::string &filename);
#endif
