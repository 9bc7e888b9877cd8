/// Percent-encoding of URL query components, shared by the remote client and the server.
/// mod_visus peers escape every byte but letters and digits and decode only %XX (a '+' stays a
/// '+'; idx-format.md §7.1).
#pragma once

#include <string>
#include <string_view>

namespace hzio {

/// Escapes every byte except ASCII letters, digits and the characters in `keep` as %XX
/// (upper-case hex, as the OpenVisus client sends).
std::string PercentEncode(std::string_view text, std::string_view keep = "");
/// Decodes %XX escapes; throws kInvalidArgument naming a malformed escape.
std::string PercentDecode(std::string_view text);

}  // namespace hzio
