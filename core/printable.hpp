// Text from a file or a value, fit for a one-line error message: control characters and bytes that are not text
// are written as escapes (\n, \r, \t, \0, \xHH), so a key or a value can never break an error line in two or put
// raw bytes on a terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace loci {

// `text` with every byte below 0x20 and 0x7f escaped, cut to `max` characters (then ending in "...").
std::string printable(std::string_view text, std::size_t max = 200);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF): what JSON holds.
bool is_utf8(std::string_view text);

}  // namespace loci
