#include "apps/option_flags.hpp"

#include <limits>

namespace loci::apps {
namespace {

std::string flag_name(const std::string& key) {
  std::string out = "--" + key;
  for (char& c : out)
    if (c == '_' || c == '.') c = '-';
  return out;
}

// A number of the key's type within its bounds, as the YAML reader would accept it.
CLI::Validator number_check(const config::OptionSpec& s) {
  const bool integer = s.type == "int";
  const double lo = s.min.value_or(-std::numeric_limits<double>::infinity());
  const double hi = s.max.value_or(std::numeric_limits<double>::infinity());
  return CLI::Validator(
      [integer, lo, hi](std::string& text) -> std::string {
        std::size_t used = 0;
        double v = 0;
        try {
          v = integer ? static_cast<double>(std::stoll(text, &used)) : std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != text.size()) return "'" + text + "' is not " + (integer ? "an integer" : "a number");
        auto bound = [integer](double b) {
          return integer ? std::to_string(static_cast<long long>(b)) : config::default_text(b);
        };
        if (v < lo) return "'" + text + "' is below the minimum " + bound(lo);
        if (v > hi) return "'" + text + "' is above the maximum " + bound(hi);
        return "";
      },
      "");
}

}  // namespace

OptionFlags::OptionFlags(CLI::App* command, const std::deque<config::OptionSpec>& specs)
    : values_(std::make_shared<std::map<std::string, std::string>>()) {
  for (const auto& s : specs) {
    // A yes/no key is a flag: `--force`, or `--force=false` to say no where a config said yes.
    CLI::Option* flag = s.type == "bool" ? command->add_flag(flag_name(s.path), (*values_)[s.path], s.doc)
                                         : command->add_option(flag_name(s.path), (*values_)[s.path], s.doc);
    if (s.default_value && s.default_value->is_scalar()) flag->default_str(s.default_value->text());
    if (s.type == "enum") flag->check(CLI::IsMember(s.choices));
    if (s.type == "int" || s.type == "float")
      flag->check(number_check(s))->type_name(s.type == "int" ? "INT" : "FLOAT");
    flags_[s.path] = flag;
  }
}

config::Node OptionFlags::given() const {
  config::Node out = config::Node::map();
  for (const auto& [key, flag] : flags_)
    if (flag->count() > 0) out.set(key, config::Node::scalar(values_->at(key)));
  return out;
}

}  // namespace loci::apps
