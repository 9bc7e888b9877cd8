/// Small string helpers shared by the header parser, the CLI and the protocol code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hzio {

std::string Trim(std::string_view s);
std::vector<std::string> Split(std::string_view s, char sep);
/// Splits on runs of spaces/tabs/newlines, dropping empty pieces.
std::vector<std::string> SplitWhitespace(std::string_view s);
bool StartsWith(std::string_view s, std::string_view prefix);
std::string ToLower(std::string_view s);
/// Parses a whole decimal integer; throws kInvalidArgument naming `what` otherwise.
int64_t ParseInt64(std::string_view s, std::string_view what);
/// Parses a whole floating-point number; throws kInvalidArgument naming `what` otherwise.
double ParseDouble(std::string_view s, std::string_view what);
/// A positive byte count with an optional binary suffix: "4096", "512k", "64m", "20g", "1t" (also
/// "20gb", any case). Throws kInvalidArgument naming `what` otherwise.
int64_t ParseByteSize(std::string_view s, std::string_view what);
/// Human-readable size: "512 B", "1.5 MiB" (binary units, one decimal above bytes).
std::string FormatBytes(double bytes);
/// Escapes &, <, > and " for XML/HTML attribute values and text.
std::string XmlEscape(std::string_view s);
/// printf-style "%f"-like formatting used by OpenVisus for doubles ("-10.000000").
std::string FormatFixed6(double v);
/// Formats a double as the shortest text that reads back to the same value.
std::string FormatShortest(double v);

}  // namespace hzio
