// Error lines quote keys and values from files and command lines: printable() keeps each on one line without raw
// bytes, and is_utf8() decides which values JSON records can hold.
#include <catch2/catch.hpp>

#include <string>

#include "core/printable.hpp"

TEST_CASE("printable escapes line breaks, NUL and control bytes, and cuts long text") {
  CHECK(loci::printable(std::string("a\nb\r\t\0c\x1b", 8)) == "a\\nb\\r\\t\\0c\\x1b");
  CHECK(loci::printable("plain text, unchanged: é") == "plain text, unchanged: é");
  CHECK(loci::printable(std::string(300, 'x'), 10) == std::string(10, 'x') + "...");
}

TEST_CASE("is_utf8 accepts text and refuses stray, overlong, surrogate and out-of-range sequences") {
  for (const char* good : {"", "ascii", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf"}) {
    INFO(good);
    CHECK(loci::is_utf8(good));
  }
  for (const char* bad :
       {"\xc0\x80", "\xc3", "a\xff", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80", "\xe2\x82"}) {
    INFO(loci::printable(bad));
    CHECK_FALSE(loci::is_utf8(bad));
  }
}
