// What a file handed to the IDX plugin names: an .idx path, or an .idxurl descriptor holding the
// URL of a remote dataset (design.md §3): on an hzio or OpenVisus server
// (http://HOST:PORT/mod_visus?dataset=NAME), on a web server (https://HOST/PATH/visus.idx) or in
// an S3 bucket (s3://BUCKET/KEY/visus.idx, or OpenVisus's https://HOST/BUCKET/KEY/visus.idx?
// endpoint_url=...). VisIt only opens files, so a remote dataset is reached through a small local
// file; its blocks are cached on disk like every remote read (HZIO_CACHE_DIR).
//
// Descriptor format: the first line that is neither empty nor a '#' comment, trimmed, is the URL
// or a path to an .idx (relative to the descriptor's folder).
#ifndef IDX_DESCRIPTOR_H
#define IDX_DESCRIPTOR_H
#include <string>

// The path or URL to open for `filename`. Throws hzio::Error naming the file when an .idxurl
// descriptor cannot be read or names nothing.
std::string ResolveIdxSource(const std::string &filename);

// Whether `filename` ends with ".idxurl" (case-insensitive).
bool IsIdxDescriptor(const std::string &filename);
#endif
