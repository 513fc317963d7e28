#include "core/printable.hpp"

#include <cstdint>
#include <cstdio>

namespace loci {

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= max) return out + "...";
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\0':
        out += "\\0";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", byte);
          out += hex;
        } else {
          out += c;
        }
    }
  }
  return out;
}

bool is_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    int more = 0;
    std::uint32_t cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      more = 1, cp = b & 0x1fu;
    } else if (b >= 0xe0 && b <= 0xef) {
      more = 2, cp = b & 0x0fu;
    } else if (b >= 0xf0 && b <= 0xf4) {
      more = 3, cp = b & 0x07u;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(more) >= text.size()) return false;
    for (int k = 1; k <= more; ++k) {
      const auto c = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((c & 0xc0u) != 0x80u) return false;
      cp = (cp << 6) | (c & 0x3fu);
    }
    if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    i += static_cast<std::size_t>(more) + 1;
  }
  return true;
}

}  // namespace loci
