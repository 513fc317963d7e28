// What may reach a script loci emits (--emit slurm | list). Every value a user or a config sets arrives there as
// one shell word (core/shell_words.hpp), so no `$(...)`, backtick, quote, `;` or glob in it runs. A line break or
// NUL is the one thing no quoting helps: a comment line or an #SBATCH line would end at it, and `--emit list`
// promises one command per line. Such a value is refused at its key.
#pragma once

#include <string>
#include <vector>

namespace loci::apps {

// True when `value` holds no newline, carriage return or NUL.
bool fits_one_line(const std::string& value);

// UserError "KEY: its value holds a line break or NUL, which no line of an emitted script can hold" unless
// fits_one_line(value).
void check_script_value(const std::string& key, const std::string& value);

// Each `key=value` override through check_script_value, named by its key.
void check_script_overrides(const std::vector<std::string>& overrides);

}  // namespace loci::apps
