#include "apps/script_values.hpp"

#include "core/error.hpp"
#include "core/printable.hpp"

namespace loci::apps {

bool fits_one_line(const std::string& value) {
  return value.find_first_of(std::string("\n\r\0", 3)) == std::string::npos;
}

void check_script_value(const std::string& key, const std::string& value) {
  if (!fits_one_line(value))
    throw UserError(printable(key) +
                    ": its value holds a line break or NUL, which no line of an emitted script can hold");
}

void check_script_overrides(const std::vector<std::string>& overrides) {
  for (const auto& o : overrides) check_script_value(o.substr(0, o.find('=')), o);
}

}  // namespace loci::apps
